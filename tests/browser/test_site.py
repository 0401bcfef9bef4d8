"""Crawl every built page in Chromium: offline, error-free, accessible, light.

The list of pages comes from the build output. For each page, in light and in
dark mode, with every dropdown and fold open, the crawl checks:

* no request to another host, no console error, no CSP violation;
* every image has meaningful alt text; no math left raw or in error;
* axe-core finds no critical and no serious violation;
* the page's own weight (its HTML and images) is under the budget.

It also writes a report, ``_build/site-report.md``, with one row per page.

viewcode's source pages (``_modules/``, about 75, one per module that made a
figure or a lab or that the API pages document) are pages of the book too,
linked from every "Made by" line. They share one template, so the crawl
visits each of them once, in light mode, in one browser context (axe is the
time a visit takes); the dark crawl takes two of them along: the module list
and one module's source.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.browser.conftest import PageWatch

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"
WEIGHT_BUDGET_KB = 600
REPORT: dict[str, dict] = {}

# Formulas are MathML written at build time (booksite.mathml): no script renders them.
RAW_MATH = """() => Array.from(document.querySelectorAll('.math'))
  .filter(el => !el.querySelector('math'))
  .map(el => el.textContent.slice(0, 60))"""

OPEN_EVERYTHING = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.sa-fold-bar button').forEach(b => b.click());
  document.querySelectorAll('button.toggle-button').forEach(b => {
    if (b.getAttribute('aria-expanded') === 'false') b.click();
  });
}"""

IMAGES = """() => Array.from(document.querySelectorAll('main img, article img')).map(img => ({
  src: img.getAttribute('src'), alt: (img.getAttribute('alt') || '').trim()
}))"""

CSP_LISTENER = """window.__cspViolations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"""


#: The source pages that the dark crawl visits as well: the list of modules and one module's code.
SOURCE_PAGES_IN_DARK = ("_modules/index.html", "_modules/selfattention/attention.html")


def site_pages(built_book: Path) -> list[str]:
    """Every HTML page of the build but viewcode's source pages, from the build output itself."""
    return sorted(
        str(p.relative_to(built_book)) for p in built_book.rglob("*.html")
        if not p.relative_to(built_book).parts[0].startswith("_")
    )


def source_pages(built_book: Path) -> list[str]:
    """viewcode's source pages, ``_modules/**.html``: with :func:`site_pages`, every HTML file of the
    build but the theme's template fragments in ``_static/``."""
    return sorted(str(p.relative_to(built_book)) for p in (built_book / "_modules").rglob("*.html"))


def meaningful_alt(alt: str) -> bool:
    """Alt text that says something: not empty, not a file name or a hash."""
    if len(alt) < 8:
        return False
    if re.search(r"\.(png|jpe?g|svg|gif|webp)\b", alt, re.I) or re.fullmatch(r"[0-9a-f]{16,}", alt):
        return False
    return alt.lower() not in {"image", "figure", "plot", "output", "png"}


def page_weight_kb(built_book: Path, page_path: str, html: str) -> float:
    """Size of the page's HTML plus the images it shows (not shared assets)."""
    total = (built_book / page_path).stat().st_size
    base = (built_book / page_path).parent
    for src in set(re.findall(r'<img[^>]+src="([^"]+)"', html)):
        if src.startswith(("data:", "http")) or "_static/" in src:
            continue
        f = (base / src.split("?")[0]).resolve()
        if f.exists():
            total += f.stat().st_size
    return total / 1024


@pytest.fixture(scope="module")
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_every_page_is_offline_clean_accessible_and_light(browser, site_url, built_book,
                                                         axe_source, mode):
    pages = site_pages(built_book)
    assert "index.html" in pages and "weighted-average.html" in pages
    if mode == "dark":
        pages += list(SOURCE_PAGES_IN_DARK)
    problems = []
    for site_page in pages:
        problems += [f"{site_page} ({mode}): {p}" for p in
                     crawl(browser, site_url, built_book, axe_source, site_page, mode)]
    assert problems == [], "\n".join(problems)


def test_every_source_page_is_offline_clean_and_accessible(browser, site_url, built_book, axe_source):
    """viewcode's ``_modules/`` pages, each once, in light mode, in one context."""
    pages = source_pages(built_book)
    assert set(SOURCE_PAGES_IN_DARK) <= set(pages) and len(pages) > 20, pages[:5]
    context = colour_context(browser, "light")
    problems = []
    try:
        for site_page in pages:
            problems += [f"{site_page} (light): {p}" for p in
                         crawl(browser, site_url, built_book, axe_source, site_page, "light", context)]
    finally:
        context.close()
    assert problems == [], "\n".join(problems)


