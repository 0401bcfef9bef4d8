"""Lighthouse, mobile preset, on every chapter page of the built book (a benchmark, not a test).

Usage: ``python tools/lighthouse.py [--tool DIR] [--html DIR] [--out FILE]``
(``make lighthouse`` installs Lighthouse and runs this).

The built site (``_build/html``) is served on 127.0.0.1 with gzip, as any
static host serves it. Lighthouse runs its default mobile preset (simulated
slow 4G, 4x slower CPU) against each page with Debian's Chromium
(``CHROME_PATH``, default ``/usr/bin/chromium``). The scores and the main
timings go to ``_build/lighthouse.json``; a table is printed. Each page runs
three times (``--runs``) and the run with the median performance score is
kept, since a busy machine slows single runs.

Targets (issue 11): performance >= 0.95 and largest contentful paint <= 2.5 s
on every chapter page; accessibility 1.0; best practices 1.0; SEO >= 0.95.
The script reports; it fails only if Lighthouse itself cannot run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from booksite.serve import GzipHandler, serve

ROOT = Path(__file__).resolve().parents[1]
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TIMINGS = {
    "fcp_s": "first-contentful-paint",
    "lcp_s": "largest-contentful-paint",
    "tbt_ms": "total-blocking-time",
    "cls": "cumulative-layout-shift",
    "si_s": "speed-index",
}
SKIP = {"genindex.html", "search.html"}  # generated index and search: not chapters


def chapter_pages(html: Path) -> list[str]:
    """Every page of the book: the build's top-level HTML files, bar index and search."""
    return sorted(p.name for p in html.glob("*.html") if p.name not in SKIP)


def run_lighthouse(tool: Path, url: str, keep: Path | None = None) -> dict:
    """One Lighthouse run (mobile preset); the parts of its report we keep."""
    exe = tool / "node_modules" / ".bin" / "lighthouse"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [str(exe), url, "--output=json", f"--output-path={out}", "--quiet",
               "--only-categories=" + ",".join(CATEGORIES),
               "--chrome-flags=--headless=new --no-sandbox --disable-gpu"]
        env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
        subprocess.run(cmd, check=True, env=env, timeout=600)
        report = json.loads(out.read_text(encoding="utf-8"))
    if keep is not None:
        keep.parent.mkdir(parents=True, exist_ok=True)
        keep.write_text(json.dumps(report), encoding="utf-8")
    audits = report["audits"]
    row = {c: report["categories"][c]["score"] for c in CATEGORIES}
    for key, audit in TIMINGS.items():
        value = audits[audit].get("numericValue")
        if value is not None and key.endswith("_s"):
            value = value / 1000
        row[key] = None if value is None else round(value, 3)
    row["transfer_kb"] = round(audits["total-byte-weight"]["numericValue"] / 1024, 1)
    row["console_errors"] = [item.get("description", "")[:200]
                             for item in audits["errors-in-console"].get("details", {}).get("items", [])]
    lcp = audits.get("largest-contentful-paint-element", {}).get("details", {}).get("items", [])
    row["lcp_element"] = next((i["items"][0]["node"].get("snippet", "")[:160] for i in lcp
                               if i.get("items") and "node" in i["items"][0]), "")
    row["lcp_phases"] = next((
        {p["phase"]: round(p["timing"]) for p in i["items"] if "phase" in p} for i in lcp
        if i.get("items") and "phase" in i["items"][0]), {})
    row["failed_audits"] = sorted(
        a for c in CATEGORIES if c != "performance"
        for a in (ref["id"] for ref in report["categories"][c]["auditRefs"] if ref.get("weight"))
        if audits[a].get("score") is not None and audits[a]["score"] < 1
        and audits[a].get("scoreDisplayMode") not in ("informative", "manual", "notApplicable")
    )
    return row


def table(results: dict[str, dict]) -> str:
    lines = ["| page | perf | LCP s | FCP s | TBT ms | CLS | a11y | best pr. | SEO | transfer KB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for page, r in results.items():
        lines.append(
            f"| {page} | {r['performance']:.2f} | {r['lcp_s']:.2f} | {r['fcp_s']:.2f} | {r['tbt_ms']:.0f} "
            f"| {r['cls']:.3f} | {r['accessibility']:.2f} | {r['best-practices']:.2f} | {r['seo']:.2f} "
            f"| {r['transfer_kb']:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", type=Path, default=ROOT / "_build" / "lighthouse-tool",
                        help="folder where npm installed lighthouse")
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "lighthouse.json")
    parser.add_argument("--runs", type=int, default=3,
                        help="runs per page; the run with the median performance score is kept")
    parser.add_argument("pages", nargs="*", help="pages to run (default: every chapter page)")
    args = parser.parse_args(argv)
    if not (args.html / "index.html").exists():
        print(f"{args.html} holds no built book: run `make html` first", file=sys.stderr)
        return 2
    pages = args.pages or chapter_pages(args.html)
    results = {}
    with serve(args.html, GzipHandler) as base:
        for page in pages:
            print(f"lighthouse {page} ...", file=sys.stderr, flush=True)
            reports = args.out.parent / "lighthouse-reports"
            runs = sorted((run_lighthouse(args.tool, f"{base}/{page}", reports / f"{Path(page).stem}-{i}.json")
                           for i in range(args.runs)),
                          key=lambda r: r["performance"])
            results[page] = runs[len(runs) // 2]
            results[page]["performance_runs"] = [r["performance"] for r in runs]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(table(results))
    failed = {p: r["failed_audits"] for p, r in results.items() if r["failed_audits"]}
    if failed:
        print("\nAudits below 1 (accessibility, best practices, SEO):")
        for page, ids in failed.items():
            print(f"  {page}: {', '.join(ids)}")
    print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
