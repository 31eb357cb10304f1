"""Shared by the Python tests (Tests/Browser, Tests/OpenAPI): `daygate demo` as a child
process on free ports, and a list of named checks that reports every failure and goes on."""
import os
import re
import signal
import subprocess
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "daygate")
ZONE = "Europe/Amsterdam"
# A simulator as the demo lists it: "  tickedify     http://127.0.0.1:PORT" (its name, its URL, nothing after).
SIMULATOR_LINE = re.compile(r"^ +([A-Za-z0-9][A-Za-z0-9_.-]*) +(http://\S+?)/?\s*$")


class Demo:
    """`daygate demo` as a child process; reads its printed URLs. `stop()` sends SIGINT."""

    def __init__(self, state_dir, port=0, extra_args=(), log_level="warning", stderr=subprocess.DEVNULL):
        self.process = subprocess.Popen(
            [BINARY, "demo", "--port", str(port), "--sim-port-base", "0", "--state-dir", state_dir,
             "--timezone", ZONE, "--log-level", log_level, *extra_args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True,
        )
        self.simulators = {}
        deadline = time.time() + 60
        listing = False  # in the block under "simulators (…):", one "  <name>  <url>" line each
        for line in self.process.stdout:
            match = re.search(r"dashboard\s+(http://\S+)/", line)
            if match:
                self.url = match.group(1)
            if line.startswith("simulators"):
                listing = True
            elif listing:
                match = SIMULATOR_LINE.match(line)
                if match:
                    self.simulators[match.group(1)] = match.group(2)
                else:
                    listing = False
            if line.startswith("Ctrl-C") or time.time() > deadline:
                break
        if not getattr(self, "url", None):
            self.stop()
            raise RuntimeError("the demo did not print its URL")
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self):
        interrupt(self.process)


def interrupt(process, timeout=15):
    """SIGINT, as Ctrl-C: the process shuts down gracefully, or is killed after `timeout` s."""
    if process and process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Checks:
    """Named checks: each runs, its failure is printed and counted, the next one runs."""

    def __init__(self, label):
        self.label = label
        self.results = []

    def check(self, name, function):
        try:
            detail = function()
            self.results.append((name, None))
            print(f"  ok   {name}" + (f" ({detail})" if detail else ""))
        except Exception as error:  # noqa: BLE001 - report every failure and go on
            self.results.append((name, error))
            print(f"  FAIL {name}: {error}")
            if not isinstance(error, AssertionError):
                traceback.print_exc()

    def finish(self):
        """Prints "<label>: N passed, N failed"; the exit status (1 on any failure or none run)."""
        failed = sum(1 for _, error in self.results if error)
        print(f"{self.label}: {len(self.results) - failed} passed, {failed} failed")
        return 1 if failed or not self.results else 0
