#!/usr/bin/env python3
"""A real Home Assistant sets daygate up through its config flow, as a person would.

Not part of `make test` (it needs Home Assistant's frontend package and a minute); run it by
hand with a Home Assistant installation and a gateway:

    python -m pip install homeassistant==2025.4.4 home-assistant-frontend==20250411.0
    daygate demo --port 18787 --client-key ha-proof-key-0123456789abcdef &
    python3 Tests/HomeAssistant/real_home_assistant.py --hass "$(command -v hass)" \
        --gateway http://127.0.0.1:18787 --key ha-proof-key-0123456789abcdef

It makes a fresh configuration folder with `custom_components/daygate` copied in, starts
`hass` on a free port, onboards a user through Home Assistant's own onboarding API, runs the
config flow over its REST API (`/api/config/config_entries/flow`: the address and the key),
and then compares what Home Assistant shows with what daygate answers: every member's sensors
with /v1/household/summary, the to-do lists with /v1/tasks, the calendar with /v1/events.
Prints one line per check and exits non-zero on any difference.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures: list[str] = []


def check(condition: bool, message: str) -> None:
    print(f"  {'ok  ' if condition else 'FAIL'} {message}")
    if not condition:
        failures.append(message)


def call(url: str, method: str = "GET", body: Any = None, token: str | None = None, form: bool = False) -> Any:
    headers = {}
    data = None
    if body is not None:
        if form:
            data = urllib.parse.urlencode(body).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        else:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
        return json.loads(text) if text else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hass", required=True)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--key", required=True)
    args = parser.parse_args()
    daygate = lambda path: call(args.gateway + path, token=args.key)  # noqa: E731
    zone = daygate("/v1/me")["gateway"]["timezone"]
    config = tempfile.mkdtemp(prefix="daygate-real-ha-")
    port = free_port()
    shutil.copytree(os.path.join(ROOT, "custom_components"), os.path.join(config, "custom_components"))
    with open(os.path.join(config, "configuration.yaml"), "w") as f:
        f.write(
            f"homeassistant:\n  name: Proof\n  time_zone: {zone}\n  country: NL\n  unit_system: metric\n"
            f"  latitude: 52.37\n  longitude: 4.89\n  elevation: 0\n"
            f"http:\n  server_host: 127.0.0.1\n  server_port: {port}\napi:\nconfig:\nonboarding:\n"
        )
    with open(os.path.join(config, "hass.err"), "w") as errors:
        hass = subprocess.Popen([args.hass, "--skip-pip", "-c", config], stdout=subprocess.DEVNULL, stderr=errors)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                call(base + "/api/onboarding")
                break
            except OSError:
                if time.time() > deadline or hass.poll() is not None:
                    raise SystemExit("Home Assistant did not start; see " + config) from None
                time.sleep(1)
        print(f"Home Assistant on {base} (configuration in {config})")
        client_id = base + "/"
        code = call(
            base + "/api/onboarding/users",
            "POST",
            {
                "client_id": client_id,
                "name": "Proof",
                "username": "proof",
                "password": "proof-password-1",
                "language": "en",
            },
        )["auth_code"]
        token = call(
            base + "/auth/token",
            "POST",
            {"grant_type": "authorization_code", "code": code, "client_id": client_id},
            form=True,
        )["access_token"]
        flow = call(base + "/api/config/config_entries/flow", "POST", {"handler": "daygate"}, token=token)
        check(flow["type"] == "form" and flow["step_id"] == "user", "the config flow asks for the address and the key")
        done = call(
            base + f"/api/config/config_entries/flow/{flow['flow_id']}",
            "POST",
            {"url": args.gateway, "key": args.key},
            token=token,
        )
        check(done["type"] == "create_entry", f"the entry is created: {done.get('title')}")
        time.sleep(5)
        states = {s["entity_id"]: s for s in call(base + "/api/states", token=token)}
        household = daygate("/v1/household/summary")
        for member, summary in household["members"].items():
            planned = states.get(f"sensor.{member}_tasks_planned_today")
            expected = "unknown" if summary["tasks_planned"] is None else str(summary["tasks_planned"])
            check(
                planned is not None and planned["state"] == expected,
                f"sensor.{member}_tasks_planned_today = {planned and planned['state']} (daygate: {expected})",
            )
            calories = states.get(f"sensor.{member}_calories_today")
            expected = "unknown" if summary["kcal_today"] is None else str(summary["kcal_today"])
            check(
                calories is not None and calories["state"] == expected,
                f"sensor.{member}_calories_today = {calories and calories['state']} (daygate: {expected})",
            )
        for name, entity in (
            ("inbox", "todo.anna_inbox"),
            ("acties", "todo.anna_actions"),
            ("opvolgen", "todo.anna_follow_up"),
        ):
            tasks = daygate(f"/v1/tasks?list={name}")["tasks"]
            state = states.get(entity)
            check(
                state is not None and state["state"] == str(len(tasks)),
                f"{entity} = {state and state['state']} open (daygate: {len(tasks)})",
            )
        today = datetime.date.today()
        events = daygate(f"/v1/events?from={today}&to={today + datetime.timedelta(days=1)}")["events"]
        start = datetime.datetime.combine(today, datetime.time()).isoformat()
        end = datetime.datetime.combine(today + datetime.timedelta(days=2), datetime.time()).isoformat()
        shown = call(
            base
            + f"/api/calendars/calendar.anna_events?start={urllib.parse.quote(start)}&end={urllib.parse.quote(end)}",
            token=token,
        )
        check(
            sorted(e["summary"] for e in shown) == sorted(e["title"] for e in events),
            f"calendar.anna_events shows {len(shown)} events of today and tomorrow (daygate: {len(events)})",
        )
        check("calendar.de_vries_household_events" in states, "calendar.de_vries_household_events")
    finally:
        hass.terminate()
        try:
            hass.wait(timeout=30)
        except subprocess.TimeoutExpired:
            hass.kill()
    print(f"real Home Assistant: {'all checks passed' if not failures else f'{len(failures)} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
