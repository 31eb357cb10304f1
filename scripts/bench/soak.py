#!/usr/bin/env python3
"""daygate soak test: `make soak` (or `python3 scripts/bench/soak.py --binary .build/release/daygate`).

Ten minutes at a steady 500 requests a second over a mix of routes, against the
simulators (`daygate simulate`) and `daygate serve`, while one or two simulators flap (every
20 s: `{"down":"reset"}`, then healthy again). The one-hour long form is
`make soak SOAK_MINUTES=60`. Checks:

- no error outside the flapping backends' sections: every answer that is not 2xx, and every
  section that is not `ok`, must belong to a flapping backend (a client-side failure such as a
  reset or timeout of the gateway's own connection counts against it);
- the gateway's RSS, sampled every 10 s, stays within +-10 % after the warm-up;
- the gateway's RSS at the end (read as the load ends) is within 2 MB (MiB: 2048 KiB) of its
  value right after the warm-up (the first sample at or after it);
- the achieved request rate (reported; it must be within 2 % of the target for a PASS).

The load is open-loop: a pacer thread schedules request i at t0 + i/rate and a pool of worker
threads (keep-alive connections) sends them; latency is measured from the scheduled time, so a
stall shows up instead of slowing the load down.

Environment (all optional):
  SOAK_MINUTES=10            how long
  SOAK_RATE=500              requests per second
  SOAK_FLAP=eightalls,prsnl  simulators that flap
  SOAK_FLAP_SECONDS=20       toggle period (the second flapping backend is shifted by half of it)
  SOAK_LATENCY_MS=10         simulator latency throughout
  SOAK_WARMUP_SECONDS        RSS warm-up excluded from the flatness check (default: min(60, a quarter of the run))
  SOAK_WORKERS=64            worker threads
  SOAK_STRICT=1              exit 1 when a check fails (default: report only, exit 0)
  SOAK_KEEP=1 / SOAK_NO_WRITE=1   keep the work directory / do not touch BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import datetime as _dt
import http.client
import json
import os
import queue
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    BACKENDS, Gateway, Processes, RSSSampler, Simulators, env_float, env_int, fmt_mb, fmt_ms, git_revision,
    load_average, log, machine_info, machine_table, now_utc, other_work, percentile, raise_fd_limit, shown_path, write_section,
)

RSS_TOLERANCE = 0.10
RATE_TOLERANCE = 0.02
RSS_DRIFT_KB = 2048  # the end's RSS within 2 MiB of the RSS right after the warm-up


def cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def route_mix() -> list[tuple[int, str, callable]]:
    """(weight, label, () -> (path, headers)). Dates around today, so keys expire and refetch."""
    today = _dt.date.today()

    def fixed(path, headers=None):
        return lambda: (path, headers or {})

    def near_day(route):
        def make():
            day = today + _dt.timedelta(days=random.randint(-7, 7))
            return f"{route}?date={day.isoformat()}", {}
        return make

    return [
        (24, "/v1/today", fixed("/v1/today")),
        (14, "/v1/summary", fixed("/v1/summary")),
        (8, "/v1/events", fixed("/v1/events")),
        (6, "/v1/plan", fixed("/v1/plan")),
        (5, "/v1/tasks?list=inbox", fixed("/v1/tasks?list=inbox")),
        (3, "/v1/tasks?list=acties", fixed("/v1/tasks?list=acties")),
        (5, "/v1/tasks/counts", fixed("/v1/tasks/counts")),
        (6, "/v1/diensten", fixed("/v1/diensten")),
        (6, "/v1/nutrition", fixed("/v1/nutrition")),
        (4, "/v1/fitness", fixed("/v1/fitness")),
        (5, "/v1/knowledge/recent", fixed("/v1/knowledge/recent?limit=5")),
        (8, "/v1/today?date=±7d", near_day("/v1/today")),
        (4, "/v1/events?date=±7d", near_day("/v1/events")),
        (2, "/v1/today no-cache", fixed("/v1/today", {"Cache-Control": "no-cache"})),
    ]


class Stats:
    def __init__(self, flapping: set[str]):
        self.lock = threading.Lock()
        self.flapping = flapping
        self.latency_ms: list[float] = []       # from the scheduled time
        self.service_ms: list[float] = []       # from the send
        self.statuses: dict[int, int] = {}
        self.per_second: dict[int, int] = {}
        self.flap_sections: dict[str, int] = {}  # "backend status" -> count
        self.flap_responses = 0                  # non-2xx answers caused only by flapping backends
        self.unexpected: dict[str, int] = {}
        self.examples: list[str] = []
        self.routes: dict[str, int] = {}
        self.max_lag_ms = 0.0
        self.sent = 0

    def bad(self, reason: str, example: str) -> None:
        self.unexpected[reason] = self.unexpected.get(reason, 0) + 1
        if len(self.examples) < 12:
            self.examples.append(example)

    def record(self, label, scheduled, sent, done, t0, status, body, error):
        with self.lock:
            self.sent += 1
            self.routes[label] = self.routes.get(label, 0) + 1
            self.max_lag_ms = max(self.max_lag_ms, (sent - scheduled) * 1000)
            if error is not None:
                self.statuses[0] = self.statuses.get(0, 0) + 1
                self.bad("client: " + type(error).__name__, f"{label}: {error!r}")
                return
            self.latency_ms.append((done - scheduled) * 1000)
            self.service_ms.append((done - sent) * 1000)
            second = int(done - t0)
            self.per_second[second] = self.per_second.get(second, 0) + 1
            self.statuses[status] = self.statuses.get(status, 0) + 1
            try:
                answer = json.loads(body) if body else {}
            except ValueError:
                self.bad(f"HTTP {status} not JSON", f"{label}: {body[:120]!r}")
                return
            sections = answer.get("sections") if isinstance(answer, dict) else None
            failing = []
            for name, info in (sections or {}).items():
                if not isinstance(info, dict):
                    continue
                if info.get("status") != "ok" or info.get("error"):
                    failing.append((name, info.get("backend", "?"), info.get("status"), (info.get("error") or {}).get("code")))
            outside = [f for f in failing if f[1] not in self.flapping]
            for _name, backend, sstatus, _code in failing:
                if backend in self.flapping:
                    key = f"{backend} {sstatus}"
                    self.flap_sections[key] = self.flap_sections.get(key, 0) + 1
            for name, backend, sstatus, code in outside:
                self.bad(f"section {name} ({backend}) {sstatus}", f"{label}: HTTP {status}, {name} {sstatus} {code}")
            if not 200 <= status < 300:
                if failing and not outside:
                    self.flap_responses += 1
                elif not outside:
                    code = (answer.get("error") or {}).get("code") if isinstance(answer, dict) else None
                    self.bad(f"HTTP {status}", f"{label}: HTTP {status} {code or body[:120]!r}")


class Load:
    """Open-loop load at ``rate`` requests a second for ``seconds``."""

    def __init__(self, port: int, rate: float, seconds: float, workers: int, stats: Stats):
        self.port, self.rate, self.seconds, self.stats = port, rate, seconds, stats
        self.total = int(rate * seconds)
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.mix = route_mix()
        self.weights = [w for w, _l, _m in self.mix]
        self.workers = [threading.Thread(target=self.work, daemon=True) for _ in range(workers)]
        self.t0 = 0.0

    def run(self) -> float:
        for worker in self.workers:
            worker.start()
        self.t0 = time.monotonic()
        issued = 0
        while issued < self.total:
            due = min(self.total, int((time.monotonic() - self.t0) * self.rate) + 1)
            while issued < due:
                _w, label, make = random.choices(self.mix, weights=self.weights)[0]
                self.queue.put((self.t0 + issued / self.rate, label, make))
                issued += 1
            time.sleep(0.002)
        for _ in self.workers:
            self.queue.put(None)
        for worker in self.workers:
            worker.join(timeout=60)
        return time.monotonic() - self.t0

    def work(self) -> None:
        conn = None
        while True:
            job = self.queue.get()
            if job is None:
                break
            scheduled, label, make = job
            delay = scheduled - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            path, headers = make()
            headers = {"Host": f"127.0.0.1:{self.port}", **headers}
            sent = time.monotonic()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                body = response.read()
                done = time.monotonic()
                self.stats.record(label, scheduled, sent, done, self.t0, response.status, body, None)
                if response.will_close:
                    conn.close()
                    conn = None
            except Exception as error:  # connection reset, timeout, protocol error
                self.stats.record(label, scheduled, sent, time.monotonic(), self.t0, 0, b"", error)
                if conn is not None:
                    conn.close()
                conn = None
        if conn is not None:
            conn.close()


class Flapper(threading.Thread):
    def __init__(self, sims: Simulators, backends: list[str], period: float, latency: int):
        super().__init__(daemon=True)
        self.sims, self.backends, self.period, self.latency = sims, backends, period, latency
        self.events: list[tuple[float, str, str]] = []
        self.errors: list[str] = []
        self._halt = threading.Event()

    def run(self) -> None:
        start = time.monotonic()
        # Backend k first goes down at period + k * period / n, then toggles every period.
        n = max(1, len(self.backends))
        schedule = {b: self.period + k * self.period / n for k, b in enumerate(self.backends)}
        down = {b: False for b in self.backends}
        while not self._halt.is_set():
            now = time.monotonic() - start
            for backend in self.backends:
                if now >= schedule[backend]:
                    down[backend] = not down[backend]
                    faults = {"latency_ms": self.latency}
                    if down[backend]:
                        faults["down"] = "reset"
                    try:
                        self.sims.set_faults(backend, **faults)
                        self.events.append((now, backend, "down" if down[backend] else "healthy"))
                    except Exception as error:
                        self.errors.append(f"{backend}: {error!r}")
                    schedule[backend] += self.period
            self._halt.wait(0.1)

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the daygate binary (release build)")
    args = parser.parse_args()

    minutes = env_float("SOAK_MINUTES", 10)
    seconds = minutes * 60
    rate = env_float("SOAK_RATE", 500)
    flap = [b.strip() for b in os.environ.get("SOAK_FLAP", "eightalls,prsnl").split(",") if b.strip()]
    unknown = [b for b in flap if b not in BACKENDS]
    if unknown:
        print(f"SOAK_FLAP: unknown backends {unknown}; choose from {BACKENDS}", file=sys.stderr)
        return 2
    period = env_float("SOAK_FLAP_SECONDS", 20)
    latency = env_int("SOAK_LATENCY_MS", 10)
    warmup = env_float("SOAK_WARMUP_SECONDS", min(60.0, seconds / 4))
    workers = env_int("SOAK_WORKERS", 64)
    raise_fd_limit()

    source = Path(args.binary).resolve()
    if not source.exists():
        print(f"no binary at {source}: build it with swift build -c release --product daygate", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="daygate-soak-"))
    binary = workdir / "daygate"
    shutil.copy2(source, binary)
    info = machine_info()
    meta = {"date": now_utc(), "revision": git_revision(), "load_before": load_average(), "other_work": other_work()}
    log(f"work directory {workdir}; load average {meta['load_before']}; other work: {meta['other_work']}")

    stats = Stats(set(flap))
    sims = Simulators(binary, workdir)
    gateway = None
    flapper = sampler = None
    try:
        sims.start()
        sims.set_latency({b: latency for b in BACKENDS})
        gateway = Gateway(binary, sims.config, workdir / "state", workdir / "gateway.log")
        gateway.start()
        for _w, _label, make in route_mix():  # every route once, so the run starts warm
            path, headers = make()
            gateway.get(path, headers=headers)
        rss_start = gateway.rss_kb()
        cpu_start = cpu_seconds(gateway.pid)
        sampler = RSSSampler(gateway.pid, 10.0)
        sampler.start()
        flapper = Flapper(sims, flap, period, latency)
        flapper.start()
        log(f"soak: {rate:g} req/s for {minutes:g} min, flapping {', '.join(flap) or 'nothing'} every {period:g} s")
        load = Load(gateway.port, rate, seconds, workers, stats)
        progress_stop = threading.Event()

        def progress():
            while not progress_stop.wait(30):
                with stats.lock:
                    done, bad = stats.sent, sum(stats.unexpected.values())
                log(f"  {done} requests, {bad} unexpected errors, RSS {fmt_mb(gateway.rss_kb())}, load {load_average()}")

        threading.Thread(target=progress, daemon=True).start()
        elapsed = load.run()
        progress_stop.set()
        flapper.stop()
        samples = sampler.stop()
        cpu_end = cpu_seconds(gateway.pid)
        rss_end = gateway.rss_kb()
        gateway_alive = gateway.proc.poll() is None
    finally:
        if flapper is not None:
            flapper.stop()
        if sampler is not None:
            sampler.stop()
        if gateway is not None:
            gateway.stop()
        sims.stop()
        Processes.stop_all()
    meta["load_after"] = load_average()

    # RSS: every sample after the warm-up within +-10 % of the first one after it.
    after = [(t, v) for t, v in samples if t >= warmup]
    reference = after[0][1] if after else None
    deviation = max((abs(v - reference) / reference for _t, v in after), default=0.0) if reference else None
    rss_ok = reference is not None and deviation is not None and deviation <= RSS_TOLERANCE
    # RSS at the end against right after the warm-up: the reading as the load ended (the last
    # sample when that reading failed) minus the first sample at or after the warm-up.
    warmed_at = after[0][0] if after else None
    end_kb = rss_end if rss_end is not None else (samples[-1][1] if samples else None)
    drift = end_kb - reference if end_kb is not None and reference is not None else None
    drift_ok = drift is not None and abs(drift) <= RSS_DRIFT_KB
    achieved = stats.sent / elapsed if elapsed else 0
    full_seconds = [stats.per_second.get(s, 0) for s in range(1, int(elapsed) - 1)]
    rate_ok = achieved >= rate * (1 - RATE_TOLERANCE)
    errors_ok = not stats.unexpected and gateway_alive
    cpu = ((cpu_end - cpu_start) / elapsed * 100) if cpu_end is not None and cpu_start is not None and elapsed else None

    def verdict(ok):
        return "**PASS**" if ok else "**FAIL**"

    short = minutes < 10
    lines = [
        "## `make soak` — latest result", "",
        f"Run {meta['date']} on revision {meta['revision']}. "
        + (f"**A shortened run: {minutes:g} minutes** (`SOAK_MINUTES={minutes:g}`; the full soak is 10 minutes). " if short else "")
        + f"Load average before: {meta['load_before']}, after: {meta['load_after']}. "
        f"Other CPU-heavy work on the machine when it started: {meta['other_work']}.", "",
        "| check | result | target | |", "|---|---|---|---|",
        f"| request rate | {achieved:.1f} req/s achieved ({stats.sent} requests in {elapsed:.0f} s; per second "
        f"min {min(full_seconds, default=0)}, max {max(full_seconds, default=0)}) | {rate:g} req/s steady (−{RATE_TOLERANCE:.0%}) | {verdict(rate_ok)} |",
        f"| errors outside the flapping sections | {sum(stats.unexpected.values())}"
        + ("" if gateway_alive else " — the gateway exited") + f" | 0 | {verdict(errors_ok)} |",
        f"| RSS after {warmup:.0f} s warm-up | {fmt_mb(reference)} → {fmt_mb(after[-1][1] if after else None)}, "
        f"max deviation {deviation * 100:.1f} % over {len(after)} samples | flat within ±{RSS_TOLERANCE:.0%} | {verdict(rss_ok)} |"
        if deviation is not None else "| RSS | no samples after warm-up | flat within ±10 % | **FAIL** |",
        f"| RSS at the end against right after the warm-up | {fmt_mb(reference)} (at {warmed_at:.0f} s) → "
        f"{fmt_mb(end_kb)} at the end: {drift / 1024:+.1f} MB ({drift:+,} KiB) "
        f"| within {RSS_DRIFT_KB // 1024} MB (MiB: {RSS_DRIFT_KB:,} KiB) | {verdict(drift_ok)} |"
        if drift is not None else f"| RSS at the end against right after the warm-up | no sample after the warm-up "
        f"or at the end | within {RSS_DRIFT_KB // 1024} MB | **FAIL** |",
        "",
        "### Commands", "", "```sh",
        f"make soak{'' if not short else f' SOAK_MINUTES={minutes:g}'}",
        "# = swift build -c release --product daygate",
        f"#   python3 scripts/bench/soak.py --binary {shown_path(source)}",
        f"# settings: SOAK_MINUTES={minutes:g} SOAK_RATE={rate:g} SOAK_FLAP={','.join(flap)} SOAK_FLAP_SECONDS={period:g} "
        f"SOAK_LATENCY_MS={latency} SOAK_WORKERS={workers} SOAK_WARMUP_SECONDS={warmup:g}",
        "# gateway: daygate serve --config daygate.yaml --listen 127.0.0.1:PORT --state-dir state --log-level warning",
        "```", "",
        "### Machine", "", machine_table(info, {"load average before": meta["load_before"]}), "",
        "### Details", "",
        f"Load: open-loop, request i scheduled at t0 + i/{rate:g} s, sent by {workers} threads on keep-alive connections "
        f"(Python `http.client`); latency from the scheduled time p50 {fmt_ms(percentile(stats.latency_ms, 50))}, "
        f"p99 {fmt_ms(percentile(stats.latency_ms, 99))}, max {fmt_ms(max(stats.latency_ms, default=None))} "
        f"(service time p50 {fmt_ms(percentile(stats.service_ms, 50))}, p99 {fmt_ms(percentile(stats.service_ms, 99))}); "
        f"largest send lag behind schedule {fmt_ms(stats.max_lag_ms)}. Gateway CPU: "
        + (f"{cpu:.0f} % of one core on average." if cpu is not None else "?"), "",
        f"Flapping: {', '.join(flap) or 'none'} toggled between `{{\"down\":\"reset\"}}` and healthy every {period:g} s "
        f"({len(flapper.events) if flapper else 0} toggles"
        + (f"; control errors: {'; '.join(flapper.errors[:3])}" if flapper and flapper.errors else "")
        + f"); all simulators at {latency} ms latency.", "",
        "Answers: " + ", ".join(f"{n}× HTTP {s}" if s else f"{n}× no answer" for s, n in sorted(stats.statuses.items()))
        + f". Non-2xx answers caused only by flapping backends: {stats.flap_responses}. "
        "Sections not `ok` in flapping backends (expected): "
        + (", ".join(f"{k} {v}" for k, v in sorted(stats.flap_sections.items())) or "none") + ".", "",
    ]
    if stats.unexpected:
        lines += ["Errors outside the flapping sections: "
                  + ", ".join(f"{k}: {v}" for k, v in sorted(stats.unexpected.items())) + ".", "",
                  "Examples: " + "; ".join(f"`{e}`" for e in stats.examples[:8]), ""]
    lines += [
        "Route mix: " + ", ".join(f"`{label}` {n}" for label, n in sorted(stats.routes.items(), key=lambda kv: -kv[1])), "",
        f"RSS every 10 s (MB; warm-up {warmup:.0f} s; {fmt_mb(rss_start)} before the load, {fmt_mb(rss_end)} at the end): "
        + " ".join(f"{v / 1024:.1f}" for _t, v in samples), "",
    ]
    text = "\n".join(lines)
    print(text)
    if os.environ.get("SOAK_NO_WRITE") != "1":
        write_section("soak", text)
        log("written to BENCHMARKS.md")
    if os.environ.get("SOAK_KEEP") == "1":
        log(f"logs and configs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    if os.environ.get("SOAK_STRICT") == "1" and not (rss_ok and drift_ok and errors_ok and rate_ok):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
