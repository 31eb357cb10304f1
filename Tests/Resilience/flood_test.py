#!/usr/bin/env python3
"""A flood of half-sent connections against a gateway with a low open-file limit.

`daygate simulate` runs the backends in their own process; `daygate serve` runs under
`prlimit --nofile=NOFILE` (soft and hard: the gateway cannot raise it) with
`limits: {header_timeout: HEADER_TIMEOUT}`. After the cache is warm:

- FLOOD connections are opened as fast as possible, each sending only
  `GET /v1/today HTTP/1.1` and a Host line, never the blank line that ends the head — more
  than the gateway has descriptors for, as in the report that made the gateway trap in
  libdispatch and die;
- meanwhile real clients ask for `/healthz` and `/v1/today` (cached) on new connections,
  every 250 ms, each waiting up to 60 s;
- the gateway process is checked every 100 ms: alive, and how many descriptors it holds.

Checks: the process lives throughout and never holds more descriptors than its limit
allows; every real request is answered (200, JSON); the server closes every flood
connection (a 408 or a plain close) without the flooder letting go; once the last one is
closed, `/healthz` and `/v1/today` are answered within a second; then 200 sequential cached
requests all succeed, `/metrics` counts the closed connections, and `/readyz` is ready.

    python3 Tests/Resilience/flood_test.py [path/to/daygate]
"""
import http.client
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from demo_process import Checks  # noqa: E402
from gateway_processes import call, simulators_and_gateway  # noqa: E402

NOFILE = 1024
FLOOD = 1400              # more connections than descriptors
HEADER_TIMEOUT = "3s"
REAL_EVERY = 0.25         # seconds between real requests during the flood
REAL_TIMEOUT = 60         # how long a real request may wait (it may queue behind the flood)
SETTLED_WITHIN = 1.0      # seconds for an answer once the flood is gone

checks = Checks("flood")
check = checks.check


def descriptors(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


class Watch(threading.Thread):
    """Samples the gateway every 100 ms: alive, and its open descriptors."""

    def __init__(self, process):
        super().__init__(daemon=True)
        self.process, self.stop_event = process, threading.Event()
        self.died_at, self.most = None, 0

    def run(self):
        while not self.stop_event.is_set():
            if self.process.poll() is not None:
                self.died_at = time.time()
                return
            self.most = max(self.most, descriptors(self.process.pid) or 0)
            time.sleep(0.1)


class Flood:
    """FLOOD connections that send half a request and then wait for the server to close them."""

    def __init__(self, port):
        self.port, self.sockets, self.refused = port, [], 0
        self.closed_by_server, self.answers = 0, {}

    def open(self):
        for _ in range(FLOOD):
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=2)
                s.sendall(b"GET /v1/today HTTP/1.1\r\nHost: localhost\r\n")
                s.setblocking(False)
                self.sockets.append(s)
            except OSError:
                self.refused += 1   # the accept queue is full too: the kernel drops the SYN

    def poll(self):
        """Counts the connections the server has closed; returns how many are still open."""
        still = []
        for s in self.sockets:
            try:
                data = s.recv(4096)
            except BlockingIOError:
                still.append(s)
                continue
            except OSError:
                data = b""
            if data:
                status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/1.1 ") else "?"
                self.answers[status] = self.answers.get(status, 0) + 1
                try:
                    while s.recv(4096):
                        pass
                except (BlockingIOError, OSError):
                    pass
            self.closed_by_server += 1
            s.close()
        self.sockets = still
        return len(still)

    def close(self):
        for s in self.sockets:
            s.close()
        self.sockets = []


