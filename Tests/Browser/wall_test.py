#!/usr/bin/env python3
"""The wall page (/wall) and the dashboard's accessibility, in headless Chromium (Playwright).

Starts `daygate demo` (its household of three: Anna, Bas, Mila) on free ports and checks, on a
1920x1080 landscape screen and an 800x1280 portrait tablet: every member's lane and card, the
calendar the three share once in the "Everyone" lane, nothing that scrolls, a screenshot of
each (WALL_SCREENSHOTS names a folder to keep them in; docs/images/ holds the README's); a
change arriving over /v1/household/stream without a reload; the gateway stopped (the last day
stays, with its age) and started again (current again); the night hours dimming the page; a key
given in the address (`/wall#key=…`) stored and taken out of the address. Then axe-core (PyPI's
axe-playwright-python bundles it) on `/` and `/wall`: no violation.
Prints "wall: N passed, N failed".

    python3 Tests/Browser/wall_test.py [path/to/daygate]
"""
import datetime
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request
import zoneinfo

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from demo_process import ZONE, Checks, Demo  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SIZES = {"landscape": (1920, 1080), "portrait": (800, 1280)}
checks = Checks("wall")
check = checks.check


def call(url, method="GET", body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
        return json.loads(text) if text else None


def wait_until(condition, timeout=15):
    deadline = time.time() + timeout
    while not condition():
        if time.time() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.1)


def axe_source():
    import axe_playwright_python
    path = os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js")
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def open_wall(browser, base, size, **context_options):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, **context_options)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}/wall")
    page.wait_for_selector(".person", timeout=20000)
    return context, page, errors


def open_tasks(page, name):
    """The "Open tasks" figure on `name`'s card."""
    for card in page.query_selector_all(".person"):
        if card.query_selector(".person-name").text_content() == name:
            terms = [node.text_content() for node in card.query_selector_all("dt")]
            values = [node.text_content() for node in card.query_selector_all("dd")]
            return dict(zip(terms, values)).get("Open tasks")
    return None


