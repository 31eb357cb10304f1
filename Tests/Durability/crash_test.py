#!/usr/bin/env python3
"""kill -9 the gateway while it writes cache entries and vault tokens.

Starts `daygate simulate` (five simulators on five free consecutive ports, a config written
with `--write-config`) for the whole run and `daygate serve` on a temporary state folder as a
child process. Warms the cache (/v1/today, /v1/events of four days, /v1/nutrition) and keeps
the data of those answers. Then, CYCLES times:

- heavy writes: LOAD_THREADS threads ask /v1/events?date=… with `Cache-Control: no-cache`
  for ever-new days (each thread its own days, so no request joins another's fetch); every
  answer that says `refreshed` was written to SQLite before it was sent, so the test keeps
  (day, time sent, events) as an acknowledged write. Meanwhile (cycles in ROTATING) FitIQ's
  access tokens are expired (`POST /_sim/tokens/expire`) and /v1/nutrition is asked with
  no-cache, so the gateway refreshes and writes the rotated single-use refresh token to its
  vault; in AIMED_AT_ROTATION cycles the SIGKILL comes 0–80 ms after that request, otherwise
  at a random moment of the load;
- after the kill (the process is gone): `PRAGMA integrity_check` is "ok"; every acknowledged
  cache write is in `cache_entry` (fetched no earlier than it was asked for, the same events);
  the vault's FitIQ refresh token was not rolled back (a thread reads it every 2 ms while the
  gateway runs: the value after the kill is the last one seen or a newer one) and is at least
  as new as the last acknowledged rotation; `daygate cache stats` opens the file; a FitIQ
  refresh lease the killed gateway held stays where it is (in the cycles aimed at a rotation one
  is planted, as the killed process would have left it, when the kill missed that window);
- restart on the same state folder: /readyz is 200; with every simulator down
  (`/_sim/faults {"down":"reset"}`) /v1/today, /v1/events of the warmed days and
  /v1/nutrition answer from the cache (sections ok or stale, the recorded data);
- no rotated token lost: FitIQ's tokens are expired again and /v1/nutrition (no-cache) must be
  ok through `POST /api/v1/auth/refresh` with the token from the vault and WITHOUT a password
  login (`GET /_sim/auth` of the FitIQ simulator, counted from just after the kill so that the
  restart's own fetch (`refresh_on_start`) counts too: logins unchanged, refreshes grew,
  nothing rejected). The simulator issues each token once (logins + refreshes), so "issued minus seen
  in the vault" says whether the kill fell between FitIQ rotating a token and the gateway
  committing it (the answer still on its way or waiting for the write): no client can keep a
  token it never got to write, and then (only then) FitIQ refuses the reused one and one
  password login is expected — the line says so.

The gateway allows 10 FitIQ token renewals a minute (kept in the vault); the test spends at
most RENEWAL_BUDGET of them in any minute. Prints one line per check and
"durability: N passed, N failed"; exits non-zero on any failure. DURABILITY_SEED=N repeats
a run's random moments.

    python3 Tests/Durability/crash_test.py [path/to/daygate]
"""
import datetime
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import zoneinfo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from demo_process import BINARY, ROOT, ZONE, Checks  # noqa: E402
from gateway_processes import NO_CACHE, Gateway, Simulators, call  # noqa: E402

CYCLES = 5
LOAD_THREADS = 12
DAYS_AROUND = 400                # heavy writes ask for today ± this many days
ROTATING = {1, 2, 4}             # cycles that rotate FitIQ's refresh token under the load
AIMED_AT_ROTATION = {2, 4}       # of those, the ones whose kill is aimed at the rotation in flight
AIM_SECONDS = 0.08               # the aimed kill comes 0 to this many seconds after the request
RENEWAL_BUDGET = 9               # FitIQ renewals the test causes in any 61 s (the gateway allows 10/60 s)
TODAY_DATA_KEYS = ["date", "plan", "events", "diensten", "nutrition", "knowledge"]
# FitIQ's tokens are kept per account (the vault's profile column is the account's scope,
# `account:<fingerprint of the server and e-mail>`); the demo has one FitIQ account.
FITIQ_REFRESH = ("account:%", "fitiq", "refresh_token")

