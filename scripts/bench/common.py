"""Shared pieces of the daygate benchmark (bench.py) and soak test (soak.py).

Python 3 standard library only. Every process started here (simulators, gateway, nginx, wrk)
runs in its own process group and is registered, so that ``Processes.stop_all`` (called from
``finally``, ``atexit`` and on SIGINT/SIGTERM) ends it and everything it started.
"""

from __future__ import annotations

import atexit
import datetime as _dt
import http.client
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def today_sections(path: Path = REPO / "routes" / "today.yaml") -> list[tuple[str, str, str | None]]:
    """(section, backend, merge_into) of each section of the route file, in the file's order,
    read without a YAML parser (the bench uses Python's standard library only): a section is a
    two-space key under `sections:`, its backend the part of its `operation:` before the dot."""
    sections: list[tuple[str, str, str | None]] = []
    inside = False
    name = backend = merged = None

    def close():
        if name and backend:
            sections.append((name, backend, merged))

    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            inside = line.startswith("sections:")
            continue
        if not inside:
            continue
        key = re.match(r"^  ([A-Za-z0-9_]+):\s*$", line)
        if key:
            close()
            name, backend, merged = key.group(1), None, None
            continue
        operation = re.match(r"^\s+operation:\s*([A-Za-z0-9_]+)\.", line)
        if operation:
            backend = operation.group(1)
        merge = re.match(r"^\s+merge_into:\s*([A-Za-z0-9_]+)", line)
        if merge:
            merged = merge.group(1)
    close()
    return sections


# Which /v1/today section each backend feeds, and so the backends the bench measures, from
# routes/today.yaml: every backend with a section of its own there (its first). A backend whose
# sections all join another's list (`merge_into`: the subscribed calendars' events join 8alls')
# is measured with that list, not on its own.
SECTION_OF: dict[str, str] = {}
for _section, _backend, _merged in today_sections():
    if _merged is None:
        SECTION_OF.setdefault(_backend, _section)
BACKENDS = list(SECTION_OF)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise SystemExit(f"{name} must be an integer, got {value!r}")


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        raise SystemExit(f"{name} must be a number, got {value!r}")


def env_duration(name: str, default: str) -> tuple[str, float]:
    """A wrk-style duration (``10s``, ``1m``, ``30``) as (text for wrk, seconds)."""
    text = os.environ.get(name, "").strip() or default
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([smh]?)", text)
    if not match:
        raise SystemExit(f"{name} must be a duration such as 10s or 1m, got {text!r}")
    number = float(match.group(1))
    seconds = number * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]
    return f"{int(seconds)}s", seconds


def raise_fd_limit(wanted: int = 65536) -> int:
    """Raises RLIMIT_NOFILE (inherited by the gateway, nginx and wrk) as far as allowed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# MARK: - Processes


class Processes:
    """Every child started by the scripts, each in its own process group."""

    _lock = threading.Lock()
    _children: list[tuple[str, subprocess.Popen]] = []
    _installed = False

    @classmethod
    def install_handlers(cls) -> None:
        if cls._installed:
            return
        cls._installed = True
        atexit.register(cls.stop_all)

        def on_signal(signum, _frame):
            log(f"signal {signum}: stopping everything started by this run")
            cls.stop_all()
            raise SystemExit(128 + signum)

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGHUP, on_signal)

    @classmethod
    def start(cls, name: str, argv: list[str], *, log_path: Path | None = None, cwd: Path = REPO,
              stdout=None, env: dict | None = None) -> subprocess.Popen:
        cls.install_handlers()
        out = stdout
        err = None
        if log_path is not None:
            handle = open(log_path, "ab")
            out = out if out is not None else handle
            err = handle
        proc = subprocess.Popen(
            argv, cwd=str(cwd), stdout=out, stderr=err if err is not None else subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True, env=env,
        )
        with cls._lock:
            cls._children.append((name, proc))
        return proc

    @classmethod
    def stop(cls, proc: subprocess.Popen, grace: float = 8.0, sig: int = signal.SIGTERM) -> None:
        """Ends ``proc``'s process group: ``sig``, then SIGKILL after ``grace`` seconds."""
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        # Whatever is left in the group (also after the leader exited), and the leader itself.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        with cls._lock:
            cls._children = [(n, p) for (n, p) in cls._children if p is not proc]

    @classmethod
    def stop_all(cls) -> None:
        with cls._lock:
            children = list(reversed(cls._children))
        for _name, proc in children:
            cls.stop(proc, grace=5.0)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port_base(count: int = 16, start: int = 20000, end: int = 60000) -> int:
    """A port N with N..N+count-1 all free (for `daygate simulate --port-base`: room for the
    simulator catalog's simulators, one port each)."""
    import random

    for _ in range(200):
        base = random.randrange(start, end - count)
        if all(port_is_free(base + i) for i in range(count)):
            return base
    raise RuntimeError("no run of free ports found for the simulators")


