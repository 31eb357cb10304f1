#!/usr/bin/env python3
"""The wall page (/wall) and the dashboard's accessibility, in headless Chromium (Playwright).

Starts `daygate demo` (its household of three: Anna, Bas, Mila) on free ports and checks, on a
1920x1080 landscape screen, a 1280x800 one and an 800x1280 portrait tablet: every member's lane
and card, the calendar the three share once in the "Everyone" lane, nothing that scrolls, a
screenshot of each (WALL_SCREENSHOTS names a folder to keep them in; docs/images/ holds the
README's); with the DOM's own geometry (GEOMETRY), on the demo's day and on a heavy day made
from it (heavy_day.py, served in place of /v1/household/today): no two item boxes overlap, no
text spills out of or is clipped by its box, no title is cut short of three lines or to one
line with an ellipsis, nothing leaves the screen, every thing of the busy member's is on the
wall (in a box or in a "+N" opened), the empty member's lane is narrow, and every card lists
exactly the shifts its lane shows; a
change arriving over /v1/household/stream without a reload; the gateway stopped (the last day
stays, with its age) and started again (current again); the night hours dimming the page; a key
given in the address (`/wall#key=…`) stored and taken out of the address. Then axe-core (PyPI's
axe-playwright-python bundles it) on `/`, `/wall` and the heavy day: no violation.
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from demo_process import ZONE, Checks, Demo  # noqa: E402
from heavy_day import ALL_DAY, HEAVY_COUNT, heavy_day  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SIZES = {"landscape": (1920, 1080), "small": (1280, 800), "portrait": (800, 1280)}
# The smallest title on the wall: at 1920x1080 19 px (0.8 of the page's type, 2.2% of the
# screen's shorter side); on smaller screens never under 14 px.
TITLE_FLOOR = {"landscape": 19, "small": 14, "portrait": 14}
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


# What the DOM's own geometry says is wrong on the wall: item boxes that overlap, text that
# spills out of or is clipped by its box, a title cut short of three lines or cut to one line
# with an ellipsis, anything off the screen, a card that does not hold its facts.
GEOMETRY = """(floor) => {
  const problems = [];
  const name = (e) => (e.querySelector?.('.item-title')?.textContent || e.textContent || '').trim().slice(0, 40);
  const boxes = [...document.querySelectorAll('#lanes .item')];
  const rects = boxes.map((b) => b.getBoundingClientRect());
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = rects[i], b = rects[j];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0.5 && h > 0.5) problems.push(`overlap: ${name(boxes[i])} / ${name(boxes[j])}`);
    }
  }
  let smallest = Infinity;
  boxes.forEach((box, i) => {
    const r = rects[i];
    if (box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1)
      problems.push(`clipped by its box: ${name(box)} (${box.scrollWidth}x${box.scrollHeight} in ${box.clientWidth}x${box.clientHeight})`);
    for (const text of box.querySelectorAll('.item-time, .item-title, .item-detail')) {
      const t = text.getBoundingClientRect();
      if (t.left < r.left - 1 || t.right > r.right + 1 || t.top < r.top - 1 || t.bottom > r.bottom + 1)
        problems.push(`spills out: ${name(box)}: ${text.className}`);
      if (text.scrollWidth > text.clientWidth + 1) problems.push(`cut across: ${name(box)}: ${text.className}`);
    }
    const title = box.querySelector('.item-title');
    const style = getComputedStyle(title);
    const line = parseFloat(style.lineHeight);
    const lines = Math.round(title.clientHeight / line);
    smallest = Math.min(smallest, parseFloat(style.fontSize));
    if (lines < 1) problems.push(`no line of title: ${name(box)}`);
    if (title.scrollHeight > title.clientHeight + 1 && lines < 3) problems.push(`title cut to ${lines} line(s): ${name(box)}`);
  });
  if (boxes.length && smallest < floor) problems.push(`titles at ${smallest} px, under ${floor}`);
  for (const e of document.querySelectorAll('#lanes *, .people *, .wall-top *')) {
    const style = getComputedStyle(e);
    if (style.textOverflow === 'ellipsis' && style.whiteSpace === 'nowrap' && e.scrollWidth > e.clientWidth + 1)
      problems.push(`ellipsis: ${name(e)}`);
    if (e.hidden || e.closest('dialog') || e.closest('.visually-hidden')) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1)
      problems.push(`off the screen: ${e.className || e.tagName} ${name(e)}`);
  }
  for (const card of document.querySelectorAll('.person, .lane-head, .chip')) {
    if (card.scrollHeight > card.clientHeight + 2 || card.scrollWidth > card.clientWidth + 2) problems.push(`cut off: ${name(card)}`);
  }
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth || root.scrollHeight > root.clientHeight) problems.push('the page scrolls');
  return {problems, boxes: boxes.length, smallest};
}"""


def geometry(page, size):
    """Problems the DOM's geometry shows (an empty list when there are none), and figures."""
    result = page.evaluate(GEOMETRY, TITLE_FLOOR[size])
    return result["problems"], f"{result['boxes']} boxes, smallest title {result['smallest']:.1f} px"


