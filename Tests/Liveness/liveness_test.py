#!/usr/bin/env python3
"""The gateway keeps answering while a hostile mix of backends and clients runs.

`daygate simulate` runs the backends in their own process and `daygate serve` the gateway
(with a client key, `clients:` added to the written config). Once `/v1/today` is cached, a
probe asks, every PROBE_EVERY s and on a new connection each time, `GET /healthz` and a plain
`GET /v1/today` (no Cache-Control: served from the cache, stale allowed), each waiting up to
PROBE_TIMEOUT s. Meanwhile phases of LIVENESS_PHASE_SECONDS each (6 s by default) run one
hostile thing after another, faults cleared between them (`/_sim/faults`, `hostile_body`):

  a. every backend answers 500 with a 16 KB `{"detail": "a.a.a.…"}` (quadratic-scanner bait);
  b. every backend answers 500 with 4 MB of `%`;
  c. every backend answers 64 KB that is neither UTF-8 nor JSON, as a 200 or a 502 (alternating);
  d. every backend trickles its real answer, 16 bytes every 200 ms;
  e. every backend answers a 200 whose body never ends;
  f. every backend holds the request for 10 minutes (it never answers);
  g. the ICS school feed becomes 100 `FREQ=MINUTELY` series from 2020, and workers ask
     `/v1/events` of 1 to 4 days from today with `Cache-Control: no-cache`;
  h. 1,100 connections send the head of `POST /v1/tasks` without a key, declaring 60000 bytes
     (within the 64 KB body limit), and 10 bytes of body; they are refused (401) before their
     body ends, and hold their socket, sending nothing more, until the server closes it — more
     than the gateway's connection budget (1,024 by default) together with 100 that declare
     100000 bytes (over the limit: 413) and 100 with the key, which the gateway has to wait for
     (the ones the server closes are replaced every 5 s);
  i. bursts of 200 connections send `GET /v1/today` with no-cache and close at once;
  j. SIGHUP (reload) every 500 ms;

and last all of them at once (the body faults a–f rotating over the backends other than ICS,
whose feed is the hostile one). In phases a–f (and the last) WORKERS threads ask `/v1/today`
and `/v1/events` with `Cache-Control: no-cache`, forcing fetches through the hostile
backends: their answers may be errors or stale, but a 5xx other than 502/503/504, a
connection error or a timeout is a failure.

The bar, per phase: for `/healthz` and for `/v1/today`, the longest time between two
successful answers (a gap over a phase boundary belongs to the phase its middle fell in) is
below LIVENESS_MAX_GAP s (1.0 by default); no probe fails (a probe fails on any status but 200
with JSON, a connection error or a timeout; a `/v1/today` whose sections are stale or failed
is fine); the gateway process lives. After the last phase, with every fault cleared, `/healthz` and
`/v1/today` answer 200 within 2 s and the gateway still runs.

Prints one line per phase (probes sent, longest gap and slowest answer of each probe, failed
probes, the workers' requests, what the phase's clients saw), a summary (with how late the probe
rounds started, so that a test machine too busy to probe is told apart from a gateway that does
not answer, and the load average) and "liveness: N passed, N failed"; exits non-zero on any
failure. `make soak-liveness` runs 300 s phases against the release build.

    LIVENESS_PHASE_SECONDS=6 LIVENESS_MAX_GAP=1.0 python3 Tests/Liveness/liveness_test.py [path/to/daygate]
"""
import datetime
import http.client
import json
import os
import re
import signal
import socket
import sys
import threading
import time
import zoneinfo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from demo_process import ZONE, Checks  # noqa: E402
from gateway_processes import call, simulators_and_gateway  # noqa: E402