def wait_for_http(host: str, port: int, path: str, timeout: float = 60.0, proc: subprocess.Popen | None = None,
                  what: str = "server") -> None:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what} exited with status {proc.returncode} before answering")
        try:
            status, _headers, _body = http_get(host, port, path, timeout=2.0)
            if status < 500:
                return
            last = f"status {status}"
        except OSError as error:
            last = str(error)
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not answer {path} within {timeout:.0f} s ({last})")


# MARK: - HTTP helpers


def http_request(host: str, port: int, method: str, path: str, body: bytes | None = None,
                 headers: dict | None = None, timeout: float = 30.0) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        all_headers = {"Host": f"{host}:{port}"}
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        conn.request(method, path, body=body, headers=all_headers)
        response = conn.getresponse()
        data = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        conn.close()


def http_get(host: str, port: int, path: str, headers: dict | None = None, timeout: float = 30.0):
    return http_request(host, port, "GET", path, headers=headers, timeout=timeout)


# MARK: - Simulators and gateway


class Simulators:
    """`daygate simulate` on consecutive free ports (one per simulator of its catalog), with its
    written config; each simulator's port is read from the line it prints
    (`tickedify simulator on http://127.0.0.1:PORT`)."""

    def __init__(self, binary: Path, workdir: Path):
        self.binary = binary
        self.workdir = workdir
        self.base = free_port_base()
        self.config = workdir / "daygate.yaml"
        self.proc: subprocess.Popen | None = None
        self.ports: dict[str, int] = {}

    def port(self, backend: str) -> int:
        return self.ports[backend]

    def start(self) -> None:
        argv = [str(self.binary), "simulate", "--port-base", str(self.base), "--write-config", str(self.config),
                "--state-dir", str(self.workdir / "state"), "--log-level", "warning"]
        self.command = argv
        self.proc = Processes.start("simulators", argv, log_path=self.workdir / "simulators.log")
        deadline = time.monotonic() + 60
        while not self.config.exists():
            if self.proc.poll() is not None:
                raise RuntimeError(f"daygate simulate exited ({self.proc.returncode}); see {self.workdir / 'simulators.log'}")
            if time.monotonic() > deadline:
                raise RuntimeError("daygate simulate wrote no config within 60 s")
            time.sleep(0.1)
        log_text = (self.workdir / "simulators.log").read_text(encoding="utf-8", errors="replace")
        self.ports = {match.group(1): int(match.group(2))
                      for match in re.finditer(r"^(\S+) simulator on http://[^:/\s]+:(\d+)", log_text, re.MULTILINE)}
        missing = [backend for backend in BACKENDS if backend not in self.ports]
        if missing:
            raise RuntimeError(f"daygate simulate started no simulator for {', '.join(missing)} (a section of "
                               f"routes/today.yaml): add it to the simulator catalog; see {self.workdir / 'simulators.log'}")
        for backend in BACKENDS:
            wait_for_http("127.0.0.1", self.port(backend), "/_sim/stats", proc=self.proc, what=f"{backend} simulator")

    def stop(self) -> None:
        if self.proc is not None:
            Processes.stop(self.proc)
            self.proc = None

    def control(self, backend: str, method: str, path: str, payload=None) -> dict:
        body = json.dumps(payload).encode() if payload is not None else None
        status, _headers, data = http_request("127.0.0.1", self.port(backend), method, path, body=body, timeout=10)
        if status >= 300:
            raise RuntimeError(f"{backend} {method} {path}: {status} {data[:200]!r}")
        return json.loads(data) if data else {}

    def set_faults(self, backend: str, **faults) -> None:
        self.control(backend, "POST", "/_sim/faults", faults)

    def set_latency(self, latencies: dict[str, int]) -> None:
        for backend, ms in latencies.items():
            self.set_faults(backend, latency_ms=int(ms))

    def clear_faults(self) -> None:
        for backend in BACKENDS:
            self.set_faults(backend)

    def reset_login_limits(self) -> None:
        """Tickedify allows 5 logins per 15 minutes per address (its simulator too), and each
        gateway a run starts on a fresh state folder logs in once (the fetch a start makes,
        `refresh_on_start`, is the first to need it): a row must not meet the limit the rows
        before it used up. A household's gateway keeps its session across restarts."""
        self.control("tickedify", "POST", "/_sim/ratelimit/reset", {})

    def reset_stats(self) -> None:
        for backend in BACKENDS:
            self.control(backend, "POST", "/_sim/stats/reset", {})

    def stats(self) -> dict[str, dict[str, int]]:
        return {backend: self.control(backend, "GET", "/_sim/stats").get("calls", {}) for backend in BACKENDS}

    def service_medians(self) -> dict[str, dict[str, float]]:
        """Each simulator's own median time per call (`/_sim/stats` `median_ms`: from the request
        read to the answer handed back, its latency included), per backend and path."""
        return {backend: self.control(backend, "GET", "/_sim/stats").get("median_ms", {}) for backend in BACKENDS}


