#!/usr/bin/env python3
"""`make test-install`: what `make install` leaves in a DESTDIR, and the installed binary at work.

1. The layout: the binary, routes/ and static/ in PREFIX/share/daygate (the same files as the
   repository's), the systemd unit with PREFIX's paths, the docs, the Avahi service file (`_daygate._tcp`).
2. The unit: `systemd-analyze verify` (skipped, and said so, where systemd-analyze is missing)
   and the directives the service relies on.
3. The Containerfile: its syntax as far as it can be checked without a container runtime.
4. The installed binary, started from an empty folder with a config that names no routes_dir
   or static_dir, finds the installed routes and dashboard; SIGHUP reloads the config and a new
   routes folder on a connection that stays open; a broken config is reported with its file and
   line (log and /readyz) and the old one serves on; SIGTERM stops it.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree

failures = []


def check(condition, message):
    if condition:
        print(f"  ok: {message}")
    else:
        print(f"  FAILED: {message}")
        failures.append(message)


def layout(root, prefix, repo):
    print("install layout")
    base = root + prefix
    binary = os.path.join(base, "bin/daygate")
    check(os.path.isfile(binary) and os.access(binary, os.X_OK), "bin/daygate is executable")
    check(oct(os.stat(binary).st_mode & 0o777) == oct(0o755), "bin/daygate is mode 0755")
    for folder in ("routes", "static"):
        installed = os.path.join(base, "share/daygate", folder)
        shipped = os.path.join(repo, folder)
        names = sorted(os.listdir(shipped))
        check(sorted(os.listdir(installed)) == names, f"share/daygate/{folder} holds the repository's {folder}/")
        same = all(
            open(os.path.join(installed, n), "rb").read() == open(os.path.join(shipped, n), "rb").read()
            for n in names
            if os.path.isfile(os.path.join(shipped, n))
        )
        check(same, f"share/daygate/{folder} files equal the repository's")
    unit = os.path.join(base, "lib/systemd/system/daygate.service")
    check(os.path.isfile(unit), "lib/systemd/system/daygate.service")
    text = open(unit).read()
    check(f"ExecStart={prefix}/bin/daygate serve" in text, "the unit starts PREFIX/bin/daygate")
    doc = os.path.join(base, "share/doc/daygate")
    for name in ("README.md", "running-as-a-service.md", "configuration.md", "design.md"):
        check(os.path.isfile(os.path.join(doc, name)), f"share/doc/daygate/{name}")
    avahi = os.path.join(root, "etc/avahi/services/daygate.service")
    check(os.path.isfile(avahi), "etc/avahi/services/daygate.service (under SYSCONFDIR, not PREFIX)")
    service = xml.etree.ElementTree.parse(avahi).getroot().find("service")
    check(service is not None and service.findtext("type") == "_daygate._tcp", "Avahi announces _daygate._tcp")
    check(service is not None and service.findtext("port") == "8787", "on daygate's default port")
    return binary, unit


def unit_checks(unit, binary):
    print("systemd unit")
    text = open(unit).read()
    directives = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            directives.setdefault(key.strip(), []).append(value.strip())
    check(directives.get("DynamicUser") == ["yes"], "DynamicUser=yes")
    check(directives.get("StateDirectory") == ["daygate"], "StateDirectory=daygate")
    check(any("-HUP $MAINPID" in v for v in directives.get("ExecReload", [])), "ExecReload sends SIGHUP")
    check(directives.get("Restart") == ["on-failure"], "Restart=on-failure")
    check("--state-dir /var/lib/daygate" in directives["ExecStart"][0], "the state folder is StateDirectory's")
    for key in ("NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp", "RestrictAddressFamilies"):
        check(key in directives, f"hardening: {key}")
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        print("  skipped: systemd-analyze verify (no systemd-analyze on this machine)")
        return
    with tempfile.TemporaryDirectory() as folder:
        copy = os.path.join(folder, "daygate.service")
        # verify checks that ExecStart's program exists: point it at the installed copy.
        open(copy, "w").write(re.sub(r"ExecStart=\S+", f"ExecStart={binary}", text))
        result = subprocess.run([analyze, "verify", copy], capture_output=True, text=True, timeout=60)
        complaints = [
            line for line in (result.stdout + result.stderr).splitlines() if "daygate.service" in line
        ]
        check(result.returncode == 0 and not complaints, f"systemd-analyze verify: {complaints or 'clean'}")
        security = subprocess.run(
            [analyze, "security", "--offline=yes", copy], capture_output=True, text=True, timeout=60
        )
        match = re.search(r"Overall exposure level for daygate.service: ([0-9.]+)", security.stdout)
        if match:
            check(float(match.group(1)) <= 2.0, f"systemd-analyze security exposure {match.group(1)} (≤ 2.0)")


INSTRUCTIONS = {
    "FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER",
    "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL",
}


def containerfile_checks(repo, binary):
    print("Containerfile")
    path = os.path.join(repo, "deploy/container/Containerfile")
    lines, current = [], ""
    for raw in open(path).read().splitlines():
        stripped = raw.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        current += stripped
        lines.append(current)
        current = ""
    check(current == "", "no line continues past the end")
    stages, froms, healthchecks, volumes = [], 0, [], []
    for line in lines:
        word, _, rest = line.partition(" ")
        if word not in INSTRUCTIONS:
            check(False, f"{word} is a Containerfile instruction")
        if word == "FROM":
            froms += 1
            parts = rest.split()
            if len(parts) == 3 and parts[1].upper() == "AS":
                stages.append(parts[2])
        if word == "COPY":
            source = [p for p in rest.split() if not p.startswith("--")]
            origin = re.search(r"--from=(\S+)", rest)
            if origin:
                check(origin.group(1) in stages, f"COPY --from={origin.group(1)} names an earlier stage")
            else:
                for item in source[:-1]:
                    check(os.path.exists(os.path.join(repo, item)), f"COPY {item} exists in the repository")
        if word in ("CMD", "ENTRYPOINT") and rest.startswith("["):
            try:
                json.loads(rest)
                check(True, f"{word} is a JSON array")
            except ValueError:
                check(False, f"{word} is a JSON array")
        if word == "HEALTHCHECK":
            healthchecks.append(rest)
        if word == "VOLUME":
            volumes.append(rest)
        if word == "RUN":
            # `make TARGET` run as a command (not a package named make).
            for match in re.finditer(r"(?:^|&&\s*)make\s+([a-z][\w-]*)", rest):
                makefile = open(os.path.join(repo, "Makefile")).read()
                target = match.group(1)
                check(re.search(rf"^{re.escape(target)}:", makefile, re.M) is not None, f"make {target} exists")
    check(froms >= 2 and len(stages) >= 2, "a multi-stage build")
    check(len(healthchecks) == 1 and re.search(r"/(readyz|healthz)", healthchecks[0]), "HEALTHCHECK on /readyz")
    check(any("/var/lib/daygate" in v for v in volumes), "a volume for the state folder")
    cmd = next(json.loads(l.partition(" ")[2]) for l in lines if l.startswith("CMD "))
    usage = subprocess.run([binary, cmd[0], "--help"], capture_output=True, text=True, timeout=30).stdout
    for option in [c for c in cmd if c.startswith("--")]:
        check(option in usage, f"`daygate {cmd[0]}` takes {option}")


class Gateway:
    def __init__(self, binary, config, cwd, log):
        self.log = open(log, "w+")
        self.process = subprocess.Popen(
            [binary, "serve", "--config", config, "--listen", "127.0.0.1:0"],
            cwd=cwd, stdout=subprocess.PIPE, stderr=self.log, text=True,
        )
        line = self.process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not match:
            self.stop()
            raise SystemExit(f"the gateway did not start: {line!r}\n{open(log).read()}")
        self.port = int(match.group(1))

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    def get(self, path, connection=None):
        own = connection is None
        connection = connection or self.connection()
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        if own:
            connection.close()
        return response.status, body

    def ready(self):
        status, body = self.get("/readyz")
        return json.loads(body)

    def wait_ready(self, condition, what):
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            state = self.ready()
            if condition(state):
                return state
            time.sleep(0.05)
        check(False, what)
        return self.ready()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return None
        return self.process.returncode


def serve_checks(binary, repo):
    print("the installed binary")
    with tempfile.TemporaryDirectory() as folder:
        config = os.path.join(folder, "etc/daygate.yaml")
        os.makedirs(os.path.dirname(config))
        empty = os.path.join(folder, "elsewhere")
        os.makedirs(empty)

        def write(text):
            with open(config, "w") as handle:
                handle.write(text)
            os.chmod(config, 0o600)

        write("listen: 127.0.0.1:8787\nstate_dir: state\ntimezone: Europe/Amsterdam\nprofiles:\n  default: {}\n")
        log = os.path.join(folder, "daygate.log")
        gateway = Gateway(binary, config, empty, log)
        try:
            status, body = gateway.get("/openapi.json")
            check(status == 200 and "/v1/today" in json.loads(body)["paths"], "the installed routes are served")
            status, body = gateway.get("/")
            check(status == 200 and b"<html" in body.lower(), "the installed dashboard is served")
            state = gateway.ready()
            check(state["config"]["generation"] == 1, "readyz: generation 1")
            check(state["config"]["file"] == os.path.realpath(config) or state["config"]["file"] == config,
                  "readyz: the config file")

            routes = os.path.join(folder, "etc/routes")
            shutil.copytree(os.path.join(repo, "routes"), routes)
            events = open(os.path.join(routes, "events.yaml")).read()
            open(os.path.join(routes, "agenda.yaml"), "w").write(events.replace("path: /v1/events", "path: /v1/agenda"))
            write("listen: 127.0.0.1:8787\nstate_dir: state\ntimezone: Asia/Tokyo\nroutes_dir: routes\n"
                  "profiles:\n  default: {}\n")
            kept = gateway.connection()
            status, _ = gateway.get("/v1/agenda", kept)
            check(status == 404, "no /v1/agenda before the reload")
            socket_before = kept.sock
            gateway.process.send_signal(signal.SIGHUP)
            state = gateway.wait_ready(lambda s: s["config"]["generation"] == 2, "SIGHUP reloaded the config")
            check(state["config"]["last_reload"]["result"] == "applied", "readyz: last reload applied")
            check("timezone" in state["config"]["last_reload"]["changes"], "readyz: the timezone changed")
            status, _ = gateway.get("/v1/agenda", kept)
            check(status == 200, "the new route answers on the connection opened before the reload")
            check(kept.sock is socket_before, "the keep-alive connection survived the reload")
            kept.close()

            write("listen: 127.0.0.1:8787\nstate_dir: state\ntimezone: Mars/Olympus_Mons\nroutes_dir: routes\n"
                  "profiles:\n  default: {}\n")
            gateway.process.send_signal(signal.SIGHUP)
            state = gateway.wait_ready(
                lambda s: s["config"]["last_reload"]["result"] == "failed", "a broken config is reported")
            errors = state["config"]["last_reload"]["errors"]
            check(state["status"] == "degraded", "readyz: degraded after a failed reload")
            check(errors and errors[0]["line"] == 3 and errors[0]["file"].endswith("etc/daygate.yaml"),
                  f"readyz: the error's file and line ({errors})")
            check(state["config"]["generation"] == 2, "the running config serves on")
            status, _ = gateway.get("/v1/agenda")
            check(status == 200, "the running routes serve on")
            time.sleep(0.2)
            logged = open(log).read()
            check(re.search(r"daygate\.yaml:3", logged) is not None, "the log names the file and line")
        finally:
            code = gateway.stop()
        check(code == 0, f"SIGTERM stops the gateway cleanly (exit {code})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--destdir", required=True)
    parser.add_argument("--prefix", default="/usr/local")
    parser.add_argument("--repo", required=True)
    args = parser.parse_args()
    binary, unit = layout(args.destdir, args.prefix, args.repo)
    unit_checks(unit, binary)
    containerfile_checks(args.repo, binary)
    serve_checks(binary, args.repo)
    total = len(failures)
    print(f"install_test: {'all checks passed' if total == 0 else f'{total} failed'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