def lanes_and_cards(page):
    """Per lane: its item titles (those in a "+N" read from the box opened), its shifts' times,
    its width; per card: its facts. (Locators: the page may draw itself again meanwhile.)"""
    lanes = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('section.lane')].map((lane) => [
      lane.getAttribute('aria-label'), {
        titles: [...lane.querySelectorAll('.item:not(.more) .item-title')].map((n) => n.textContent),
        shifts: [...lane.querySelectorAll('.item.dienst .item-time')].map((n) => n.textContent),
        buttons: lane.querySelectorAll('.more-button').length,
        width: lane.getBoundingClientRect().width, more: 0}]))""")
    for name, lane in lanes.items():
        for index in range(lane.pop("buttons")):
            button = page.locator(f"section.lane[aria-label='{name}'] .more-button").nth(index)
            count = int(button.locator(".item-title").text_content().split()[0].lstrip("+"))
            button.click()
            page.wait_for_selector("#more-dialog[open]")
            listed = page.evaluate("""() => [...document.querySelectorAll('#more-list .more-item')].map((n) => [
              n.querySelector('.item-title').textContent, n.querySelector('.item-time').textContent, n.classList.contains('dienst')])""")
            assert len(listed) == count, f"{name}: a +{count} opened lists {len(listed)}"
            lane["titles"] += [title for title, _, _ in listed]
            lane["shifts"] += [time for _, time, dienst in listed if dienst]
            lane["more"] += count
            page.click("#more-close")
            page.wait_for_selector("#more-dialog:not([open])", state="attached")
    cards = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.person')].map((card) => {
      const terms = [...card.querySelectorAll('dt')].map((n) => n.textContent);
      const values = [...card.querySelectorAll('dd')].map((n) => n.textContent);
      return [card.querySelector('.person-name').textContent, Object.fromEntries(terms.map((t, i) => [t, values[i]]))];
    }))""")
    return lanes, cards