class Gateway:
    """`daygate serve` on a free port with its own state directory."""

    def __init__(self, binary: Path, config: Path, state_dir: Path, log_path: Path, log_level: str = "warning"):
        self.binary = binary
        self.config = config
        self.state_dir = state_dir
        self.log_path = log_path
        self.log_level = log_level
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.command: list[str] = []

    def start(self) -> None:
        self._exec()
        wait_for_http("127.0.0.1", self.port, "/readyz", proc=self.proc, what="daygate serve")

    def start_timed(self, poll: float = 0.002, timeout: float = 30.0) -> float:
        """Starts the gateway and asks `/readyz` every `poll` seconds (a new connection each
        time) until it answers 200: the milliseconds from exec to that answer."""
        started = time.monotonic()
        self._exec()
        request = b"GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daygate serve exited with {self.proc.returncode} before it was ready")
            if time.monotonic() - started > timeout:
                raise RuntimeError(f"no /readyz 200 within {timeout:.0f} s")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                    s.sendall(request)
                    answer = s.recv(64)
                if answer.startswith(b"HTTP/1.1 200"):
                    return (time.monotonic() - started) * 1000
            except OSError:
                pass
            time.sleep(poll)

    def _exec(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.command = [str(self.binary), "serve", "--config", str(self.config), "--listen", f"127.0.0.1:{self.port}",
                        "--state-dir", str(self.state_dir), "--log-level", self.log_level]
        self.proc = Processes.start("gateway", self.command, log_path=self.log_path)

    def stop(self) -> None:
        if self.proc is not None:
            Processes.stop(self.proc)
            self.proc = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def rss_kb(self) -> int | None:
        return rss_kb(self.pid)

    def memory_kb(self) -> tuple[int | None, int | None]:
        """(VmRSS, RssAnon) in KiB, from one read of /proc/PID/status."""
        return memory_kb(self.pid)

    def get(self, path: str, headers: dict | None = None, timeout: float = 30.0):
        return http_get("127.0.0.1", self.port, path, headers=headers, timeout=timeout)


def status_kb(pid: int, *fields: str) -> dict[str, int]:
    """The named KiB fields of /proc/PID/status (``VmRSS``, ``RssAnon``, …), from one read;
    a field the kernel does not show, or a process that is gone, is left out."""
    values: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            text = handle.read()
    except OSError:
        return values
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in fields:
            try:
                values[name] = int(rest.split()[0])
            except (IndexError, ValueError):
                pass
    return values


def rss_kb(pid: int) -> int | None:
    return status_kb(pid, "VmRSS").get("VmRSS")


def memory_kb(pid: int) -> tuple[int | None, int | None]:
    """(VmRSS, RssAnon) in KiB: the process's resident memory, and the part of it that is its
    own anonymous memory (heap, stacks; not the binary and libraries mapped from files)."""
    values = status_kb(pid, "VmRSS", "RssAnon")
    return values.get("VmRSS"), values.get("RssAnon")


class RSSSampler(threading.Thread):
    """Samples a process every ``interval`` seconds until stopped: VmRSS in ``samples`` and
    RssAnon in ``anon_samples``, both (seconds since start, KiB) and from the same read of
    /proc/PID/status."""

    def __init__(self, pid: int, interval: float):
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.samples: list[tuple[float, int]] = []
        self.anon_samples: list[tuple[float, int]] = []
        self._halt = threading.Event()

    def run(self) -> None:
        start = time.monotonic()
        while not self._halt.is_set():
            rss, anon = memory_kb(self.pid)
            now = time.monotonic() - start
            if rss is not None:
                self.samples.append((now, rss))
            if anon is not None:
                self.anon_samples.append((now, anon))
            self._halt.wait(self.interval)

    def stop(self) -> list[tuple[float, int]]:
        self._halt.set()
        self.join(timeout=5)
        return self.samples

    @property
    def peak_kb(self) -> int:
        return max((v for _t, v in self.samples), default=0)

    @property
    def peak_anon_kb(self) -> int:
        return max((v for _t, v in self.anon_samples), default=0)


# MARK: - wrk


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0, "h": 3600000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text.strip())
    if not match:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_wrk(output: str) -> dict:
    """Requests/sec, latency percentiles (ms), request count, errors and non-2xx from wrk --latency."""
    result: dict = {"raw": output}
    match = re.search(r"Requests/sec:\s+([\d.]+)", output)
    result["rps"] = float(match.group(1)) if match else None
    for pct in ("50", "75", "90", "99"):
        match = re.search(rf"^\s+{pct}(?:\.0+)?%\s+(\S+)", output, re.M)
        result[f"p{pct}"] = _ms(match.group(1)) if match else None
    match = re.search(r"(\d+) requests in ([\d.]+\w+),\s+([\d.]+\w+) read", output)
    result["requests"] = int(match.group(1)) if match else None
    match = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    result["non2xx"] = int(match.group(1)) if match else 0
    match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    result["socket_errors"] = sum(int(g) for g in match.groups()) if match else 0
    match = re.search(r"Transfer/sec:\s+(\S+)", output)
    result["transfer"] = match.group(1) if match else None
    return result


