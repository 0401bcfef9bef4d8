"""Measure the explorer's Compute (not a test): time from the press to the heatmap, and bytes.

Usage: ``python tools/measure_explorer.py`` after the book is built (``make html``);
``make bench-explorer`` does both. Serves ``_build/html`` on 127.0.0.1 and, in
Chromium, presses Compute in the explorer of "Attention in a real model" for a
16-token and a 128-token sentence:

* **cold**: a fresh browser profile, so the runtime and the model are downloaded
  (from 127.0.0.1: the time is the browser's work, not the network's);
* **cached**: a second visit, a new page in the same profile: the files come from
  the Cache API, and Python starts again, from the moment the box takes the focus
  (the sentence is pasted and Compute pressed at once: the worst case);
* **typed**: the same second visit, but Compute is pressed once Python is up (as
  when the reader types the sentence in the time the warm-up takes, which is
  reported in the last column);
* **warm**: a second Compute on the same page: Python has the weights already.

each on a desktop and with the CPU slowed 4x (DevTools' ``Emulation.setCPUThrottlingRate``,
on the page and, through the browser's DevTools session, on Python's Worker). The time
is the lab's own (``data-compute-ms``: from the press to the first frame drawn after
the heatmap), split into Python's part and the view's. The bytes are counted by the
server, per file. Writes ``_build/explorer-bench.json`` and prints a table.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from playwright.sync_api import sync_playwright

from booksite.serve import QuietHandler, serve

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
OUT = ROOT / "_build" / "explorer-bench.json"
PAGE = "attention-in-a-real-model.html"
LAB = "#explorer-lab"
WARM_REPEATS = 3
TARGETS_S = {16: 0.3, 128: 1.0}   # warm, desktop (issue 26)

SENT: Counter = Counter()


class Counting(QuietHandler):
    """Serves the site and counts the bytes of every response body, per file."""

    def copyfile(self, source, outputfile):
        data = source.read()
        SENT[self.path.split("?")[0]] += len(data)
        outputfile.write(data)


def sentence(n_tokens: int, seed: int) -> str:
    """A sentence of exactly ``n_tokens`` tokens ([CLS] and [SEP] included), different for each seed."""
    from selfattention.minilm import load_tokenizer

    words = ("the otter that swam past seven quiet boats near a lighthouse at dawn found "
             "marmalade under old nets and told every gull on the pier about it").split()
    tok = load_tokenizer()
    out = []
    k = seed
    while len(tok.encode(" ".join(out) + ".").tokens) < n_tokens:
        out.append(words[k % len(words)])
        k += 7
    text = " ".join(out) + "."
    while len(tok.encode(text).tokens) > n_tokens:
        out.pop()
        text = " ".join(out) + "."
    assert len(tok.encode(text).tokens) == n_tokens, (n_tokens, text)
    return text


def throttle_workers(browser_cdp, rate: float) -> int:
    """Slow every dedicated Worker (Python runs in one) by ``rate``; return how many were found."""
    n = 0
    for target in browser_cdp.send("Target.getTargets")["targetInfos"]:
        if target["type"] == "worker":
            session = browser_cdp.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": False})
            message = json.dumps({"id": 1, "method": "Emulation.setCPUThrottlingRate", "params": {"rate": rate}})
            browser_cdp.send("Target.sendMessageToTarget", {"sessionId": session["sessionId"], "message": message})
            n += 1
    return n


def open_page(context, base, rate):
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    page.goto(f"{base}/{PAGE}")
    page.wait_for_selector(f"{LAB}.sa-lab-ready table.sa-ex-grid td")
    page.wait_for_load_state("networkidle")
    return page


def compute(page, text, browser_cdp, rate, count, typed=False):
    lab = page.locator(LAB)
    warm_up_s = None
    if typed:   # the box takes the focus; Python starts from the cache while the reader types
        t0 = time.perf_counter()
        lab.locator(".sa-ex-text").focus()
        if rate != 1:
            for _ in range(500):
                if throttle_workers(browser_cdp, rate):
                    break
                time.sleep(0.02)
        page.wait_for_function(f"() => document.querySelector('{LAB}').dataset.warmUp === 'ready'", timeout=600_000)
        warm_up_s = time.perf_counter() - t0
    lab.locator(".sa-ex-text").fill(text)
    before = sum(SENT.values())
    files_before = Counter(SENT)
    t0 = time.perf_counter()
    lab.locator("button[data-action=compute]").click()
    if rate != 1 and not typed:
        for _ in range(200):   # the Worker appears once Compute has imported its module
            if throttle_workers(browser_cdp, rate):
                break
            time.sleep(0.02)
    page.wait_for_function(f"() => Number(document.querySelector('{LAB}').dataset.computed || 0) >= {count}",
                           timeout=600_000)
    wall = time.perf_counter() - t0
    status = lab.locator(".sa-ex-own-status").text_content()
    assert "Computed" in status, status
    files = {k: v - files_before.get(k, 0) for k, v in SENT.items() if v - files_before.get(k, 0)}
    return {"seconds": float(lab.get_attribute("data-compute-ms")) / 1000,
            "python_s": float(lab.get_attribute("data-python-ms")) / 1000,
            "view_s": float(lab.get_attribute("data-view-ms")) / 1000,
            "start_ms": json.loads(lab.get_attribute("data-start-ms") or "{}"),
            "wall_s": wall, "bytes": sum(SENT.values()) - before, "files": files, "warm_up_s": warm_up_s}


def measure(browser, base, rate):
    browser_cdp = browser.new_browser_cdp_session()
    rows = []
    for n in (16, 128):
        context = browser.new_context(viewport={"width": 1366, "height": 900})
        page = open_page(context, base, rate)
        cold = compute(page, sentence(n, 0), browser_cdp, rate, 1)
        rows.append({"tokens": n, "state": "cold", **cold})
        warm = [compute(page, sentence(n, k), browser_cdp, rate, 1 + k) for k in range(1, 1 + WARM_REPEATS)]
        rows.append({"tokens": n, "state": "warm", "repeats": WARM_REPEATS,
                     **{key: statistics.median(w[key] for w in warm)
                        for key in ("seconds", "python_s", "view_s", "wall_s")},
                     "bytes": sum(w["bytes"] for w in warm), "files": {}, "start_ms": {}})
        page.close()
        again = open_page(context, base, rate)   # a second visit: the Cache API's copies
        cached = compute(again, sentence(n, 9), browser_cdp, rate, 1)
        rows.append({"tokens": n, "state": "cached", **cached})
        again.close()
        again = open_page(context, base, rate)
        typed = compute(again, sentence(n, 12), browser_cdp, rate, 1, typed=True)
        rows.append({"tokens": n, "state": "typed", **typed})
        context.close()
    return rows


def main() -> int:
    if not (SITE / PAGE).exists():
        print(f"{SITE / PAGE} is missing: build the book first (make html)")
        return 1
    results = {"page": PAGE, "targets_warm_desktop_s": TARGETS_S, "runs": []}
    with serve(SITE, Counting) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        for label, rate in (("desktop", 1), ("4x slower CPU", 4)):
            for row in measure(browser, base, rate):
                results["runs"].append({"cpu": label, "rate": rate, **row})
        browser.close()
    OUT.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print("to heatmap: from the press to the first frame after it; Python: the call of explore() "
          "(with the weights' first read when cold or cached); start: Python up / model files in / "
          "NumPy and the package imported (s, overlapping)")
    print(f"{'CPU':<14} {'tokens':>6} {'state':<7} {'to heatmap':>11} {'Python':>8} {'view':>7} {'MB sent':>8}  "
          "start, or the warm-up before the press")
    for r in results["runs"]:
        st = r["start_ms"]
        start = (f"{st['python'] / 1e3:.1f} / {st['model'] / 1e3:.1f} / {st['define'] / 1e3:.1f}"
                 if st else "-")
        if r.get("warm_up_s") is not None:
            start = f"warm-up {r['warm_up_s']:.1f} s before the press"

        print(f"{r['cpu']:<14} {r['tokens']:>6} {r['state']:<7} {r['seconds']:>10.3f}s {r['python_s']:>7.3f}s "
              f"{r['view_s']:>6.3f}s {r['bytes'] / 1e6:>8.2f}  {start}")
    cold = next(r for r in results["runs"] if r["state"] == "cold")
    print("bytes of a cold Compute, per file:")
    for name, size in sorted(cold["files"].items(), key=lambda kv: -kv[1]):
        print(f"  {size:>12,}  {name}")
    for n, target in TARGETS_S.items():
        warm = next(r for r in results["runs"] if r["state"] == "warm" and r["tokens"] == n and r["rate"] == 1)
        verdict = "meets" if warm["seconds"] <= target else "MISSES"
        print(f"warm, desktop, {n} tokens: {warm['seconds']:.3f} s, {verdict} the target of {target} s")
    print(f"written: {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
