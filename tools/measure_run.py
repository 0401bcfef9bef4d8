"""Measure the in-browser Python (not a test): bytes, time to the first result, memory.

Usage: ``python tools/measure_run.py`` after ``make html`` (``make bench-run`` does both).
Serves _build/html on 127.0.0.1 and, in Chromium:

* **the first Run of a page**, from the press to "Done", in a new browser profile each time
  (runtime and model downloaded from 127.0.0.1, so the time is the browser's work): the first
  cell of "A weighted average" and of "Attention in a real model" (which reads the model), five
  times each, with where the time went (``data-run-ms``, which run.js writes: Python up and its
  parts, the model's files, the cell itself). Written to ``_build/run-bench.json``;
* the first Run of "A weighted average" unthrottled, throttled to 10 Mbit/s (DevTools
  protocol), and again from the cache, with the bytes sent and Chromium's memory.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from booksite.serve import QuietHandler, serve

SITE = Path(__file__).resolve().parents[1] / "_build" / "html"
OUT = SITE.parent / "run-bench.json"
FIRST_RUN_PAGES = ["weighted-average.html", "attention-in-a-real-model.html"]
REPEATS = 5
GOAL_S = 1.5   # issue 40: the first Run of a page, runtime included


SENT = {"bytes": 0}


class Counting(QuietHandler):
    """Serves the site and counts the bytes of every response body (the Worker's too)."""

    def copyfile(self, source, outputfile):
        data = source.read()
        SENT["bytes"] += len(data)
        outputfile.write(data)


def renderer_rss_mib() -> float:
    """Resident memory of Chromium's processes, in MiB (Linux /proc)."""
    total = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if "Name:\tchromium" in text or "Name:\tchrome" in text:
            for line in text.splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def first_result(context, url, mbit=None):
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    if mbit:
        rate = mbit * 1e6 / 8
        cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 20,
                                                      "downloadThroughput": rate, "uploadThroughput": rate})
    page.goto(url)
    page.wait_for_selector(".sa-run-button")
    page.wait_for_load_state("networkidle")
    before = SENT["bytes"]
    rss = renderer_rss_mib()
    box = page.locator(".cell.tag_run").first
    t0 = time.perf_counter()
    box.locator(".sa-run-button").click()
    page.wait_for_function("el => /Done|error/.test(el.textContent)",
                           arg=box.locator(".sa-run-status").element_handle(), timeout=300_000)
    seconds = time.perf_counter() - t0
    page.wait_for_timeout(500)
    print(f"  Chromium's memory grew by {renderer_rss_mib() - rss:.0f} MiB")
    return seconds, SENT["bytes"] - before, None, page


def first_run_split(browser, url) -> dict:
    """One first Run of the page's first cell in a new profile: seconds, and run.js's split (ms)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector(".sa-run-button")
        page.wait_for_load_state("networkidle")
        box = page.locator(".cell.tag_run").first
        t0 = time.perf_counter()
        box.locator(".sa-run-button").click()
        page.wait_for_function("el => /Done|error|failed/.test(el.textContent)",
                               arg=box.locator(".sa-run-status").element_handle(), timeout=300_000)
        seconds = time.perf_counter() - t0
        split = json.loads(box.get_attribute("data-run-ms") or "{}")
        return {"seconds": seconds, **split}
    finally:
        context.close()


def first_runs(browser, base) -> dict:
    """The median first Run of each page of FIRST_RUN_PAGES, with its split; printed as a table."""
    results = {}
    print(f"First Run, new profile each time, median of {REPEATS} (goal <= {GOAL_S} s):")
    print("| page | press to Done (s) | Python files | Python start (from the snapshot) | model after Python | cell |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in FIRST_RUN_PAGES:
        runs = [first_run_split(browser, f"{base}/{name}") for _ in range(REPEATS)]
        median = min(runs, key=lambda r: abs(r["seconds"] - statistics.median(x["seconds"] for x in runs)))
        start = median.get("start") or {}
        results[name] = {"median": median, "all_seconds": [r["seconds"] for r in runs]}
        parts = [start.get("files", 0), start.get("python", 0), median.get("model", 0), median.get("cell", 0)]
        print(f"| {name} | {median['seconds']:.2f} | " + " | ".join(f"{ms:.0f} ms" for ms in parts) + " |")
    OUT.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return results


def main(site: Path = SITE):
    """Measure the site at ``site`` (``python tools/measure_run.py [folder]``; by default the build's)."""
    with serve(site, Counting) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                     args=["--headless", "--no-sandbox", "--disable-gpu",
                                           "--disable-background-networking"])
        first_runs(browser, base)
        browser.close()
    with serve(site, Counting) as base, sync_playwright() as pw:
        url = f"{base}/weighted-average.html"
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        for label, mbit in (("127.0.0.1", None), ("10 Mbit/s", 10)):
            context = browser.new_context()
            seconds, sent, _, page = first_result(context, url, mbit)
            print(f"{label}: first result after {seconds:.1f} s, {sent / 1e6:.1f} MB transferred")
            if mbit is None:
                again, sent2, _, _ = first_result(context, url)  # same context: the Cache API copy
                print(f"second visit (cache): first result after {again:.1f} s, {sent2 / 1e6:.2f} MB transferred")
            context.close()
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else SITE)