def cards_agree_with_lanes(lanes, cards):
    """Each card's shifts are its lane's, the ones that are over included."""
    for name, facts in cards.items():
        shifts = facts.get("Shift")
        if shifts is None:
            assert not lanes[name]["shifts"], f"{name}: the lane shows shifts {lanes[name]['shifts']}, the card none"
            continue
        listed = [] if shifts == "none today" else [part.strip().split(" ")[0] for part in shifts.split(",")]
        assert sorted(listed) == sorted(lanes[name]["shifts"]), \
            f"{name}: the card says {shifts!r}, the lane shows {lanes[name]['shifts']}"


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
                        assert heads == ["Everyone", "Anna", "Bas", "Mila"], heads
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

                def demo_geometry(size=size):
                    context, page, errors = open_wall(browser, base, size)
                    try:
                        problems, figures = geometry(page, size)
                        assert not problems, "\n".join(problems)
                        lanes, cards = lanes_and_cards(page)
                        cards_agree_with_lanes(lanes, cards)
                        assert not errors, errors
                        return figures
                    finally:
                        context.close()
                check(f"the demo's day: nothing overlaps, spills, is cut or leaves the screen; cards agree with lanes ({size})",
                      demo_geometry)

            heavy = heavy_day(day, ZONE)
            busy, empty = heavy["members"][0]["name"], heavy["members"][-1]["name"]
            for size in SIZES:
                def heavy_geometry(size=size):
                    width, height = SIZES[size]
                    context = browser.new_context(viewport={"width": width, "height": height})
                    page = context.new_page()
                    errors = []
                    page.on("pageerror", lambda error: errors.append(str(error)))
                    try:
                        # Mid-morning of the day: items over, going on and to come.
                        page.clock.set_fixed_time(datetime.datetime.fromisoformat(heavy["date"] + "T10:20:00").replace(
                            tzinfo=zoneinfo.ZoneInfo(ZONE)))
                        page.route("**/v1/household/today*", lambda route: route.fulfill(
                            status=200, content_type="application/json", body=json.dumps(heavy)))
                        page.goto(f"{base}/wall")
                        page.wait_for_selector(".person", timeout=20000)
                        problems, figures = geometry(page, size)
                        page.screenshot(path=os.path.join(shots, f"wall-heavy-{size}.png"))
                        assert not problems, "\n".join(problems)
                        lanes, cards = lanes_and_cards(page)
                        # Every one of the busy member's things is on the wall, in a box or a "+N".
                        expected = sorted(
                            [e["title"] for e in heavy["events"] if e.get("member") == heavy["members"][0]["id"] and not e["all_day"]]
                            + [t["title"] for t in heavy["members"][0]["plan"]]
                            + [f"Shift: {d['type']['name']}" for d in heavy["members"][0]["diensten"]])
                        assert sorted(lanes[busy]["titles"]) == expected, \
                            f"{busy}'s lane: {sorted(lanes[busy]['titles'])} != {expected}"
                        chips = [node.text_content() for node in page.query_selector_all(f"section.lane[aria-label='{busy}'] .chip")]
                        assert chips == ALL_DAY, chips
                        # The empty member's lane: nothing, and narrow.
                        assert lanes[empty]["titles"] == [], lanes[empty]
                        assert lanes[empty]["width"] < width * 0.1 and lanes[empty]["width"] < lanes[busy]["width"] / 3, \
                            {name: round(lane["width"]) for name, lane in lanes.items()}
                        assert cards[empty].get("Shift") == "none today", cards[empty]
                        cards_agree_with_lanes(lanes, cards)
                        assert not errors, errors
                        return (f"{figures}; {len(expected)} things of {busy}'s, {lanes[busy]['more']} in a +N; "
                                f"lane widths {({name: round(lane['width']) for name, lane in lanes.items()})}; "
                                f"screenshot wall-heavy-{size}.png")
                    finally:
                        context.close()
                check(f"a heavy day: {HEAVY_COUNT} things 09:00-12:00, nothing overlaps, spills, is cut or leaves the screen ({size})",
                      heavy_geometry)

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
                for path in ["/", "/wall", "/wall#heavy"]:
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
                            if path == "/wall#heavy":
                                page.route("**/v1/household/today*", lambda route: route.fulfill(
                                    status=200, content_type="application/json", body=json.dumps(heavy)))
                            page.goto(f"{base}{path}")
                            page.wait_for_selector(".person" if path.startswith("/wall") else "#timeline li", timeout=20000)
                            page.wait_for_timeout(500)
                            if path.startswith("/wall"):
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
                return "/, /wall and the heavy day at every size"
            check("axe-core finds no violation on /, /wall and the heavy day", accessible)
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