PHASE_SECONDS = float(os.environ.get("LIVENESS_PHASE_SECONDS") or 6)
MAX_GAP = float(os.environ.get("LIVENESS_MAX_GAP") or 1.0)
PROBE_EVERY = 0.1          # seconds between probe rounds (one /healthz, one /v1/today)
PROBE_TIMEOUT = 30         # socket timeout of a probe request
WORKER_TIMEOUT = 30        # socket timeout of a worker request
WORKERS = 3                # no-cache askers in the backend-fault phases
SLOW_REFUSED = 1100        # half-sent POST bodies without a key (refused at once), held open in phase h
SLOW_OVER = 100            # with the key, declaring more than the 64 KB body limit (413)
SLOW_WITHIN = 100          # with the key, within the limit: the gateway waits for the body
SLOW_WITHIN_LENGTH = 60000
SLOW_TOP_UP_EVERY = 5.0    # seconds between replacing the ones the server closed
CANCELLED = 200            # requests sent and abandoned per burst in phase i
CANCEL_EVERY = 10.0        # seconds between bursts in phase i (one burst in a short phase)
RELOAD_EVERY = 0.5         # seconds between SIGHUPs in phase j
SETTLED_WITHIN = 2.0       # seconds for /healthz and /v1/today once everything is cleared
KEY = "liveness-client-key-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY}"}
NO_CACHE = {"Cache-Control": "no-cache"}
ICS = "ics"

checks = Checks("liveness")
check = checks.check


def today():
    return datetime.datetime.now(zoneinfo.ZoneInfo(ZONE)).date()


def minutely_feed(count=100):
    """The reproduced hostile feed (as in ICSHostileFeedGatewayTests): `count` series of
    FREQ=MINUTELY from 2020-01-01."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//evil//EN"]
    for index in range(count):
        lines += ["BEGIN:VEVENT", f"UID:m{index}", "DTSTART:20200101T000000Z", "SUMMARY:tick",
                  "RRULE:FREQ=MINUTELY", "END:VEVENT"]
    return "\r\n".join(lines + ["END:VCALENDAR", ""])


# The backend faults of phases a–f (c alternates between its two forms per simulator).
QUADRATIC = {"error_status": 500, "hostile_body": "quadratic"}
HUGE = {"error_status": 500, "hostile_body": "huge"}
INVALID = ({"hostile_body": "invalid"}, {"error_status": 502, "hostile_body": "invalid"})
SLOW = {"hostile_body": "slow"}
ENDLESS = {"hostile_body": "endless"}
SILENT = {"latency_ms": 600000}
BODY_FAULTS = [QUADRATIC, HUGE, INVALID[0], INVALID[1], SLOW, ENDLESS, SILENT]


def probe(port, path, headers, timeout):
    """(status, whether the body is a whole JSON object). The body is read to its end but not
    parsed: after the hostile feed a day can be ~5 MB (its 20,000 instances), and parsing that
    ten times a second in Python starved the probe itself (the first hour-long run)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read().strip()
        return response.status, body[:1] == b"{" and body[-1:] == b"}"
    finally:
        connection.close()


class Probes(threading.Thread):
    """Every PROBE_EVERY s, /healthz and /v1/today each on a new connection of its own thread;
    every outcome kept as (kind, sent, answered, status, error)."""

    KINDS = {"healthz": ("/healthz", {}), "today": ("/v1/today", AUTH)}

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.stop_event, self.lock = port, threading.Event(), threading.Lock()
        self.results, self.threads, self.lateness = [], [], []
        self.started = self.stopped = None

    def ask(self, kind):
        path, headers = self.KINDS[kind]
        sent = time.time()
        try:
            status, whole = probe(self.port, path, headers, PROBE_TIMEOUT)
            error = None if status == 200 and whole else (
                f"{status}" + ("" if whole else " (not a JSON object)"))
        except Exception as exc:  # noqa: BLE001 - recorded and reported
            status, error = None, f"{type(exc).__name__}: {exc}"
        with self.lock:
            self.results.append((kind, sent, time.time(), status, error))

    def run(self):
        self.started = time.time()
        next_round = self.started
        while not self.stop_event.is_set():
            self.lateness.append((next_round, time.time() - next_round))
            for kind in self.KINDS:
                thread = threading.Thread(target=self.ask, args=(kind,), daemon=True)
                thread.start()
                self.threads.append(thread)
            next_round += PROBE_EVERY
            if len(self.threads) > 2000:  # a long run: forget the finished ones
                self.threads = [thread for thread in self.threads if thread.is_alive()]
            self.stop_event.wait(max(0.0, next_round - time.time()))
        self.stopped = time.time()

    def finish(self):
        self.stop_event.set()
        self.join()
        for thread in self.threads:
            thread.join(PROBE_TIMEOUT + 10)

    def gaps(self, kind):
        """Sorted times of the successful answers of `kind`, between the probe's start and stop."""
        answered = sorted(r[2] for r in self.results if r[0] == kind and r[4] is None)
        return [self.started] + answered + [max([self.stopped] + answered[-1:])]


