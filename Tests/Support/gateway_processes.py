"""Shared by the Python tests that run the gateway as separate processes (Tests/Durability,
Tests/Resilience): `daygate simulate` on free ports with the config it writes, `daygate serve`
against it, and a small HTTP helper. Every child dies with the test (PR_SET_PDEATHSIG)."""
import contextlib
import http.client
import json
import os
import shutil
import tempfile
import random
import signal
import socket
import subprocess
import threading
import time

from demo_process import BINARY, ROOT, ZONE, interrupt

# Ports checked free above a port base: more than there are simulators (`daygate simulate`
# prints each one it started; the set comes from its catalog, not from here).
PORT_SPAN = 16


def die_with_parent():
    """Children get SIGKILL if this test is killed (Linux), so nothing outlives it."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ports_free(base, count):
    for port in range(base, base + count):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                return False
    return True


def call(port, path, method="GET", body=None, headers=None, timeout=10):
    """(status, headers, parsed JSON or None)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = json.dumps(body).encode() if body is not None else None
        sent = {"Content-Type": "application/json"} if data is not None else {}
        connection.request(method, path, body=data, headers={**sent, **(headers or {})})
        response = connection.getresponse()
        text = response.read()
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        return response.status, {k.lower(): v for k, v in response.getheaders()}, parsed
    finally:
        connection.close()


NO_CACHE = {"Cache-Control": "no-cache"}


class Simulators:
    """`daygate simulate` on free consecutive ports (it takes no port 0), every simulator it
    starts (`<name> simulator on <url>` lines, until `Ctrl-C`)."""

    def __init__(self, work, state_dir):
        self.config = os.path.join(work, "daygate.yaml")
        self.process = None
        self.ports = {}
        for _ in range(8):
            base = random.randrange(20000, 32000)  # below Linux's ephemeral range
            if not ports_free(base, PORT_SPAN):
                continue
            log = open(os.path.join(work, "simulate.log"), "w")
            process = subprocess.Popen(
                [BINARY, "simulate", "--port-base", str(base), "--write-config", self.config,
                 "--state-dir", state_dir, "--timezone", ZONE, "--log-level", "warning"],
                cwd=work, stdout=subprocess.PIPE, stderr=log, text=True, preexec_fn=die_with_parent,
            )
            ports = {}
            for line in process.stdout:
                parts = line.split()
                if len(parts) == 4 and parts[1:3] == ["simulator", "on"]:
                    ports[parts[0]] = int(parts[3].rsplit(":", 1)[1])
                if line.startswith("Ctrl-C"):
                    break
            if process.poll() is None and ports and os.path.exists(self.config):
                self.process, self.ports = process, ports
                threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
                return
            process.kill()
            process.wait()
        raise RuntimeError("could not start `daygate simulate` on free ports")

    def call(self, name, path, method="GET", body=None):
        status, _, parsed = call(self.ports[name], path, method, body)
        assert status == 200, f"{name} {method} {path} answered {status}"
        return parsed

    def auth(self):
        return self.call("fitiq", "/_sim/auth")

    def fault_all(self, fault):
        for name in self.ports:
            self.call(name, "/_sim/faults", "POST", fault)

    def stop(self):
        interrupt(self.process, timeout=10)


class Gateway:
    """`daygate serve` on the shared state folder; `prefix` goes before the command (e.g.
    `prlimit --nofile=1024`)."""

    def __init__(self, config, state_dir, log_path, prefix=()):
        self.config, self.state_dir, self.log_path, self.prefix = config, state_dir, log_path, list(prefix)
        self.process = None
        self.port = None

    def start(self, timeout=30):
        for _ in range(3):
            self.port = free_port()
            log = open(self.log_path, "a")
            self.process = subprocess.Popen(
                [*self.prefix, BINARY, "serve", "--config", self.config, "--listen", f"127.0.0.1:{self.port}",
                 "--state-dir", self.state_dir, "--log-level", "warning"],
                cwd=ROOT, stdout=log, stderr=log, preexec_fn=die_with_parent,
            )
            log.close()
            deadline = time.time() + timeout
            while time.time() < deadline and self.process.poll() is None:
                try:
                    status, _, body = call(self.port, "/readyz", timeout=2)
                    self.wait_for_start_refresh(deadline)
                    return status, body
                except OSError:
                    time.sleep(0.05)
            if self.process.poll() is None:
                raise AssertionError(f"no answer on /readyz within {timeout} s")
        raise AssertionError(f"`daygate serve` exited with {self.process.returncode}; see {self.log_path}")

    def wait_for_start_refresh(self, deadline):
        """Until the fetch a start makes (`refresh_on_start`) has ended, as
        `daygate_start_refresh_running 0` in /metrics says: what a test does to the backends
        right after a start must not meet that fetch half-way (a backend taken down under it
        counts its failures, and its token refreshes count in the backend's totals)."""
        while time.time() < deadline:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
            try:
                connection.request("GET", "/metrics")
                response = connection.getresponse()
                text = response.read().decode(errors="replace")
            finally:
                connection.close()
            if response.status != 200:
                return  # a config with client keys: /metrics needs one, and this test did not wait
            if "daygate_start_refresh_running 0" in text:
                return
            time.sleep(0.05)
        raise AssertionError("the fetch a start makes (refresh_on_start) did not end in time")

    def stop(self):
        """SIGINT, as Ctrl-C: the gateway shuts down gracefully."""
        interrupt(self.process)

    def kill9(self):
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        if self.process:
            self.process.wait()
            return self.process.returncode

    def tail(self, lines=15):
        try:
            with open(self.log_path) as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""


@contextlib.contextmanager
def simulators_and_gateway(name, gateway_prefix=()):
    """A work folder, `daygate simulate` in it and a `daygate serve` (not started yet: the
    config may be changed first) on its state folder; all stopped and removed afterwards."""
    work = tempfile.mkdtemp(prefix=f"daygate-{name}-")
    state_dir = os.path.join(work, "state")
    sims = gateway = None
    try:
        sims = Simulators(work, state_dir)
        gateway = Gateway(sims.config, state_dir, os.path.join(work, "serve.log"), prefix=gateway_prefix)
        yield sims, gateway
    finally:
        if gateway:
            gateway.stop()
        if sims:
            sims.stop()
        shutil.rmtree(work, ignore_errors=True)