class RealClients(threading.Thread):
    """Asks /healthz and /v1/today on new connections every REAL_EVERY s until stopped."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.stop_event, self.results, self.lock = port, threading.Event(), [], threading.Lock()
        self.workers = []

    def ask(self, path):
        started = time.time()
        try:
            status, _, body = call(self.port, path, timeout=REAL_TIMEOUT)
            outcome = (path, status, isinstance(body, dict), time.time() - started, None)
        except Exception as error:  # noqa: BLE001 - recorded and reported
            outcome = (path, None, False, time.time() - started, repr(error))
        with self.lock:
            self.results.append(outcome)

    def run(self):
        while not self.stop_event.is_set():
            for path in ("/healthz", "/v1/today"):
                worker = threading.Thread(target=self.ask, args=(path,), daemon=True)
                worker.start()
                self.workers.append(worker)
            time.sleep(REAL_EVERY)

    def finish(self):
        self.stop_event.set()
        self.join()
        for worker in self.workers:
            worker.join(REAL_TIMEOUT + 5)


def main():
    with simulators_and_gateway("flood", gateway_prefix=["prlimit", f"--nofile={NOFILE}"]) as (sims, gateway):
        with open(sims.config, "a") as config:
            config.write(f"\nlimits:\n  header_timeout: {HEADER_TIMEOUT}\n")
        flood = None
        try:
            status, _ = gateway.start()
            assert status == 200, f"/readyz answered {status}"
            port, pid = gateway.port, gateway.process.pid

            def warm():
                status, _, body = call(port, "/v1/today")
                assert status == 200 and body["complete"], f"/v1/today answered {status}"
                status, _, body = call(port, "/v1/today")
                assert body["sections"]["events"]["cache"] == "hit", "the second /v1/today was not a cache hit"
                limit = open(f"/proc/{pid}/limits").read()
                assert f"{NOFILE}" in [line.split()[3] for line in limit.splitlines() if line.startswith("Max open files")]
                return f"the gateway's open-file limit is {NOFILE}"
            check("warm cache under a low open-file limit", warm)

            watch = Watch(gateway.process)
            watch.start()
            flood = Flood(port)
            real = RealClients(port)
            real.start()
            started = time.time()
            flood.open()
            opened = time.time() - started

            def flood_is_shed():
                deadline = time.time() + 120
                while flood.poll() and time.time() < deadline:
                    time.sleep(0.05)
                assert not flood.sockets, f"{len(flood.sockets)} flood connections still open after 120 s"
                return (f"{FLOOD - flood.refused} connections opened in {opened:.1f} s ({flood.refused} refused by the "
                        f"kernel), all closed by the server within {time.time() - started:.1f} s; answers {flood.answers}")
            check("the server closes every half-sent connection", flood_is_shed)
            gone = time.time()

            def settled():
                timings = []
                for path in ("/healthz", "/v1/today", "/healthz", "/v1/today"):
                    asked = time.time()
                    status, _, body = call(port, path, timeout=10)
                    timings.append(time.time() - asked)
                    assert status == 200 and isinstance(body, dict), f"{path} answered {status}"
                assert max(timings) <= SETTLED_WITHIN, f"answers took {[round(t, 3) for t in timings]} s"
                return f"{time.time() - gone:.2f} s after the flood was gone, slowest {max(timings) * 1000:.0f} ms"
            check(f"once the flood is gone, answers come within {SETTLED_WITHIN} s", settled)

            real.finish()
            watch.stop_event.set()
            watch.join()

            def lived():
                assert watch.died_at is None, f"the gateway died {watch.died_at - started:.1f} s into the flood; see {gateway.log_path}"
                assert gateway.process.poll() is None, "the gateway is not running"
                assert watch.most < NOFILE, f"the gateway held {watch.most} descriptors (limit {NOFILE})"
                return f"at most {watch.most} of {NOFILE} descriptors in use"
            check("the gateway lives and keeps descriptors to spare", lived)

            def every_real_request_answered():
                failed = [r for r in real.results if r[1] != 200 or not r[2]]
                assert real.results, "no real request was made"
                assert not failed, f"{len(failed)} of {len(real.results)} failed, e.g. {failed[:3]}"
                slowest = max(r[3] for r in real.results)
                return f"{len(real.results)} requests during the flood, all 200 JSON, slowest {slowest:.1f} s"
            check("every real request during the flood is answered", every_real_request_answered)

            def normal_afterwards():
                for number in range(200):
                    status, _, body = call(port, "/v1/today" if number % 2 else "/healthz", timeout=5)
                    assert status == 200, f"request {number} answered {status}"
                status, _, body = call(port, "/readyz")
                assert status == 200 and body["status"] == "ready", f"/readyz answered {status} {body}"
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/metrics")
                text = connection.getresponse().read().decode()
                connection.close()
                closed = {line.split('"')[1]: float(line.split()[-1]) for line in text.splitlines()
                          if line.startswith("daygate_http_connections_closed_total{")}
                assert sum(closed.values()) >= FLOOD - flood.refused, f"closed connections counted: {closed}"
                return f"200 requests ok, /readyz ready, closed connections counted {json.dumps(closed)}"
            check("everything is normal after the flood", normal_afterwards)
        finally:
            if flood:
                flood.close()
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