def main():
    work = tempfile.mkdtemp(prefix="daygate-wall-")
    shots = os.environ.get("WALL_SCREENSHOTS") or os.path.join(work, "screenshots")
    os.makedirs(shots, exist_ok=True)
    state_dir = os.path.join(work, "state")
    demo = Demo(state_dir)
    try:
        base = demo.url
        day = call(f"{base}/v1/household/today")
        shared = [e["title"] for e in day["events"] if e.get("shared") and not e.get("all_day")]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)

            for size in SIZES:
                def every_member(size=size):
                    context, page, errors = open_wall(browser, base, size)
                    try:
                        heads = [node.text_content() for node in page.query_selector_all(".lane-head")]
                        assert heads[1:] == ["Everyone", "Anna", "Bas", "Mila"], heads
                        names = [node.text_content() for node in page.query_selector_all(".person-name")]
                        assert names == ["Anna", "Bas", "Mila"], names
                        lanes = page.query_selector_all("section.lane")
                        everyone = " ".join(node.text_content() for node in lanes[0].query_selector_all(".item-title"))
                        for title in shared:
                            assert everyone.count(title) == 1, f"{title} once in Everyone: {everyone}"
                        anna = " ".join(node.text_content() for node in lanes[1].query_selector_all(".item-title"))
                        assert "Standup" in anna and "Shift: Bar" in anna, anna
                        for title in shared:
                            assert title not in anna, f"a shared event only in Everyone: {title}"
                        scroll = page.evaluate(
                            "[document.documentElement.scrollWidth, document.documentElement.clientWidth,"
                            " document.documentElement.scrollHeight, document.documentElement.clientHeight]")
                        assert scroll[0] <= scroll[1] and scroll[2] <= scroll[3], f"scrolls: {scroll}"
                        overflowing = page.evaluate(
                            "[...document.querySelectorAll('.person, .lane-head, .wall-top, .freshness')]"
                            ".filter(e => e.scrollHeight > e.clientHeight + 2).map(e => e.className)")
                        assert not overflowing, f"cut off: {overflowing}"
                        now_lines = page.query_selector_all(".now-line")
                        local = datetime.datetime.now(zoneinfo.ZoneInfo(ZONE))
                        if 7 <= local.hour < 22:
                            assert len(now_lines) == 1, "a now-line during the day"
                        clock = page.text_content("#wall-clock")
                        assert clock == local.strftime("%H:%M") or clock == (local - datetime.timedelta(minutes=1)).strftime("%H:%M"), clock
                        assert not errors, errors
                        page.screenshot(path=os.path.join(shots, f"wall-{size}.png"))
                        return f"{size}, screenshot in {shots}"
                    finally:
                        context.close()
                check(f"every member on the wall, nothing scrolls ({size})", every_member)

            def follows_changes():
                context, page, _ = open_wall(browser, base, "landscape")
                try:
                    before = int(open_tasks(page, "Anna"))
                    call(f"{base}/v1/tasks", "POST", {"title": "Brood halen"})
                    wait_until(lambda: open_tasks(page, "Anna") == str(before + 1))
                    return f"Anna's open tasks {before} → {before + 1} without a reload"
                finally:
                    context.close()
            check("the wall follows the household's changes", follows_changes)

            def survives_restart():
                nonlocal demo
                context, page, errors = open_wall(browser, base, "landscape")
                try:
                    demo.stop()
                    # The stream ends with the gateway: the page asks at once and finds no gateway.
                    wait_until(lambda: (page.text_content("#freshness") or "").startswith("offline"), timeout=30)
                    assert len(page.query_selector_all(".person")) == 3, "the day it kept stays on the wall"
                    offline = page.text_content("#freshness")
                    demo = Demo(state_dir, port=int(base.rsplit(":", 1)[1]))
                    wait_until(lambda: (page.text_content("#freshness") or "").startswith("updated"), timeout=90)
                    assert not errors, errors
                    return f"{offline!r}, then current again"
                finally:
                    context.close()
            check("the gateway gone: the last day with its age; back: current again", survives_restart)

            def dims_at_night():
                context = browser.new_context(viewport={"width": 1920, "height": 1080})
                page = context.new_page()
                try:
                    local = datetime.datetime.now(zoneinfo.ZoneInfo(ZONE))
                    late = local.replace(hour=23, minute=15, second=0, microsecond=0)
                    page.clock.set_fixed_time(late)
                    page.goto(f"{base}/wall")
                    page.wait_for_selector(".person", timeout=20000)
                    wait_until(lambda: "night" in (page.get_attribute("body", "class") or ""))
                    page.clock.set_fixed_time(late.replace(hour=12))
                    page.goto(f"{base}/wall")
                    page.wait_for_selector(".person", timeout=20000)
                    assert "night" not in (page.get_attribute("body", "class") or ""), "dimmed at noon"
                    return "dim at 23:15 (night 22:30-06:30), bright at 12:15"
                finally:
                    context.close()
            check("the night hours dim the wall", dims_at_night)

            def accessible():
                source = axe_source()
                found = []
                for path in ["/", "/wall"]:
                    for size in SIZES:
                        width, height = SIZES[size]
                        context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
                        page = context.new_page()
                        try:
                            # Mid-afternoon on the demo's day, whatever the time: items that are over,
                            # going on and to come are all on the page (each styled its own way).
                            afternoon = datetime.datetime.now(zoneinfo.ZoneInfo(ZONE)).replace(
                                hour=15, minute=20, second=0, microsecond=0)
                            page.clock.set_fixed_time(afternoon)
                            page.goto(f"{base}{path}")
                            page.wait_for_selector(".person" if path == "/wall" else "#timeline li", timeout=20000)
                            page.wait_for_timeout(500)
                            if path == "/wall":
                                assert page.query_selector(".item.past") and page.query_selector(".now-line"), \
                                    "past items and the now-line are checked too"
                            page.add_script_tag(content=source)
                            result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
                            for violation in result["violations"]:
                                targets = [", ".join(node["target"]) for node in violation["nodes"][:3]]
                                found.append(f"{path} {size}: {violation['id']} ({violation['impact']}) at {targets}")
                        finally:
                            context.close()
                assert not found, "\n".join(found)
                return "/ and /wall at both sizes"
            check("axe-core finds no violation on / and /wall", accessible)
            browser.close()

        keyed_state = os.path.join(work, "keyed")
        key = "wall-browser-test-key-0123456789"
        keyed = Demo(keyed_state, extra_args=["--client-key", key])
        try:
            def key_from_address():
                with sync_playwright() as playwright:
                    browser = playwright.chromium.launch(executable_path=CHROMIUM)
                    context = browser.new_context(viewport={"width": 1920, "height": 1080})
                    page = context.new_page()
                    page.goto(f"{keyed.url}/wall")
                    page.wait_for_selector("#key-form:not([hidden])", timeout=20000)
                    page.goto(f"{keyed.url}/wall#key={key}")
                    page.wait_for_selector(".person", timeout=20000)
                    assert page.evaluate("location.hash") == "", "the key left the address"
                    assert page.evaluate("localStorage.getItem('daygate.key')") == key
                    page.reload()
                    page.wait_for_selector(".person", timeout=20000)
                    browser.close()
                return "asked without one; stored from #key= and the address cleaned"
            check("a key given in the address is kept, not left in it", key_from_address)
        finally:
            keyed.stop()
    finally:
        demo.stop()
        shutil.rmtree(work, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