def colour_context(browser, mode):
    """A browser context whose pages open in ``mode`` and record CSP violations."""
    context = browser.new_context(color_scheme=mode)
    context.add_init_script(
        f"try {{ localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}'); }} catch (e) {{}}"
    )
    context.add_init_script(CSP_LISTENER)
    return context


def crawl(browser, site_url, built_book, axe_source, site_page, mode, context=None) -> list[str]:
    """Open one page in one colour mode (in its own context, or a page of ``context``); return what
    is wrong with it."""
    own = context is None
    context = colour_context(browser, mode) if own else context
    page = context.new_page()
    watch = PageWatch(page, site_url)
    problems = []
    try:
        page.goto(f"{site_url}/{site_page}", wait_until="networkidle")
        theme = page.evaluate("document.documentElement.dataset.theme")
        if theme != mode:
            problems.append(f"theme is {theme!r}, not {mode!r}")
        page.evaluate(OPEN_EVERYTHING)
        # Blocks that scroll sideways become tab stops in idle slices (_static/sa/scrollables.js).
        page.wait_for_timeout(200)
        page.wait_for_function("() => document.documentElement.dataset.saScrollables !== 'marking'")
        raw_math = page.evaluate(RAW_MATH)
        math_errors = page.locator(".math code, math merror").count()
        images = page.evaluate(IMAGES)
        bad_alt = [i["src"] for i in images if not meaningful_alt(i["alt"])]
        csp = page.evaluate("window.__cspViolations")
        page.evaluate(axe_source)  # through the DevTools protocol: not subject to the page's CSP
        axe = page.evaluate("""async () => {
            const r = await axe.run(document, {resultTypes: ['violations']});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
        }""")
        html = (built_book / site_page).read_text(encoding="utf-8")
        weight = page_weight_kb(built_book, site_page, html)
        impacts = {k: sum(1 for v in axe if v["impact"] == k)
                   for k in ("critical", "serious", "moderate", "minor")}
        REPORT[f"{site_page} ({mode})"] = {
            "foreign": len(watch.foreign), "console_errors": len(watch.console_errors),
            "axe": impacts, "weight_kb": round(weight, 1),
            "axe_ids": sorted({f"{v['impact']}:{v['id']}" for v in axe}),
        }
        _write_report()
        if watch.foreign:
            problems.append(f"requests to other hosts: {watch.foreign}")
        if watch.console_errors:
            problems.append(f"console errors: {watch.console_errors}")
        if csp:
            problems.append(f"CSP violations: {csp}")
        if raw_math or math_errors:
            problems.append(f"math left raw {raw_math} or in error ({math_errors})")
        if bad_alt:
            problems.append(f"images without meaningful alt text: {bad_alt}")
        if axe:  # every impact, moderate and minor too (heading order is "moderate")
            problems.append("axe violations: " + json.dumps(axe))
        if weight >= WEIGHT_BUDGET_KB:
            problems.append(f"weighs {weight:.0f} KB (budget {WEIGHT_BUDGET_KB} KB)")
        problems += zoomed_overflow(page)
    finally:
        page.close()
        if own:
            context.close()
    return problems


ZOOM_OVERFLOW = """() => {
  const article = document.querySelector('article.bd-article');
  if (!article) return [];
  const right = article.getBoundingClientRect().right + 2;
  return Array.from(article.querySelectorAll('img, svg.sa-plane, .sa-lab'))
    .filter(el => el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().right > right)
    .map(el => el.getAttribute('src') || el.className.baseVal || el.className);
}"""


def zoomed_overflow(page) -> list[str]:
    """At 200% zoom a 1280-pixel window is 640 CSS pixels wide: figures and labs must fit."""
    page.set_viewport_size({"width": 640, "height": 720})
    page.wait_for_timeout(100)
    wide = page.evaluate(ZOOM_OVERFLOW)
    return [f"at 200% zoom these overflow the text column: {wide}"] if wide else []


def _write_report() -> None:
    lines = ["| page | other hosts | console errors | axe critical/serious/moderate/minor "
             "| axe rules | weight KB |", "|---|---:|---:|---|---|---:|"]
    for name, r in sorted(REPORT.items()):
        a = r["axe"]
        lines.append(f"| {name} | {r['foreign']} | {r['console_errors']} | "
                     f"{a['critical']}/{a['serious']}/{a['moderate']}/{a['minor']} | "
                     f"{', '.join(r['axe_ids'])} | {r['weight_kb']} |")
    out = ROOT / "_build" / "site-report.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