checks = Checks("durability")
check = checks.check
seed = int(os.environ.get("DURABILITY_SEED", random.randrange(1 << 30)))
rng = random.Random(seed)


# ---------------------------------------------------------------- the state database

class VaultWatch:
    """Reads the FitIQ refresh token from the vault every 2 ms (read-only), remembering every
    value committed, in order."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.seen = []          # [(value, updated_at)] in the order first seen
        self.values = set()
        self.stop_event = threading.Event()
        self.connection = None
        self.thread = threading.Thread(target=self.run, daemon=True)

    def read(self):
        if self.connection is None:
            self.connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=1, check_same_thread=False)
        return self.connection.execute(
            "SELECT value, updated_at FROM credential WHERE profile LIKE ? AND backend = ? AND name = ?", FITIQ_REFRESH
        ).fetchone()

    def poll(self):
        """One read; returns (the last value seen before it, the row now)."""
        with self.lock:
            try:
                row = self.read()
            except sqlite3.Error:
                self.close_connection()
                return (self.seen[-1] if self.seen else None), None
            before = self.seen[-1] if self.seen else None
            if row is not None and row[0] not in self.values:
                self.values.add(row[0])
                self.seen.append(row)
            return before, row

    def close_connection(self):
        if self.connection is not None:
            try:
                self.connection.close()
            except sqlite3.Error:
                pass
            self.connection = None

    def run(self):
        while not self.stop_event.is_set():
            self.poll()
            time.sleep(0.002)

    def stop(self):
        self.stop_event.set()
        if self.thread.is_alive():
            self.thread.join(timeout=2)
        with self.lock:
            self.close_connection()


def process_identity(pid):
    """The gateway's process as its vault leases name it (`ProcessIdentity`): the boot id, the
    PID namespace, the id and the start (the 22nd field of /proc/<pid>/stat); None off Linux."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip()
        namespace = "".join(c for c in os.readlink(f"/proc/{pid}/ns/pid") if c.isdigit())
        with open(f"/proc/{pid}/stat") as f:
            start = f.read().rsplit(")", 1)[1].split()[19]
    except OSError:
        return None
    return f"{boot}:{namespace}:{pid}:{start}"


def events_key_pattern(day):
    return f"default|eightalls.events|from={day}&to={day}|%"


# ---------------------------------------------------------------- load

class Acknowledged:
    """Answers that prove a write: a `refreshed` section was stored before it was sent."""

    def __init__(self):
        self.lock = threading.Lock()
        self.events = {}        # day -> (time sent, events)
        self.nutrition = None   # (time sent, time the tokens were expired before it, nutrition)
        self.count = 0
        self.errors = 0


def refreshed(body, section):
    info = (body or {}).get("sections", {}).get(section, {})
    return info.get("status") == "ok" and info.get("cache") == "refreshed"


def events_load(port, days, cursor, acked, stop):
    """Asks for days[cursor[0]], days[cursor[0] + 1], … (the cursor carries over to the next
    cycle, so every cycle writes new entries until the days wrap around)."""
    while not stop.is_set():
        day = days[cursor[0] % len(days)]
        cursor[0] += 1
        sent = time.time()
        try:
            status, headers, body = call(port, f"/v1/events?date={day}", headers=NO_CACHE, timeout=5)
        except OSError:
            with acked.lock:
                acked.errors += 1
            time.sleep(0.01)
            continue
        if status == 200 and refreshed(body, "events") and "collapsed" not in headers.get("cache-status", ""):
            with acked.lock:
                # 8alls' own events (the subscribed calendars' join the list from their own section).
                own = [event for event in body["events"] if event.get("calendar") is None]
                acked.events[day] = (sent, own)
                acked.count += 1


def rotate(gateway, sims, acked, renewals, result):
    """Expires FitIQ's access tokens, then asks /v1/nutrition with no-cache: the gateway gets a
    401, refreshes, and writes the rotated refresh token before it answers."""
    expired_at = time.time()
    renewals.append(expired_at)
    sims.call("fitiq", "/_sim/tokens/expire", "POST")
    sent = time.time()
    result["sent"] = sent
    try:
        status, _, body = call(gateway.port, "/v1/nutrition", headers=NO_CACHE, timeout=10)
    except OSError as error:
        result["error"] = error
        return
    result["status"], result["body"] = status, body
    if status == 200 and refreshed(body, "nutrition"):
        with acked.lock:
            acked.nutrition = (sent, expired_at, body["nutrition"])