def run_wrk(url: str, connections: int, duration: str, threads: int = 2, workdir: Path | None = None,
            headers: list[str] | None = None, timeout_s: str = "10s") -> tuple[dict, list[str]]:
    argv = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}", "--timeout", timeout_s, "--latency"]
    for header in headers or []:
        argv += ["-H", header]
    argv.append(url)
    proc = Processes.start("wrk", argv, stdout=subprocess.PIPE)
    try:
        out, _ = proc.communicate(timeout=_ms(duration) / 1000 + 120)
    finally:
        Processes.stop(proc, grace=2)
    text = out.decode(errors="replace") if out else ""
    if proc.returncode not in (0, None) or "Requests/sec" not in text:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {text[-800:]}")
    return parse_wrk(text), argv


# MARK: - Machine


def _run(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return (out.stdout + out.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"unavailable ({error})"


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def other_work() -> str:
    """A short description of CPU-heavy processes not started by this run (compilers, tests)."""
    try:
        out = subprocess.run(["ps", "-eo", "pid,pcpu,comm", "--sort=-pcpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    mine = {os.getpid()}
    with Processes._lock:
        mine |= {p.pid for _n, p in Processes._children}
    busy = []
    for line in out.splitlines()[1:]:
        parts = line.split(None, 2)
        if len(parts) < 3:
            continue
        pid, cpu, comm = int(parts[0]), float(parts[1]), parts[2]
        if pid in mine or cpu < 5.0 or comm in ("ps",):
            continue
        busy.append(f"{comm} ({cpu:.0f}%)")
    return ", ".join(busy[:6]) if busy else "none"


def machine_info() -> dict[str, str]:
    cpu_model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    os_name = "?"
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    return {
        "cpus (nproc)": _run(["nproc"]),
        "cpu": cpu_model,
        "memory": mem,
        "os": os_name,
        "kernel": platform.release(),
        "swift": _run(["swift", "--version"]).splitlines()[0] if shutil.which("swift") else "not on PATH",
        "nginx": _run([nginx, "-v"]) if nginx else "not installed",
        "wrk": _run(["wrk", "-v"]).splitlines()[0].split(" Copyright")[0] if shutil.which("wrk") else "not installed",
        "python": platform.python_version(),
    }


def nginx_binary() -> str:
    found = shutil.which("nginx")
    if found:
        return found
    if Path("/usr/sbin/nginx").exists():
        return "/usr/sbin/nginx"
    raise RuntimeError("nginx is not installed (scripts/bench/ensure-tools.sh installs it)")


def git_revision() -> str:
    rev = _run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    dirty = _run(["git", "-C", str(REPO), "status", "--porcelain", "--", "Sources", "Package.swift", "routes"])
    if rev.startswith("unavailable") or "fatal" in rev:
        return "unknown"
    return rev + (" + uncommitted changes in Sources/" if dirty.strip() else "")


def now_utc() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


# MARK: - BENCHMARKS.md


BENCHMARKS = REPO / "BENCHMARKS.md"

_TEMPLATE = """# Benchmarks

`make bench` and `make soak` write their latest results here, each into its own section below
(the rest of this file is left alone). What they measure and every setting is described in
`scripts/bench/bench.py` and `scripts/bench/soak.py`.

<!-- bench:start -->
_No `make bench` result yet._
<!-- bench:end -->

<!-- soak:start -->
_No `make soak` result yet._
<!-- soak:end -->
"""


def write_section(name: str, markdown: str, path: Path = BENCHMARKS) -> None:
    """Replaces the text between ``<!-- name:start -->`` and ``<!-- name:end -->``."""
    text = path.read_text() if path.exists() else _TEMPLATE
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in text or end not in text:
        text = text.rstrip("\n") + f"\n\n{start}\n{end}\n"
    before, rest = text.split(start, 1)
    _old, after = rest.split(end, 1)
    path.write_text(before + start + "\n" + markdown.strip("\n") + "\n" + end + after)


def machine_table(info: dict[str, str], extra: dict[str, str]) -> str:
    rows = ["| | |", "|---|---|"]
    for key, value in list(info.items()) + list(extra.items()):
        rows.append(f"| {key} | {str(value).replace('|', '/')} |")
    return "\n".join(rows)


def percentile(values: list[float], pct: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * pct / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 1:
        return f"{value * 1000:.0f} µs"
    return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"


def fmt_mb(kb: float | None) -> str:
    return "—" if kb is None else f"{kb / 1024:.1f} MB"


def shown_path(path: Path) -> str:
    """``path`` relative to the checkout when it is inside it."""
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)
