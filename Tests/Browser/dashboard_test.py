#!/usr/bin/env python3
"""The dashboard in a real browser (headless Chromium driven by Playwright).

Starts `daygate demo` on free ports, loads the page and checks the rendered DOM: every
section, a seeded event, an update arriving over /v1/stream without a reload, a stale badge
after the 8alls simulator is faulted, and reconnection after the gateway restarts. Writes a
screenshot to a temporary folder. Prints "browser: N passed, N failed".

    python3 Tests/Browser/dashboard_test.py [path/to/daygate]
"""
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
import zoneinfo

from playwright.sync_api import sync_playwright

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "daygate")
ZONE = "Europe/Amsterdam"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Demo:
    """`daygate demo` as a child process; reads its printed URLs."""

    def __init__(self, state_dir, port=0):
        self.process = subprocess.Popen(
            [BINARY, "demo", "--port", str(port), "--sim-port-base", "0", "--state-dir", state_dir,
             "--timezone", ZONE, "--log-level", "warning"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        self.simulators = {}
        deadline = time.time() + 60
        for line in self.process.stdout:
            match = re.search(r"dashboard\s+(http://\S+)/", line)
            if match:
                self.url = match.group(1)
            match = re.match(r"\s+(tickedify|eightalls|kantinekoning|fitiq|prsnl)\s+(http://\S+)", line)
            if match:
                self.simulators[match.group(1)] = match.group(2)
            if line.startswith("Ctrl-C") or time.time() > deadline:
                break
        if not getattr(self, "url", None):
            self.stop()
            raise RuntimeError("the demo did not print its URL")
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def call(url, method="GET", body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
        return json.loads(text) if text else None


results = []


def check(name, function):
    try:
        function()
        results.append((name, None))
        print(f"  ok   {name}")
    except Exception as error:  # noqa: BLE001 - report every failure and go on
        results.append((name, error))
        print(f"  FAIL {name}: {error}")
        traceback.print_exc()


def main():
    if not CHROMIUM:
        print("chromium is not installed (make test-browser installs it)")
        return 1
    state_dir = tempfile.mkdtemp(prefix="daygate-browser-")
    shots = tempfile.mkdtemp(prefix="daygate-screenshots-")
    demo = Demo(state_dir)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.goto(demo.url + "/")
            page.wait_for_selector("#timeline li .title", timeout=20000)
            page.wait_for_selector("#live[data-state=live]", timeout=20000)

            def sections_present():
                for section in ["timeline", "tasks", "nutrition", "diensten", "knowledge"]:
                    assert page.locator(f"#section-{section}").is_visible(), f"#section-{section} missing"
                for name in ["plan", "events", "counts", "nutrition", "diensten", "knowledge"]:
                    state = page.get_attribute(f".badge[data-section={name}]", "data-state")
                    assert state == "fresh", f"{name} badge is {state}"
                assert page.locator("#counts dd").count() == 5
                assert page.locator("#diensten .club").count() == 2
                assert page.locator("#knowledge li").count() >= 3
                assert page.locator("#banner").is_hidden()
            check("every section is rendered and fresh", sections_present)

            def seeded_event():
                page.get_by_text("Design review").wait_for(timeout=5000)
                kinds = set(page.eval_on_selector_all("#timeline li", "items => items.map(i => i.dataset.kind)"))
                assert {"event", "task", "break", "blocked"} <= kinds, kinds
            check("a seeded event and the planned day are on the timeline", seeded_event)

            page.screenshot(path=os.path.join(shots, "dashboard.png"), full_page=True)

            def live_update():
                loaded_at = page.evaluate("window.__daygate.loadedAt")
                today = page.input_value("#date-input")
                zone = zoneinfo.ZoneInfo(ZONE)
                start = datetime.datetime.fromisoformat(f"{today}T16:30:00").replace(tzinfo=zone)
                call(demo.simulators["eightalls"] + "/api/events", "POST", {
                    "title": "Piano lesson (added by the test)", "event_type": "personal",
                    "start_time": start.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z"),
                    "end_time": (start + datetime.timedelta(minutes=45)).astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z"),
                })
                # Another client asks the gateway to refetch; the change reaches the page over SSE.
                call(demo.url + "/v1/events", headers={"Cache-Control": "no-cache"})
                page.get_by_text("Piano lesson (added by the test)").wait_for(timeout=10000)
                assert page.evaluate("window.__daygate.loadedAt") == loaded_at, "the page reloaded"
            check("a change arrives over SSE without a reload", live_update)

            def stale_badge():
                call(demo.simulators["eightalls"] + "/_sim/faults", "POST", {"down": "reset"})
                page.click("#refresh")
                page.wait_for_selector(".badge[data-section=events][data-state=stale]", timeout=10000)
                assert page.get_attribute(".badge[data-section=plan]", "data-state") == "fresh"
                assert page.locator("#banner").is_visible()
                assert "Incomplete" in page.inner_text("#banner")
                page.screenshot(path=os.path.join(shots, "dashboard-stale.png"), full_page=True)
                call(demo.simulators["eightalls"] + "/_sim/faults", "POST", {})
            check("a faulted simulator shows a stale badge", stale_badge)

            def date_navigation():
                today = page.input_value("#date-input")
                page.click("#next-day")
                page.wait_for_function(f"document.getElementById('date-input').value !== '{today}'", timeout=10000)
                assert "date=" in page.url
                page.click("#today")
                page.wait_for_function(f"document.getElementById('date-input').value === '{today}'", timeout=10000)
            check("date navigation puts the day in the URL", date_navigation)

            def reconnects():
                nonlocal demo
                port = demo.port
                demo.stop()
                page.wait_for_selector("#live:not([data-state=live])", timeout=10000)
                demo = Demo(state_dir, port=port)
                page.wait_for_selector("#live[data-state=live]", timeout=20000)
            check("the page reconnects after the gateway restarts", reconnects)

            mobile = browser.new_page(viewport={"width": 390, "height": 844})
            mobile.goto(demo.url + "/")
            mobile.wait_for_selector("#timeline li .title", timeout=20000)
            mobile.screenshot(path=os.path.join(shots, "dashboard-phone.png"), full_page=True)

            def phone_width():
                width = mobile.evaluate("document.documentElement.scrollWidth")
                assert width <= 390, f"the page is {width}px wide at 390px"
            check("usable at phone width (no horizontal scroll)", phone_width)
            browser.close()
    finally:
        demo.stop()
        shutil.rmtree(state_dir, ignore_errors=True)
    print(f"screenshots in {shots}")
    failed = sum(1 for _, error in results if error)
    print(f"browser: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