class Renewals(list):
    """Times at which the test made the gateway renew FitIQ's token (its limit is 10/min)."""

    def recent(self):
        now = time.time()
        return [t for t in self if now - t < 61]

    def wait_for_room(self, keep_free=0):
        recent = self.recent()
        if len(recent) + keep_free < RENEWAL_BUDGET:
            return 0
        wait = recent[len(recent) + keep_free - RENEWAL_BUDGET] + 61.5 - time.time()
        time.sleep(max(0, wait))
        return wait


# ---------------------------------------------------------------- the test

def today_data(body):
    return {key: body.get(key) for key in TODAY_DATA_KEYS}


def main():
    work = tempfile.mkdtemp(prefix="daygate-durability-")
    state_dir = os.path.join(work, "state")
    db_path = os.path.join(state_dir, "cache.sqlite")
    sims = gateway = watch = None
    started = time.time()
    print(f"durability: seed {seed} (DURABILITY_SEED), {CYCLES} kill -9 cycles, state in {state_dir}")
    try:
        sims = Simulators(work, state_dir)
        gateway = Gateway(sims.config, state_dir, os.path.join(work, "serve.log"))
        renewals = Renewals()
        acked = Acknowledged()
        today = datetime.datetime.now(zoneinfo.ZoneInfo(ZONE)).date()
        warm_days = [str(today + datetime.timedelta(days=d)) for d in (-1, 0, 1, 2)]
        recorded = {}

        def warm_up():
            status, body = gateway.start()
            assert status == 200, f"/readyz answered {status}: {body}"
            renewals.append(time.time())  # the first FitIQ call logs in
            status, _, body = call(gateway.port, "/v1/today")
            assert status == 200, f"/v1/today answered {status}"
            for section, info in body["sections"].items():
                assert info["status"] == "ok", f"{section}: {info}"
            recorded["today"] = today_data(body)
            for day in warm_days:
                status, _, body = call(gateway.port, f"/v1/events?date={day}")
                assert status == 200 and body["sections"]["events"]["status"] == "ok", (day, status, body)
                recorded[day] = body["events"]
            status, _, body = call(gateway.port, "/v1/nutrition")
            assert status == 200 and body["sections"]["nutrition"]["status"] == "ok", body
            recorded["nutrition"] = body["nutrition"]
            assert recorded["nutrition"] == recorded["today"]["nutrition"]
            auth = sims.auth()
            assert auth["logins"] == 1, auth
            return (f"simulators on {min(sims.ports.values())}–{max(sims.ports.values())}, gateway on {gateway.port}; "
                    f"{len(recorded['today']['events'])} events today, {recorded['nutrition']['calories']} kcal")
        check("warm-up: simulate --write-config, serve, /v1/today, /v1/events ×4, /v1/nutrition", warm_up)
        if checks.results[-1][1]:
            return

        watch = VaultWatch(db_path)
        watch.thread.start()
        time.sleep(0.05)
        watch.poll()
        auth = sims.auth()
        gap = auth["logins"] + auth["refreshes"] - len(watch.values)

        all_days = [str(today + datetime.timedelta(days=d)) for d in range(-DAYS_AROUND, DAYS_AROUND + 1)]
        per_thread = [all_days[i::LOAD_THREADS] for i in range(LOAD_THREADS)]
        for days in per_thread:
            rng.shuffle(days)
        cursors = [[0] for _ in per_thread]

        for cycle in range(1, CYCLES + 1):
            label = f"cycle {cycle}"
            # ---------------- heavy writes, then kill -9
            stop = threading.Event()
            before_count, before_errors = acked.count, acked.errors
            threads = [threading.Thread(target=events_load, args=(gateway.port, days, cursor, acked, stop), daemon=True)
                       for days, cursor in zip(per_thread, cursors)]
            for thread in threads:
                thread.start()
            time.sleep(rng.uniform(0.4, 1.2))
            rotation = {}
            aimed = cycle in AIMED_AT_ROTATION
            rotating = None
            if cycle in ROTATING and len(renewals.recent()) + 2 <= RENEWAL_BUDGET:  # one left for the check
                rotating = threading.Thread(target=rotate, args=(gateway, sims, acked, renewals, rotation), daemon=True)
                rotating.start()
                if aimed:
                    while "sent" not in rotation and rotating.is_alive():
                        time.sleep(0.0005)
                    time.sleep(rng.uniform(0, AIM_SECONDS))
                else:
                    rotating.join(timeout=10)
                    time.sleep(rng.uniform(0.1, 1.5))
            else:
                time.sleep(rng.uniform(0.5, 2.0))
            killed_identity = process_identity(gateway.process.pid)
            killed_at = time.time()
            code = gateway.kill9()
            stop.set()
            for thread in threads:
                thread.join(timeout=10)
            if rotating:
                rotating.join(timeout=10)
            time.sleep(0.5)  # requests the dead gateway had sent reach the simulators
            writes = acked.count - before_count
            if rotating is None:
                rotation_note = "no token rotation" + (" (renewal budget)" if cycle in ROTATING else "")
            elif "body" in rotation:
                rotation_note = f"token rotation answered {rotation['status']} before the kill"
            elif "sent" in rotation:
                rotation_note = f"killed {1000 * (killed_at - rotation['sent']):.0f} ms into a token rotation"
            else:
                rotation_note = "killed between expiring the tokens and asking for /v1/nutrition"

            def loaded():
                assert code == -signal.SIGKILL, f"the gateway exited with {code}, not by SIGKILL"
                assert writes > 0, "no acknowledged cache write during the load"
                return f"{writes} acknowledged cache writes, {acked.errors - before_errors} refused at the kill; {rotation_note}"
            check(f"{label}: SIGKILL during heavy writes", loaded)

            # ---------------- the file after the crash
            def integrity():
                connection = sqlite3.connect(db_path, timeout=5)
                try:
                    result = [row[0] for row in connection.execute("PRAGMA integrity_check")]
                    assert result == ["ok"], f"PRAGMA integrity_check: {result[:10]}"
                    mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
                    entries = connection.execute("SELECT COUNT(*) FROM cache_entry").fetchone()[0]
                    return f"journal_mode {mode}, {entries} cache entries"
                finally:
                    connection.close()
            check(f"{label}: PRAGMA integrity_check is ok", integrity)

            def acknowledged_writes_kept():
                connection = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
                try:
                    with acked.lock:
                        events = dict(acked.events)
                        nutrition = acked.nutrition
                    lost, older, different = [], [], []
                    for day, (sent, data) in events.items():
                        row = connection.execute(
                            "SELECT fetched_at, body FROM cache_entry WHERE operation = 'eightalls.events' AND key LIKE ?",
                            (events_key_pattern(day),),
                        ).fetchone()
                        if row is None:
                            lost.append(day)
                        elif row[0] < sent:
                            older.append(f"{day} (fetched {sent - row[0]:.3f} s before it was asked for)")
                        elif json.loads(row[1]) != data:
                            different.append(day)
                    assert not lost, f"{len(lost)} of {len(events)} acknowledged entries are gone: {sorted(lost)[:8]}"
                    assert not older, f"{len(older)} entries are older than their acknowledged write: {older[:5]}"
                    assert not different, f"{len(different)} entries hold other events than answered: {different[:5]}"
                    if nutrition:
                        row = connection.execute(
                            "SELECT fetched_at, body FROM cache_entry WHERE operation = 'fitiq.nutrition' AND key LIKE ?",
                            (f"default|fitiq.nutrition|date={today}|%",),
                        ).fetchone()
                        assert row is not None, "the acknowledged nutrition entry is gone"
                        assert row[0] >= nutrition[0], f"the nutrition entry is {nutrition[0] - row[0]:.3f} s older than its acknowledged write"
                        assert json.loads(row[1]) == nutrition[2], "the nutrition entry differs from the answer"
                    return f"{len(events)} event days" + (", nutrition" if nutrition else "")
                finally:
                    connection.close()
            check(f"{label}: every acknowledged cache write is in the file", acknowledged_writes_kept)

            in_flight = {"value": None, "auth": None}

            def left_lease():
                """A refresh lease the killed gateway held (it died between taking and giving it
                back): the restarted gateway must take it over at once, its holder being gone. In
                the cycles aimed at a rotation, when the kill did not fall in that window, the
                lease is left as the killed gateway would have left it, so that every run checks
                the take-over (CI once met it: the restarted gateway waited out the lease)."""
                connection = sqlite3.connect(db_path, timeout=5)
                try:
                    row = connection.execute(
                        "SELECT value FROM credential WHERE profile LIKE ? AND backend = ? AND name = ?",
                        (FITIQ_REFRESH[0], "fitiq", "refresh_lease")).fetchone()
                    if row:
                        return "; the killed process's refresh lease is left in the vault"
                    if cycle not in AIMED_AT_ROTATION or killed_identity is None:
                        return ""
                    profile = connection.execute(
                        "SELECT profile FROM credential WHERE profile LIKE ? AND backend = ? AND name = ?",
                        FITIQ_REFRESH).fetchone()[0]
                    # The vault's lease row: "<boot>:<pid namespace>:<pid>:<start>/<call> <end>".
                    connection.execute(
                        "INSERT INTO credential (profile, backend, name, value, updated_at) VALUES (?, 'fitiq', 'refresh_lease', ?, ?)",
                        (profile, f"{killed_identity}/killed-call {time.time() + 60}", time.time()))
                    connection.commit()
                    return "; a refresh lease of the killed process (held 60 s more) is left in the vault"
                finally:
                    connection.close()

            def vault_after_kill():
                last_seen, row = watch.poll()
                assert row is not None, "no FitIQ refresh_token in the vault"
                value, updated_at = row
                if last_seen is not None and value != last_seen[0]:
                    assert value not in [v for v, _ in watch.seen[:-1]], \
                        "the vault holds an older refresh token than one it had committed (rolled back)"
                    assert updated_at >= last_seen[1], "the vault's refresh token is older than one it had committed"
                with acked.lock:
                    nutrition = acked.nutrition
                if nutrition:
                    assert updated_at >= nutrition[1], (
                        f"the vault's refresh token (written {updated_at:.3f}) predates the last acknowledged "
                        f"rotation (tokens expired at {nutrition[1]:.3f}): an acknowledged rotation was lost")
                auth = sims.auth()
                issued = auth["logins"] + auth["refreshes"]
                new_gap = issued - len(watch.values)
                assert new_gap - gap in (0, 1), (
                    f"FitIQ issued {issued} tokens, the vault showed {len(watch.values)}: "
                    f"{new_gap - gap} more missing than before this kill")
                in_flight["value"] = new_gap - gap == 1
                in_flight["auth"] = auth
                if in_flight["value"]:
                    return "the newest token FitIQ issued never reached the vault: the kill fell inside that refresh call"
                return f"holds the newest of {issued} tokens FitIQ issued" + (
                    "; last acknowledged rotation kept" if nutrition else "") + left_lease()
            check(f"{label}: the vault's refresh token is the last one committed", vault_after_kill)

            def cache_stats():
                out = subprocess.run([BINARY, "cache", "stats", "--config", sims.config], cwd=ROOT,
                                     capture_output=True, text=True, timeout=30)
                assert out.returncode == 0, f"exit {out.returncode}: {out.stderr.strip()[:300]}"
                return out.stdout.splitlines()[0].split(": ", 1)[-1] if out.stdout else ""
            check(f"{label}: `daygate cache stats` reads the file", cache_stats)

            # ---------------- restart
            def restart():
                status, body = gateway.start()
                assert status == 200, f"/readyz answered {status}: {body}"
                # The start's own fetch (`refresh_on_start`, which `start` waited for) renews
                # FitIQ's token when the kill left it expired; that counts in the gateway's
                # renewal limit as the test's own do. One renewal is one refresh, or a refused
                # refresh and the password login after it.
                renewed = ""
                if in_flight["auth"] is not None:
                    now = sims.auth()
                    grew = {key: now[key] - in_flight["auth"][key] for key in now}
                    attempts = (grew["refreshes"] + grew["rejected_refreshes"] + grew["logins"]
                                - min(grew["rejected_refreshes"], grew["logins"]))
                    renewals.extend([time.time()] * attempts)
                    if attempts:
                        renewed = f"; its start renewed FitIQ's token ({attempts}×)"
                return f"port {gateway.port}{renewed}"
            check(f"{label}: restart on the same state folder, /readyz 200", restart)
            if checks.results[-1][1]:
                print(gateway.tail())
                break

            def served_from_cache():
                sims.fault_all({"down": "reset"})
                try:
                    status, _, body = call(gateway.port, "/v1/today")
                    assert status == 200, f"/v1/today answered {status}"
                    bad = {name: info for name, info in body["sections"].items() if info.get("status") not in ("ok", "stale")}
                    assert not bad, f"sections without cached data: {bad}"
                    got = today_data(body)
                    differ = [key for key in TODAY_DATA_KEYS if got[key] != recorded["today"][key]]
                    assert not differ, f"/v1/today differs from the warmed answer in {differ}"
                    statuses = {name: info["status"] for name, info in body["sections"].items()}
                    for day in warm_days:
                        status, _, body = call(gateway.port, f"/v1/events?date={day}")
                        info = body["sections"]["events"]
                        assert status == 200 and info["status"] in ("ok", "stale"), f"/v1/events?date={day}: {status} {info}"
                        assert body["events"] == recorded[day], f"/v1/events?date={day} differs from the warmed answer"
                    status, _, body = call(gateway.port, "/v1/nutrition")
                    info = body["sections"]["nutrition"]
                    assert status == 200 and info["status"] in ("ok", "stale"), f"/v1/nutrition: {status} {info}"
                    assert body["nutrition"] == recorded["nutrition"], "/v1/nutrition differs from the warmed answer"
                    return " ".join(f"{name}={state}" for name, state in sorted(statuses.items()))
                finally:
                    sims.fault_all({})
            check(f"{label}: with every backend down the warmed data is served from the cache", served_from_cache)

            def token_survived():
                waited = renewals.wait_for_room()
                # FitIQ's totals are counted from the kill, not from this check: the restart's own
                # fetch (`refresh_on_start`, which the restart waited for) may already have renewed
                # the token — and, after a kill inside the refresh call, been refused and logged in.
                before = in_flight["auth"]
                assert before is not None, "FitIQ's totals after the kill were not read (the vault check failed)"
                _, row_before = watch.poll()
                result = {}
                rotate(gateway, sims, acked, renewals, result)
                after = sims.auth()
                _, row_after = watch.poll()
                assert "body" in result, f"/v1/nutrition failed: {result.get('error')}"
                info = result["body"]["sections"]["nutrition"]
                assert result["status"] == 200 and info["status"] == "ok" and info["cache"] == "refreshed", \
                    f"/v1/nutrition after the restart: {result['status']} {info}"
                assert result["body"]["nutrition"] == recorded["nutrition"]
                logins = after["logins"] - before["logins"]
                refreshes = after["refreshes"] - before["refreshes"]
                rejected = after["rejected_refreshes"] - before["rejected_refreshes"]
                assert row_after is not None and (row_before is None or row_after[0] != row_before[0]), \
                    "the vault's refresh token did not change"
                note = f" (waited {waited:.0f} s for the renewal limit)" if waited > 0 else ""
                if in_flight["value"]:
                    assert rejected == 1 and logins == 1, (
                        f"since a kill inside the refresh call: logins +{logins}, refreshes +{refreshes}, rejected +{rejected}")
                    return "kill inside the refresh call: FitIQ refused the reused token once, one password login" + note
                assert rejected == 0, f"FitIQ refused the vault's refresh token ({rejected} rejected): a rotated token was lost"
                assert logins == 0, f"the gateway logged in with the password ({logins}×): the rotated refresh token was lost"
                assert refreshes >= 1, f"no refresh ({after})"
                return f"refreshed with the vault's token, no login since the kill; FitIQ totals {after}" + note
            check(f"{label}: no rotated refresh token lost (refresh after the restart, no password login)", token_survived)
            watch.poll()
            auth = sims.auth()
            gap = auth["logins"] + auth["refreshes"] - len(watch.values)
    finally:
        if watch:
            watch.stop()
        if gateway:
            gateway.kill9()
        if sims:
            sims.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"durability: ran {time.time() - started:.0f} s")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # noqa: BLE001 - a setup failure is a failed check
        checks.results.append(("setup", error))
        print(f"  FAIL setup: {error}")
    sys.exit(checks.finish())
