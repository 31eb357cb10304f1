#!/usr/bin/env python3
"""The wall page left running (headless Chromium, Playwright): its memory must stay flat.

Starts `daygate demo` (the household of three) on free ports and opens /wall at 1920x1080.
Every WALL_SOAK_CHANGE_SECONDS (default 10) a task is added through the gateway, so the
household's change stream tells the page and it loads the day again and draws it anew; the
page also redraws its clock every 20 s. Every WALL_SOAK_SAMPLE_SECONDS (default 30) the page's
JavaScript heap is measured after a garbage collection (Chrome DevTools Protocol:
HeapProfiler.collectGarbage, Runtime.getHeapUsage) with its DOM node and event-listener counts
(Performance.getMetrics). After the first sample (the page warm), no later sample may hold
more than 10 % + 1 MB more heap, or more nodes or listeners than the first after warm-up + 10 %.

    WALL_SOAK_MINUTES=60 python3 Tests/Browser/wall_soak.py [path/to/daygate]

`make test` runs it for WALL_SOAK_MINUTES=2; the hour-long run's figures are in
docs/wall.md. Prints every sample and "wall soak: N passed, N failed".
"""
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from demo_process import Checks, Demo  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
MINUTES = float(os.environ.get("WALL_SOAK_MINUTES", "2"))
CHANGE_SECONDS = float(os.environ.get("WALL_SOAK_CHANGE_SECONDS", "10"))
SAMPLE_SECONDS = float(os.environ.get("WALL_SOAK_SAMPLE_SECONDS", "30"))
checks = Checks("wall soak")


def add_task(base, number):
    request = urllib.request.Request(
        f"{base}/v1/tasks", data=json.dumps({"title": f"Soak {number}"}).encode(), method="POST",
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()


def sample(session):
    session.send("HeapProfiler.collectGarbage")
    heap = session.send("Runtime.getHeapUsage")
    metrics = {m["name"]: m["value"] for m in session.send("Performance.getMetrics")["metrics"]}
    return {"heap": heap["usedSize"], "nodes": int(metrics.get("Nodes", 0)),
            "listeners": int(metrics.get("JSEventListeners", 0))}


def main():
    work = tempfile.mkdtemp(prefix="daygate-wall-soak-")
    demo = Demo(os.path.join(work, "state"))
    samples = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{demo.url}/wall")
            page.wait_for_selector(".person", timeout=20000)
            session = page.context.new_cdp_session(page)
            session.send("Performance.enable")
            started = time.time()
            next_change = started + CHANGE_SECONDS
            next_sample = started
            changes = 0
            while time.time() - started < MINUTES * 60:
                now = time.time()
                if now >= next_change:
                    changes += 1
                    add_task(demo.url, changes)
                    next_change += CHANGE_SECONDS
                if now >= next_sample:
                    taken = sample(session)
                    taken["minute"] = round((now - started) / 60, 1)
                    samples.append(taken)
                    print(f"  {taken['minute']:5.1f} min: heap {taken['heap'] / 1e6:.2f} MB, "
                          f"{taken['nodes']} nodes, {taken['listeners']} listeners", flush=True)
                    next_sample += SAMPLE_SECONDS
                page.wait_for_timeout(500)
            taken = sample(session)
            taken["minute"] = round((time.time() - started) / 60, 1)
            samples.append(taken)
            freshness = page.text_content("#freshness") or ""
            browser.close()

        def flat():
            assert len(samples) >= 3, f"only {len(samples)} samples"
            base = samples[1]
            worst = max(samples[1:], key=lambda s: s["heap"])
            assert worst["heap"] <= base["heap"] * 1.1 + 1e6, (
                f"heap grew from {base['heap'] / 1e6:.2f} MB to {worst['heap'] / 1e6:.2f} MB at {worst['minute']} min")
            most = max(s["nodes"] for s in samples[1:])
            assert most <= base["nodes"] * 1.1, f"DOM nodes grew from {base['nodes']} to {most}"
            listeners = max(s["listeners"] for s in samples[1:])
            assert listeners <= base["listeners"] * 1.1 + 2, f"listeners grew from {base['listeners']} to {listeners}"
            return (f"{MINUTES:g} min, {changes} changes; heap {base['heap'] / 1e6:.2f} → "
                    f"{samples[-1]['heap'] / 1e6:.2f} MB (max {worst['heap'] / 1e6:.2f}), nodes {base['nodes']} → "
                    f"{samples[-1]['nodes']}")

        checks.check("the page's heap, nodes and listeners stay flat", flat)
        checks.check("no script error, and the day still current at the end", lambda: (
            None if not errors and freshness.startswith("updated") else (_ for _ in ()).throw(
                AssertionError(f"errors {errors[:3]}, freshness {freshness!r}"))))
    finally:
        demo.stop()
        shutil.rmtree(work, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
