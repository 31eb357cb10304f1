#!/usr/bin/env python3
"""The systemd watchdog, with this script as systemd: a Unix datagram socket as NOTIFY_SOCKET
(the protocol is one datagram of KEY=value lines) and WATCHDOG_USEC set, as `Type=notify` with
`WatchdogSec=` does.

- `daygate demo` sends READY=1 once it serves, then WATCHDOG=1 from its heartbeat at least
  twice per WatchdogSec, and /healthz answers 200;
- started with the test hook `--debug-stall-after`, it blocks every event loop after a few
  seconds (as a lost wake-up or a runaway computation would): WATCHDOG=1 stops, /healthz stops
  answering; like systemd, the script then kills it (SIGABRT, as `WatchdogSignal=` does by
  default) and starts it again, and the new one is READY and healthy;
- SIGUSR1 logs what it is working on and waiting for (the heartbeat, connections, the cache's
  busy keys);
- on SIGINT it says STOPPING=1 before it exits.

    python3 Tests/Service/watchdog_test.py [path/to/daygate]
"""
import os
import signal
import socket
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from demo_process import Checks, Demo, interrupt  # noqa: E402

WATCHDOG_SECONDS = 3.0
STALL_AFTER = 8


class FakeSystemd:
    """NOTIFY_SOCKET: collects every datagram with the time it came."""

    def __init__(self, folder):
        self.path = os.path.join(folder, "notify.sock")
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(self.path)
        self.socket.settimeout(0.2)
        self.messages = []

    def pump(self, seconds):
        """Reads datagrams for `seconds`."""
        end = time.time() + seconds
        while time.time() < end:
            try:
                data = self.socket.recv(4096)
            except socket.timeout:
                continue
            self.messages.append((time.time(), data.decode()))

    def wait_for(self, state, timeout):
        end = time.time() + timeout
        while time.time() < end:
            if any(state in text.split("\n") for _, text in self.messages):
                return True
            self.pump(0.2)
        return False

    def times(self, state, since=0):
        return [at for at, text in self.messages if state in text.split("\n") and at >= since]

    def forget(self):
        self.messages = []


def healthz(demo, timeout=2):
    try:
        with urllib.request.urlopen(demo.url + "/healthz", timeout=timeout) as answer:
            return answer.status
    except Exception as error:  # a stalled gateway does not answer at all
        return type(error).__name__


def start(folder, systemd, extra=(), log=None):
    os.environ["NOTIFY_SOCKET"] = systemd.path
    os.environ["WATCHDOG_USEC"] = str(int(WATCHDOG_SECONDS * 1_000_000))
    try:
        if log:
            return Demo(os.path.join(folder, "state"), extra_args=extra, log_level="notice", stderr=log)
        return Demo(os.path.join(folder, "state"), extra_args=extra)
    finally:
        del os.environ["NOTIFY_SOCKET"], os.environ["WATCHDOG_USEC"]


def main():
    checks = Checks("watchdog")
    with tempfile.TemporaryDirectory() as folder:
        systemd = FakeSystemd(folder)
        demo = start(folder, systemd, ("--debug-stall-after", str(STALL_AFTER)))
        started = time.time()
        try:
            def ready_and_beating():
                assert systemd.wait_for("READY=1", 30), f"no READY=1: {systemd.messages}"
                systemd.pump(4)
                beats = systemd.times("WATCHDOG=1")
                assert len(beats) >= 3, f"{len(beats)} WATCHDOG=1 in 4 s: {systemd.messages}"
                gaps = [b - a for a, b in zip(beats, beats[1:])]
                assert max(gaps) < WATCHDOG_SECONDS / 2, f"gaps between WATCHDOG=1: {gaps}"
                assert healthz(demo) == 200
                print(f"  READY=1, then WATCHDOG=1 every {max(gaps):.2f} s at most")

            checks.check("READY=1, then WATCHDOG=1 from the heartbeat", ready_and_beating)

            def stall_is_seen():
                # The hook blocks every loop STALL_AFTER s after the start.
                systemd.pump(max(0.0, started + STALL_AFTER + 1 - time.time()))
                stalled_at = time.time()
                systemd.pump(WATCHDOG_SECONDS)
                late = systemd.times("WATCHDOG=1", since=stalled_at)
                assert late == [], f"WATCHDOG=1 sent while stalled: {late}"
                status = healthz(demo, timeout=2)
                assert status != 200, "/healthz answered 200 with every loop blocked"
                # As systemd on a watchdog timeout: SIGABRT, then SIGKILL.
                demo.process.send_signal(signal.SIGABRT)
                try:
                    demo.process.wait(timeout=10)
                except Exception:
                    demo.process.kill()
                    demo.process.wait(timeout=10)
                print(f"  no WATCHDOG=1 for {WATCHDOG_SECONDS} s after the stall; /healthz: {status}; killed")

            checks.check("a stalled gateway stops WATCHDOG=1 and /healthz", stall_is_seen)
        finally:
            interrupt(demo.process, timeout=5)

        systemd.forget()
        log_path = os.path.join(folder, "restarted.log")
        log = open(log_path, "w")
        again = start(folder, systemd, log=log)
        try:
            def restarted():
                assert systemd.wait_for("READY=1", 30), f"no READY=1 after the restart: {systemd.messages}"
                systemd.pump(2)
                assert systemd.times("WATCHDOG=1"), "no WATCHDOG=1 after the restart"
                assert healthz(again) == 200

            checks.check("restarted as systemd would: READY=1 and healthy again", restarted)

            def pending_work_on_sigusr1():
                again.process.send_signal(signal.SIGUSR1)
                deadline = time.time() + 10
                while time.time() < deadline:
                    with open(log_path) as written:
                        lines = [line for line in written if "SIGUSR1:" in line]
                    if any("cache keys busy" in line for line in lines):
                        break
                    time.sleep(0.2)
                text = "".join(lines)
                for part in ("heartbeat: last proof", "connections:", "compositions on their way", "cache keys busy"):
                    assert part in text, f"no {part!r} in the SIGUSR1 lines: {text!r}"

            checks.check("SIGUSR1 logs the work in flight", pending_work_on_sigusr1)

            def stopping():
                again.process.send_signal(signal.SIGINT)
                again.process.wait(timeout=20)
                systemd.pump(0.5)
                assert systemd.times("STOPPING=1"), f"no STOPPING=1: {systemd.messages[-3:]}"

            checks.check("SIGINT: STOPPING=1 before the exit", stopping)
        finally:
            interrupt(again.process, timeout=5)
            log.close()
    sys.exit(checks.finish())


if __name__ == "__main__":
    main()