class Workers:
    """`count` threads asking `paths` in turn (the i-th thread starts at the i-th path) with
    no-cache until stopped; every outcome kept as (path, sent, latency, status, error)."""

    def __init__(self, port, paths, count, results, lock):
        self.port, self.paths, self.results, self.lock = port, paths, results, lock
        self.stop_event = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True) for i in range(count)]
        for thread in self.threads:
            thread.start()

    def run(self, index):
        while not self.stop_event.is_set():
            path = self.paths[index % len(self.paths)]
            index += 1
            sent = time.time()
            try:
                # Read, not parsed: a window of the hostile feed is megabytes of JSON, and
                # parsing it holds Python's lock while the probes wait to be sent.
                status, _ = probe(self.port, path, {**AUTH, **NO_CACHE}, WORKER_TIMEOUT)
                error = f"{status}" if status >= 500 and status not in (502, 503, 504) else None
            except Exception as exc:  # noqa: BLE001 - recorded and reported
                status, error = None, f"{type(exc).__name__}: {exc}"
            with self.lock:
                self.results.append((path, sent, time.time() - sent, status, error))

    def stop(self):
        self.stop_event.set()


class SlowBodies:
    """Connections holding a half-sent `POST /v1/tasks` (the head, then 10 bytes of body):
    SLOW_REFUSED without a key (refused at once, then held), SLOW_OVER over the body limit and
    SLOW_WITHIN with the key within it. An answer is counted and the socket kept; the ones the
    server has closed are counted, and replaced every SLOW_TOP_UP_EVERY s while the phase runs
    (not at once: a server that closes them at once would get a connection flood instead)."""

    def __init__(self, port):
        self.port, self.sockets, self.refused = port, [], 0
        self.opened, self.closed_by_server, self.answers = {}, {}, {}
        self.wanted = {(SLOW_WITHIN_LENGTH, False): SLOW_REFUSED, (100000, True): SLOW_OVER,
                       (SLOW_WITHIN_LENGTH, True): SLOW_WITHIN}

    def head(self, variant):
        length, keyed = variant
        lines = ["POST /v1/tasks HTTP/1.1", f"Host: 127.0.0.1:{self.port}", "Content-Type: application/json",
                 f"Content-Length: {length}"]
        if keyed:
            lines.insert(2, f"Authorization: Bearer {KEY}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + b'{"title":"'

    @staticmethod
    def label(variant):
        return f"{variant[0]}{'' if variant[1] else ' no key'}"

    def top_up(self):
        held = {}
        for variant, _ in self.sockets:
            held[variant] = held.get(variant, 0) + 1
        for variant, wanted in self.wanted.items():
            for _ in range(wanted - held.get(variant, 0)):
                try:
                    s = socket.create_connection(("127.0.0.1", self.port), timeout=2)
                    s.sendall(self.head(variant))
                    s.setblocking(False)
                    self.sockets.append((variant, s))
                    self.opened[variant] = self.opened.get(variant, 0) + 1
                except OSError:
                    self.refused += 1

    def poll(self):
        """Reads what the server sent: an answer is counted (the socket is still held: such a
        client reads it and sends nothing more); a close is counted and the socket let go."""
        still = []
        for variant, s in self.sockets:
            try:
                data = s.recv(65536)
            except BlockingIOError:
                still.append((variant, s))
                continue
            except OSError:
                data = b""
            if data:
                if data.startswith(b"HTTP/1.1 "):
                    status = data.split(b" ", 2)[1].decode(errors="replace")
                    answers = self.answers.setdefault(variant, {})
                    answers[status] = answers.get(status, 0) + 1
                still.append((variant, s))
                continue
            self.closed_by_server[variant] = self.closed_by_server.get(variant, 0) + 1
            s.close()
        self.sockets = still

    def close(self):
        for _, s in self.sockets:
            s.close()
        self.sockets = []

    def summary(self):
        parts = [f"{self.label(v)}: {self.opened.get(v, 0)} opened, {self.closed_by_server.get(v, 0)} closed by the "
                 f"server {self.answers.get(v, {})}" for v in self.wanted]
        refused = f"; {self.refused} refused" if self.refused else ""
        return "slow bodies (Content-Length) " + "; ".join(parts) + refused


class Phase:
    """One hostile thing (or all of them): what it sets up, and afterwards when it ran and what its
    clients saw."""

    def __init__(self, key, title, faults=None, hostile_feed=False, workers=(), worker_count=WORKERS,
                 slow_bodies=False, cancelled=False, reloads=False, rotate=False):
        self.key, self.title = key, title
        self.faults, self.hostile_feed = faults, hostile_feed
        self.worker_paths, self.worker_count = list(workers), worker_count
        self.slow_bodies, self.cancelled, self.reloads, self.rotate = slow_bodies, cancelled, reloads, rotate
        self.start = self.end = None
        self.error = None
        self.notes = []
        self.gateway_died = False
        self.exit_code = None


class Run:
    """The phases against one gateway: sets them up, keeps them going, clears them."""

    def __init__(self, sims, gateway):
        self.sims, self.gateway, self.port = sims, gateway, gateway.port
        self.worker_results, self.worker_lock = [], threading.Lock()
        self.worker_sets = []
        self.feed_round = 0
        self.cold_windows = []  # (from, to): after reread_feeds, until /v1/today has the new feeds

    def sim_post(self, name, path, body, content_type="application/json"):
        if not isinstance(body, bytes):
            body = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        connection = http.client.HTTPConnection("127.0.0.1", self.sims.ports[name], timeout=10)
        try:
            connection.request("POST", path, body=body, headers={"Content-Type": content_type})
            response = connection.getresponse()
            text = response.read()
            if response.status != 200:
                raise AssertionError(f"{name} POST {path} answered {response.status}: {text[:200]!r}")
        finally:
            connection.close()

    def set_faults(self, assignment):
        for name, faults in assignment.items():
            self.sim_post(name, "/_sim/faults", faults)

    def clear(self):
        """Every fault off and the ICS feeds as seeded; returns the problems (a cleanup never raises)."""
        problems = []
        for name in self.sims.ports:
            try:
                self.sim_post(name, "/_sim/faults", {})
            except Exception as exc:  # noqa: BLE001
                problems.append(f"clearing {name}: {exc}")
        if ICS in self.sims.ports:
            try:
                self.sim_post(ICS, "/_sim/reset", b"")
            except Exception as exc:  # noqa: BLE001
                problems.append(f"resetting the ICS feeds: {exc}")
        return problems

    def reread_feeds(self):
        """Makes the gateway read the ICS feeds at the next request instead of at their refresh
        (15 min): each feed's address gets a new query (`?round=N`, which the simulator ignores)
        and a SIGHUP applies it; a calendar at a new address is a new feed, and the reload drops
        the section's kept answers. Without it the short run never read the hostile feed (the
        copy from the warm-up was still fresh), and the hour-long one kept it for the rest of
        the run. Waits (at most 10 s) until /readyz shows the reload."""
        self.feed_round += 1
        with open(self.sims.config) as config:
            text = config.read()
        changed = re.sub(r"(/calendars/[^\s?]+\.ics)(\?round=\d+)?", rf"\1?round={self.feed_round}", text)
        assert changed != text, "no calendar address in the config"
        with open(self.sims.config, "w") as config:
            config.write(changed)
        before = self.generation()
        began = time.time()
        self.gateway.process.send_signal(signal.SIGHUP)
        deadline = time.time() + 10
        while self.generation() == before:
            assert time.time() < deadline, "the gateway did not reload within 10 s"
            time.sleep(0.05)
        # The reload dropped the calendar section's kept answers (its settings changed): the day
        # is not a kept answer again until it has been composed with the new feeds once.
        while time.time() < deadline:
            status, whole = probe(self.port, "/v1/today", AUTH, 10)
            if status == 200 and whole:
                break
            time.sleep(0.05)
        self.cold_windows.append((began, time.time()))

    def generation(self):
        status, _, body = call(self.port, "/readyz", timeout=5)
        return ((body or {}).get("config") or {}).get("generation")

    def rotation(self, step):
        """Phase `all`: the body faults rotated over the simulators other than ICS."""
        names = [name for name in self.sims.ports if name != ICS]
        return {name: BODY_FAULTS[(index + step) % len(BODY_FAULTS)] for index, name in enumerate(names)}

    def cancel_burst(self):
        request = (f"GET /v1/today HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAuthorization: Bearer {KEY}\r\n"
                   "Cache-Control: no-cache\r\n\r\n").encode()
        sent = 0
        for _ in range(CANCELLED):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
                    s.sendall(request)
                sent += 1
            except OSError:
                pass
        return sent

    def run(self, phase, start=None):
        """Runs `phase` from `start` (the previous phase's end: the phases tile the run)."""
        phase.start = start or time.time()
        deadline = time.time() + PHASE_SECONDS
        slow = workers = None
        reloads = cancelled = rotations = 0
        try:
            if phase.faults:
                self.set_faults(phase.faults(self))
            if phase.hostile_feed:
                self.sim_post(ICS, "/_sim/calendars/school", minutely_feed(), "text/calendar")
                self.reread_feeds()
            if phase.worker_paths:
                workers = Workers(self.port, phase.worker_paths, phase.worker_count, self.worker_results,
                                  self.worker_lock)
                self.worker_sets.append(workers)
            if phase.slow_bodies:
                slow = SlowBodies(self.port)
                slow.top_up()
            next_reload = next_cancel = next_rotation = time.time()
            next_top_up = time.time() + SLOW_TOP_UP_EVERY
            while time.time() < deadline:
                now = time.time()
                if phase.cancelled and now >= next_cancel:
                    cancelled += self.cancel_burst()
                    next_cancel += CANCEL_EVERY
                if phase.reloads and now >= next_reload:
                    if self.gateway.process.poll() is None:
                        self.gateway.process.send_signal(signal.SIGHUP)
                        reloads += 1
                    next_reload += RELOAD_EVERY
                if phase.rotate and now >= next_rotation:
                    self.set_faults(self.rotation(rotations))
                    rotations += 1
                    next_rotation += max(1.0, PHASE_SECONDS / len(BODY_FAULTS))
                if slow:
                    slow.poll()
                    if now >= next_top_up:
                        slow.top_up()
                        next_top_up += SLOW_TOP_UP_EVERY
                if self.gateway.process.poll() is not None:
                    phase.gateway_died = True
                    break
                time.sleep(0.05)
        except Exception as exc:  # noqa: BLE001 - the phase fails, the run goes on
            phase.error = exc
        finally:
            if workers:
                workers.stop()
            if slow:
                slow.poll()
                phase.notes.append(slow.summary())
                slow.close()
            if phase.cancelled:
                phase.notes.append(f"{cancelled} requests sent and abandoned")
            if phase.reloads:
                phase.notes.append(f"{reloads} SIGHUPs")
                try:
                    status, _, body = call(self.port, "/readyz", timeout=5)
                    last = ((body or {}).get("config") or {}).get("last_reload") or {}
                    phase.notes.append(f"/readyz {status}, config generation "
                                       f"{((body or {}).get('config') or {}).get('generation')}, last reload "
                                       f"{last.get('result')}")
                except Exception as exc:  # noqa: BLE001
                    phase.notes.append(f"/readyz: {type(exc).__name__}: {exc}")
            if phase.rotate:
                phase.notes.append(f"{rotations} fault rotations")
            problems = self.clear()
            if phase.hostile_feed:
                try:
                    self.reread_feeds()
                except Exception as exc:  # noqa: BLE001 - a cleanup never raises
                    problems.append(f"reading the restored feeds: {exc}")
            if problems and phase.error is None:
                phase.error = AssertionError("; ".join(problems))
            if self.gateway.process.poll() is not None:
                phase.gateway_died = True
            phase.end = time.time()


def longest_gap(points, start, end, excluded=()):
    """The longest interval between consecutive points whose middle lies in [start, end) (each gap
    belongs to one phase: the one it mostly fell in); (length, its start, its end). The time of
    `excluded` windows inside an interval does not count towards its length."""
    best = (0.0, None, None)
    for a, b in zip(points, points[1:]):
        length = b - a - sum(max(0.0, min(b, y) - max(a, x)) for x, y in excluded)
        if start <= (a + b) / 2 < end and length > best[0]:
            best = (length, a, b)
    return best


def phase_at(phases, moment):
    return next((p.key for p in phases if p.start is not None and p.start <= moment < p.end), None)


def phase_figures(phase, probes, worker_results, phases, cold_windows=()):
    """The phase's line and the reasons it misses the bar."""
    reasons, parts = [], []
    cold = sum(max(0.0, min(phase.end, y) - max(phase.start, x)) for x, y in cold_windows)
    if cold > 0:
        parts.append(f"today not judged for {cold * 1000:.0f} ms (the new feed addresses' first answer)")
    sent = {kind: [r for r in probes.results if r[0] == kind and phase.start <= r[1] < phase.end]
            for kind in Probes.KINDS}
    parts.append("probes " + "/".join(str(len(sent[kind])) for kind in Probes.KINDS) + " (healthz/today)")
    gap_texts, slow_texts = [], []
    for kind in Probes.KINDS:
        # /v1/today is not a kept answer while a reload has made the calendar section cold.
        excluded = cold_windows if kind == "today" else ()
        gap, began, ended = longest_gap(probes.gaps(kind), phase.start, phase.end, excluded)
        text = f"{gap * 1000:.0f} ms"
        if began is not None and began < phase.start:
            text += f" (began in {phase_at(phases, began) or 'the baseline'})"
        if ended is not None and ended >= phase.end:
            text += f" (ended in {phase_at(phases, ended) or 'the final check'})"
        gap_texts.append(text)
        if gap >= MAX_GAP:
            reasons.append(f"{kind} went {gap:.2f} s without an answer (bar {MAX_GAP:.2f} s)")
        answered = [r[2] - r[1] for r in sent[kind] if r[4] is None]
        slow_texts.append(f"{max(answered) * 1000:.0f} ms" if answered else "-")
    parts.append("longest gap " + " / ".join(gap_texts))
    parts.append("slowest " + " / ".join(slow_texts))
    failed = [r for kind in Probes.KINDS for r in sent[kind] if r[4] is not None]
    parts.append(f"{len(failed)} failed probes")
    late = max((lag for at, lag in probes.lateness if phase.start <= at < phase.end), default=0.0)
    if late > 0.25:  # the test's own process was held up: a gap this long is not the gateway's
        parts.append(f"probe rounds started up to {late * 1000:.0f} ms late (the test machine)")
    if failed:
        kinds = {}
        for r in failed:
            kinds.setdefault(f"{r[0]} {r[4]}", []).append(r)
        examples = "; ".join(f"{len(rs)}× {what}" for what, rs in list(kinds.items())[:4])
        reasons.append(f"{len(failed)} probes failed ({examples})")
    work = [r for r in worker_results if phase.start <= r[1] < phase.end]
    if work:
        bad = [r for r in work if r[4] is not None]
        statuses = {}
        for r in work:
            statuses[str(r[3])] = statuses.get(str(r[3]), 0) + 1
        parts.append(f"workers {len(work)} requests {statuses}, slowest {max(r[2] for r in work) * 1000:.0f} ms, "
                     f"{len(bad)} bad")
        if bad:
            what = {}
            for r in bad:
                label = f"{r[0].split('?')[0]} {r[4]}"
                what[label] = what.get(label, 0) + 1
            examples = "; ".join(f"{n}× {label}" for label, n in list(what.items())[:4])
            reasons.append(f"{len(bad)} worker requests failed ({examples})")
    if phase.gateway_died:
        reasons.append(f"the gateway process died (exit {phase.exit_code})")
    if phase.error is not None:
        reasons.append(f"the phase could not run as planned: {phase.error}")
    return ", ".join(parts + phase.notes), reasons


def build_phases():
    def every(faults):
        return lambda run: {name: faults for name in run.sims.ports}

    def alternating(run):
        return {name: INVALID[index % 2] for index, name in enumerate(run.sims.ports)}

    day = today()
    fetching = [f"/v1/today?date={day}", f"/v1/events?date={day}"]
    windows = [f"/v1/events?from={day}&to={day + datetime.timedelta(days=n)}" for n in (1, 2, 3, 4)]
    return [
        Phase("a", "500 + quadratic body", every(QUADRATIC), workers=fetching),
        Phase("b", "500 + 4 MB of %", every(HUGE), workers=fetching),
        Phase("c", "invalid bytes (200/502)", alternating, workers=fetching),
        Phase("d", "slow bodies from backends", every(SLOW), workers=fetching),
        Phase("e", "endless bodies from backends", every(ENDLESS), workers=fetching),
        Phase("f", "backends never answer", every(SILENT), workers=fetching),
        Phase("g", "hostile calendar feed", hostile_feed=True, workers=windows, worker_count=len(windows)),
        Phase("h", f"{SLOW_REFUSED + SLOW_OVER + SLOW_WITHIN} slow-body clients", slow_bodies=True),
        Phase("i", f"cancelled requests ({CANCELLED} a burst)", cancelled=True),
        Phase("j", "SIGHUP every 500 ms", reloads=True),
        Phase("all", "all at once", hostile_feed=True, workers=fetching + windows, worker_count=4,
              slow_bodies=True, cancelled=True, reloads=True, rotate=True),
    ]


def raise_open_files():
    """Phase h holds more sockets than the usual soft limit of 1024."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def main():
    raise_open_files()
    print(f"liveness: phases of {PHASE_SECONDS:g} s, bar: no probe fails and no gap of {MAX_GAP:g} s or more")
    with simulators_and_gateway("liveness") as (sims, gateway):
        with open(sims.config, "a") as config:
            config.write(f"\nclients:\n  - name: liveness\n    key: {KEY}\n    profile: default\n")
        probes = None
        run = None
        try:
            status, body = gateway.start()
            assert status == 200, f"/readyz answered {status}: {body}"
            port = gateway.port

            def warm():
                deadline = time.time() + 60
                while True:
                    status, _, body = call(port, "/v1/today", headers=AUTH, timeout=30)
                    if status == 200:
                        break
                    assert time.time() < deadline, f"/v1/today answered {status} for 60 s"
                    time.sleep(0.5)
                status, _, again = call(port, "/v1/today", headers=AUTH, timeout=30)
                assert status == 200, f"the second /v1/today answered {status}"
                caches = {name: section.get("cache") for name, section in (again.get("sections") or {}).items()}
                status, _, _ = call(port, "/v1/today")
                assert status == 401, f"/v1/today without the key answered {status} (expected 401)"
                return f"simulators {', '.join(sims.ports)}; second /v1/today: {caches}; without the key 401"
            check("warm cache (with a client key)", warm)

            run = Run(sims, gateway)
            phases = build_phases()
            if os.environ.get("LIVENESS_PHASES"):  # e.g. "g,all": only those (for profiling)
                wanted = os.environ["LIVENESS_PHASES"].split(",")
                phases = [phase for phase in phases if phase.key in wanted]
            probes = Probes(port)
            probes.start()
            time.sleep(1.0)  # a quiet second: the probes' baseline
            previous_end = None
            for phase in phases:
                print(f"  ... phase {phase.key}: {phase.title} ({PHASE_SECONDS:g} s)", flush=True)
                run.run(phase, previous_end)
                previous_end = phase.end
                if phase.gateway_died:
                    phase.exit_code = gateway.process.returncode
            for workers in run.worker_sets:
                workers.stop()

            cleared = time.time()
            settled_result = {}
            while time.time() < cleared + SETTLED_WITHIN and len(settled_result) < 2:
                for path, headers in (("/healthz", {}), ("/v1/today", AUTH)):
                    if path in settled_result:
                        continue
                    try:
                        status, _, body = call(port, path, headers=headers,
                                               timeout=max(0.1, cleared + SETTLED_WITHIN - time.time()))
                        if status == 200 and isinstance(body, dict):
                            settled_result[path] = time.time() - cleared
                    except Exception:  # noqa: BLE001 - asked again until the deadline
                        pass
                if len(settled_result) < 2:
                    time.sleep(0.05)

            probes.finish()
            for workers in run.worker_sets:
                for thread in workers.threads:
                    thread.join(WORKER_TIMEOUT + 10)

            print("per phase (longest gap and slowest answer: healthz / today):")
            for phase in phases:
                def judged(phase=phase):
                    line, reasons = phase_figures(phase, probes, run.worker_results, phases, run.cold_windows)
                    if reasons:
                        raise AssertionError(" and ".join(reasons) + f" — {line}")
                    return line
                check(f"phase {phase.key}: {phase.title}", judged)

            def settled():
                missing = [path for path in ("/healthz", "/v1/today") if path not in settled_result]
                assert not missing, f"{' and '.join(missing)} did not answer 200 within {SETTLED_WITHIN} s of the end"
                assert gateway.process.poll() is None, f"the gateway exited with {gateway.process.returncode}"
                status, _, body = call(port, "/readyz", timeout=5)
                times = ", ".join(f"{path} after {seconds * 1000:.0f} ms" for path, seconds in settled_result.items())
                return f"{times}; the gateway runs; /readyz {status} {(body or {}).get('status')}"
            check(f"faults cleared: /healthz and /v1/today answer 200 within {SETTLED_WITHIN:g} s", settled)

            summary(probes, run, phases)
        finally:
            if probes:
                probes.stop_event.set()
            if run:
                for workers in run.worker_sets:
                    workers.stop()
                run.clear()
    return checks.finish()


def summary(probes, run, phases):
    gaps = {}
    for kind in Probes.KINDS:
        points = probes.gaps(kind)
        gaps[kind] = max((b - a for a, b in zip(points, points[1:])), default=0.0)
    failed = sum(1 for r in probes.results if r[4] is not None)
    worst = max(phases, key=lambda p: max(longest_gap(probes.gaps(k), p.start, p.end)[0] for k in Probes.KINDS))
    late = max((lag for _, lag in probes.lateness), default=0.0)
    bad_workers = sum(1 for r in run.worker_results if r[4] is not None)
    print(f"summary: {len(probes.results)} probes over {probes.stopped - probes.started:.0f} s, {failed} failed; "
          f"longest gap healthz {gaps['healthz'] * 1000:.0f} ms, today {gaps['today'] * 1000:.0f} ms "
          f"(worst phase {worst.key}); probe rounds at most {late * 1000:.0f} ms late; "
          f"{len(run.worker_results)} worker requests, {bad_workers} bad; load average "
          f"{' '.join(f'{load:.1f}' for load in os.getloadavg())} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    sys.exit(main())
