"""Measure the in-browser Python (not a test): bytes, time to the first result, memory.

Usage: ``python tools/measure_run.py`` after ``make html``. Serves _build/html on
127.0.0.1 and, in Chromium, presses the first Run of "A weighted average":
unthrottled, throttled to 10 Mbit/s (DevTools protocol), and again from the cache.
"""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from booksite.serve import QuietHandler, serve

SITE = Path(__file__).resolve().parents[1] / "_build" / "html"


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


def main():
    with serve(SITE, Counting) as base, sync_playwright() as pw:
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
    main()
