"""Every page the build writes, loaded once per view, with every page check run on that load.

The list of pages comes from the build output: the book's pages (chapters, API,
index, search, 404 and moved pages) and viewcode's source pages (``_modules/``,
about 75, linked from every "Made by" line). There are three views:

========  ======================  ==========================================
view      window                  pages
========  ======================  ==========================================
light     1366 x 900, light mode  every page
dark      1366 x 900, dark mode   the book's pages, and two source pages (the
                                  module list and one module's code: they
                                  share one template)
phone     390 x 844, touch, light the book's pages, and the source pages
                                  that :func:`phone_sample` picks (the module
                                  list, the longest module name, the longest
                                  line of code: one template makes them all)
========  ======================  ==========================================

Each view is split into shards (:data:`SHARDS`), which the two test workers share
(``SPREAD`` in ``tests/conftest.py``): each
shard opens one browser context (its HTTP cache warm, as a reader's is; the
storage is emptied before every page) and one tab, loads each of its pages once, with
every dropdown and fold open, and runs on that load:

* in every view: no request to another host, no console error, no CSP
  violation, no math left raw or in error, and the colour mode asked for;
* light and dark: meaningful alt text on every image, no axe-core finding of
  any impact, and the page's own weight under the budget (axe-core, most of
  a visit's time, runs on every book page and, of the source pages, on the
  few that together use every highlighting class: :func:`axe_sample`; in dark
  mode its colour rules only, :data:`COLOUR_RULES`, as the rest cannot find
  anything that light mode did not); in light mode (dark
  mode lays a page out the same way) figures and labs inside the text column
  at 200 % zoom (640 px), and figure text of at least 11 px as shown
  (:func:`figure_text_problems`);
* phone: no sideways scroll, table captions inside the screen, figure text
  of at least 11 px as shown, no math or icon script, the script weight under
  its budget, and a meta description.

Every HTML file is loaded at least once (the light view) with every check that
can tell one file from another; where a check can only differ by what one
template is given, a sample stands for the rest: axe-core on source pages (token
colours, :func:`axe_sample`) and the phone's layout of source pages (the widest
name and line, :func:`phone_sample`).

A failure names the page, the view and what is wrong. The crawl also writes a
report, ``_build/site-report.md``, one row per page and view.
"""

from __future__ import annotations

import functools
import html as html_lib
import json
import os
import re
import time
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from PIL import Image

from booktools.figures.base import CUT_TEXT_KEY, SMALLEST_TEXT_KEY
from tests.book.pages import site_html_files
from tests.browser.conftest import PageWatch

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"
WEIGHT_BUDGET_KB = 600
REPORT_DIR = ROOT / "_build" / "site-report"

DESK = {"viewport": {"width": 1366, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
#: view -> (colour mode, window, shards).
VIEWS = {"light": ("light", DESK, 5), "dark": ("dark", DESK, 2), "phone": ("light", PHONE, 2)}
SHARDS = [(view, shard) for view, (_, _, n) in VIEWS.items() for shard in range(n)]

#: The source pages that the dark view visits as well: the list of modules and one module's code.
SOURCE_PAGES_IN_DARK = ("_modules/index.html", "_modules/selfattention/attention.html")

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

# Figures load lazily (booksite.sphinxext.BookHTMLTranslator): load them all, as a reader's scroll would.
LOAD_IMAGES = """async () => {
  const images = [...document.images];
  for (const img of images) img.loading = "eager";
  await Promise.all(images.map((img) => img.complete ? null
    : new Promise((done) => { img.addEventListener("load", done); img.addEventListener("error", done); })));
}"""

FIGURES = """() => [...document.querySelectorAll('main img, article img')].map(img => ({
  src: img.currentSrc || img.src, natural: img.naturalWidth, shown: img.getBoundingClientRect().width}))"""

CAPTIONS = """() => Array.from(document.querySelectorAll('table > caption'))
  .filter(c => c.offsetParent !== null).map(c => {
    const r = c.getBoundingClientRect();
    return {text: c.textContent.trim().slice(0, 40), left: r.left, right: r.right};
  })"""

SCRIPTS_KB = """performance.getEntriesByType('resource')
  .filter(r => new URL(r.name).pathname.endsWith('.js'))
  .reduce((s, r) => s + r.decodedBodySize, 0) / 1024"""

#: What the 200 % zoom check measures: figures, planes and labs in the text column.
ZOOMED = "img, svg.sa-plane, .sa-lab"

ZOOM_OVERFLOW = f"""() => {{
  const article = document.querySelector('article.bd-article');
  if (!article) return [];
  const right = article.getBoundingClientRect().right + 2;
  return Array.from(article.querySelectorAll('{ZOOMED}'))
    .filter(el => el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().right > right)
    .map(el => el.getAttribute('src') || el.className.baseVal || el.className);
}}"""

AXE_RUN = """async (rules) => {
  const options = rules ? {runOnly: rules, resultTypes: ['violations']} : {resultTypes: ['violations']};
  const r = await axe.run(document, options);
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
}"""

#: The axe-core rules that read colours: all that the dark view runs. The theme's dark mode changes
#: colours only (the same HTML; no element of the book is shown in one mode and hidden in the other:
#: :func:`test_no_element_is_shown_in_one_colour_mode_only`), so every other rule finds in dark mode what it
#: found in light mode, where every rule runs on the same pages.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]

TWO_FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
#: Every CSS transition and animation running on the page has finished (or five seconds have passed).
ANIMATIONS_DONE = """() => Promise.race([
  Promise.allSettled(document.getAnimations()
    .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity).map(a => a.finished)),
  new Promise(done => setTimeout(done, 5000))])"""

CSP_LISTENER = """window.__cspViolations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"""


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


def highlight_classes(html: str) -> set[str]:
    """The Pygments classes of a page's code (``<span class="kn">`` and so on): each has its colour.

    Examples
    --------
    >>> sorted(highlight_classes('<span class="kn">import</span> <span class="nn">numpy</span>'))
    ['kn', 'nn']
    """
    return set(re.findall(r'<span class="([a-z0-9]{1,3})">', html))


def axe_sample(built_book: Path) -> set[str]:
    """The source pages on which axe-core runs: the module list and, chosen greedily, the fewest
    modules that together use every highlighting class that any source page uses.

    viewcode makes every source page from one template, so what can differ between two of them, as
    axe sees it, is which token colours they show (the contrast rule). Every other check runs on
    every source page.
    """
    pages = {p: highlight_classes((built_book / p).read_text(encoding="utf-8")) for p in source_pages(built_book)}
    left, chosen = set().union(*pages.values()), {"_modules/index.html"}
    while left:
        best = max(sorted(pages), key=lambda p: len(pages[p] & left))
        chosen.add(best)
        left -= pages[best]
    return chosen


def phone_sample(built_book: Path) -> list[str]:
    """The source pages that the phone view visits: the module list, the module with the longest
    name (its title and breadcrumbs wrap) and the one with the longest line of code (its block scrolls
    inside itself, not the page). What else differs between two source pages is only what one
    template is given, and the light view loads every one of them."""
    pages = source_pages(built_book)

    def longest_line(page: str) -> int:
        html = (built_book / page).read_text(encoding="utf-8")
        code = re.findall(r'<div class="highlight"><pre>(.*?)</pre>', html, re.S)
        return max((len(html_lib.unescape(line)) for block in code
                    for line in re.sub(r"<[^>]+>", "", block).splitlines()), default=0)

    return sorted({"_modules/index.html", max(pages, key=len), max(pages, key=longest_line)})


def view_pages(built_book: Path, view: str) -> list[str]:
    """The pages that ``view`` visits (see the table at the top of this module)."""
    if view == "dark":
        return site_pages(built_book) + list(SOURCE_PAGES_IN_DARK)
    if view == "phone":
        return site_pages(built_book) + phone_sample(built_book)
    return [p.relative_to(built_book).as_posix() for p in site_html_files(built_book)]


def moved(built_book: Path, page: str) -> bool:
    """A moved page's forward (``_redirects.txt``): a meta refresh to its new address, no figures."""
    return 'http-equiv="refresh"' in (built_book / page).read_text(encoding="utf-8")


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


axe_sample = functools.lru_cache(maxsize=1)(axe_sample)   # one choice per run, not one per visit


@pytest.fixture(scope="session")
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


def test_the_views_visit_every_html_file_of_the_build(built_book):
    """Light visits every HTML file that the link test reads (``site_html_files``): the book's pages
    and the source pages, nothing else; dark and phone visit every book page; the shards of a view
    split its pages without a gap or an overlap."""
    everything = set(view_pages(built_book, "light"))
    for view in ("dark", "phone"):
        assert set(site_pages(built_book)) < set(view_pages(built_book, view)) <= everything
    assert len(phone_sample(built_book)) >= 2
    assert {"index.html", "weighted-average.html", "api.html", "genindex.html"} <= everything
    assert set(SOURCE_PAGES_IN_DARK) <= everything and len(source_pages(built_book)) > 20
    sample = axe_sample(built_book)
    every_class = set().union(*(highlight_classes((built_book / p).read_text(encoding="utf-8"))
                                for p in source_pages(built_book)))
    assert len(every_class) > 10 and every_class <= set().union(
        *(highlight_classes((built_book / p).read_text(encoding="utf-8")) for p in sample))
    assert everything == set(site_pages(built_book)) | set(source_pages(built_book))
    for view, (_, _, n) in VIEWS.items():
        pages = view_pages(built_book, view)
        shards = [pages[i::n] for i in range(n)]
        assert sorted(p for s in shards for p in s) == sorted(pages)


@pytest.mark.parametrize("view, shard", SHARDS, ids=[f"{v}-{i + 1}of{VIEWS[v][2]}" for v, i in SHARDS])
def test_every_page_as_a_reader_sees_it(browser, site_url, built_book, axe_source, view, shard):
    mode, window, n = VIEWS[view]
    pages = view_pages(built_book, view)[shard::n]
    context = browser.new_context(color_scheme=mode, **window)
    # A new page starts with empty storage, as in a new context, in the colour mode the theme's menu sets.
    context.add_init_script(
        f"try {{ localStorage.clear(); sessionStorage.clear(); localStorage.setItem('mode', '{mode}'); "
        f"localStorage.setItem('theme', '{mode}'); }} catch (e) {{}}")
    context.add_init_script(CSP_LISTENER)
    page = context.new_page()   # one tab for the whole shard: a new tab costs more than the visit
    watch, inflight = PageWatch(page, site_url), track_requests(page)
    problems, rows = [], {}
    try:
        for path in pages:
            found, row = visit(page, watch, inflight, site_url, built_book, axe_source, path, view)
            problems += [f"{path} ({view}): {p}" for p in found]
            rows[f"{path} ({view})"] = row
    finally:
        context.close()
        write_report(f"{view}-{shard}", rows)
    assert problems == [], "\n".join(problems)


def visit(page, watch, inflight, site_url, built_book, axe_source, path, view) -> tuple[list[str], dict]:
    """Load ``path`` once in ``view`` in the shard's tab; return what is wrong with it and its row of
    the report."""
    mode, window, _ = VIEWS[view]
    if page.viewport_size != window["viewport"]:   # the last visit zoomed
        page.set_viewport_size(window["viewport"])
    del watch.console_errors[:], watch.foreign[:]
    problems: list[str] = []
    row: dict = {}
    forward = moved(built_book, path)
    # A forward's refresh replaces the page at once: wait until the new page is quiet as well.
    page.goto(f"{site_url}/{path}", wait_until="networkidle" if forward else "load")
    # Labs fetch their data after the load; a source page has no lab, so nothing starts after its load.
    settle(page, inflight, quiet_s=0 if path.startswith("_modules/") else 0.1)
    theme = page.evaluate("document.documentElement.dataset.theme")
    if theme != mode:
        problems.append(f"theme is {theme!r}, not {mode!r}")
    if view == "phone":   # what the page itself loads, before any fold opens
        problems += script_problems(page, path)
    page.evaluate(OPEN_EVERYTHING)
    # What opens fades in (the dropdowns' transitions): axe would measure the contrast of text half
    # faded. Blocks that scroll sideways become tab stops in idle slices (_static/sa/scrollables.js),
    # which start within a frame of a fold opening: axe's scrollable-region rule reads them once marked.
    page.evaluate(TWO_FRAMES)
    page.evaluate(ANIMATIONS_DONE)
    page.wait_for_function("() => !['marking', 'resized'].includes(document.documentElement.dataset.saScrollables)")
    settle(page, inflight, quiet_s=0)   # only if opening a fold started a download
    raw_math = page.evaluate(RAW_MATH)
    math_errors = page.locator(".math code, math merror").count()
    if raw_math or math_errors:
        problems.append(f"math left raw {raw_math} or in error ({math_errors})")
    if not forward and view != "dark":   # dark mode lays the page out as light mode does
        problems += figure_text_problems(page, site_url, built_book, path)
    if view == "phone":
        problems += phone_problems(page)
    else:
        found, row = desk_problems(page, built_book, axe_source, path, view)
        problems += found
    csp = page.evaluate("window.__cspViolations")
    if csp:
        problems.append(f"CSP violations: {csp}")
    if watch.foreign:
        problems.append(f"requests to other hosts: {watch.foreign}")
    if watch.console_errors:
        problems.append(f"console errors: {watch.console_errors}")
    row.update({"foreign": len(watch.foreign), "console_errors": len(watch.console_errors)})
    return problems, row


def track_requests(page) -> list[float]:
    """``[requests in flight, time of the last start or end]``, kept up to date while the page lives."""
    state = [0, time.monotonic()]

    def start(_request):
        state[0] += 1
        state[1] = time.monotonic()

    def end(_request):
        state[0] -= 1
        state[1] = time.monotonic()

    page.on("request", start)
    page.on("requestfinished", end)
    page.on("requestfailed", end)
    return state


def settle(page, inflight, quiet_s: float = 0.1, limit_s: float = 20.0) -> None:
    """Wait until no request has been in flight for ``quiet_s`` (the idea of Playwright's
    ``networkidle``, whose fixed 500 ms would be most of a visit): labs that fetch their data draw."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if inflight[0] <= 0 and time.monotonic() - inflight[1] >= quiet_s:
            return
        page.wait_for_timeout(50)


def script_problems(page, path) -> list[str]:
    """No math or icon script or font, the scripts under their budget, a meta description."""
    problems = []
    urls = page.evaluate("performance.getEntriesByType('resource').map(r => r.name)")
    heavy = [u for u in urls if "fontawesome" in u or "mathjax" in u.lower() or "webfonts" in u]
    if heavy:
        problems.append(f"loads {heavy}")
    # The search page loads the search index, which grows with the book (262 KB at twelve chapters).
    budget = 400 if path == "search.html" else 250
    scripts_kb = page.evaluate(SCRIPTS_KB)
    if scripts_kb >= budget:
        problems.append(f"runs {scripts_kb:.0f} KB of script (budget {budget} KB)")
    if not path.startswith("_modules/") and path not in ("search.html", "genindex.html"):
        description = page.locator('meta[name="description"]').get_attribute("content")
        if not description or len(description) <= 50:
            problems.append(f"no meta description ({description!r})")
    return problems


def phone_problems(page) -> list[str]:
    """At 390 px nothing scrolls sideways (long API names and index entries wrap) and every table
    caption wraps inside the screen."""
    problems = []
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > 390:
        problems.append(f"{width} px wide on a 390 px phone")
    cut = [c for c in page.evaluate(CAPTIONS) if c["left"] < 0 or c["right"] > 390]
    if cut:
        problems.append(f"captions wider than the phone: {cut}")
    return problems


def desk_problems(page, built_book, axe_source, path, view) -> tuple[list[str], dict]:
    """Alt text, axe-core (every impact: heading order is "moderate"), the page's weight, and the
    text column at 200 % zoom. Resizes the window: the last check of a visit."""
    problems = []
    bad_alt = [i["src"] for i in page.evaluate(IMAGES) if not meaningful_alt(i["alt"])]
    if bad_alt:
        problems.append(f"images without meaningful alt text: {bad_alt}")
    axe, ran = [], not path.startswith("_modules/") or path in axe_sample(built_book)
    if ran:
        page.evaluate(axe_source)  # through the DevTools protocol: not subject to the page's CSP
        axe = page.evaluate(AXE_RUN, COLOUR_RULES if view == "dark" else None)
    if axe:
        problems.append("axe violations: " + json.dumps(axe))
    weight = page_weight_kb(built_book, path, (built_book / path).read_text(encoding="utf-8"))
    if weight >= WEIGHT_BUDGET_KB:
        problems.append(f"weighs {weight:.0f} KB (budget {WEIGHT_BUDGET_KB} KB)")
    # At 200% zoom a 1280-pixel window is 640 CSS pixels wide: figures and labs must fit (in light mode:
    # dark mode lays the page out the same way).
    # (A page with none of them, such as a source page, has nothing to measure: no resize.)
    if view == "light" and page.locator(f"article.bd-article :is({ZOOMED})").count():
        page.set_viewport_size({"width": 640, "height": 720})
        page.evaluate(TWO_FRAMES)   # the labs' resize observers have drawn again
        wide = page.evaluate(ZOOM_OVERFLOW)
        if wide:
            problems.append(f"at 200% zoom these overflow the text column: {wide}")
    row = {"axe": {k: sum(1 for v in axe if v["impact"] == k) for k in ("critical", "serious", "moderate", "minor")}
           if ran else {},   # "-" in the report: axe did not run on this source page
           "axe_ids": sorted({f"{v['impact']}:{v['id']}" for v in axe}), "weight_kb": round(weight, 1)}
    return problems, row


def figure_text_problems(page, site_url, built_book, path) -> list[str]:
    """Every figure's text is at least 11 px high as the reader sees it, and none is cut or crowded.

    Each figure's PNG records the smallest font it uses, in pixels of the PNG
    (``booktools.figures.base.png`` measures every text of the figure as it is
    saved) and the texts that were cut at the figure's edge or crowded each
    other (``booktools.pngfile.cut_texts``). The browser shows the PNG at some
    width; the text then shows at ``smallest px * (rendered width / natural width)``.
    """
    page.evaluate(LOAD_IMAGES)
    page.evaluate(TWO_FRAMES)
    problems = []
    for fig in page.evaluate(FIGURES):
        url = urlparse(urljoin(f"{site_url}/{path}", fig["src"]))
        if "/_static/" in url.path:
            continue  # the theme's own images (logo), not figures
        name = url.path.rsplit("/", 1)[-1]
        with Image.open(built_book / url.path.lstrip("/")) as im:
            if SMALLEST_TEXT_KEY not in im.text:
                problems.append(f"{name} does not record its smallest text")
                continue
            px, natural, cut = float(im.text[SMALLEST_TEXT_KEY]), im.width, im.text.get(CUT_TEXT_KEY, "missing")
        if natural != fig["natural"]:
            problems.append(f"{name} is {fig['natural']} px wide in the browser and {natural} px in its file")
        if cut:
            problems.append(f"{name}: figure text cut or crowded: {cut}")
        if fig["shown"] <= 0:
            problems.append(f"{name} is not shown")
        elif px * fig["shown"] / natural < 11:
            problems.append(f"{name}: figure text {px * fig['shown'] / natural:.1f} px high (at least 11)")
    return problems


def test_no_element_is_shown_in_one_colour_mode_only(built_book):
    """What lets the dark view run only axe-core's colour rules (:data:`COLOUR_RULES`): in the CSS that
    the pages load, a rule that depends on the colour mode and shows or hides something is the theme
    switch's own icon (one per mode, each ``aria-hidden``) or the theme's ``only-dark`` and
    ``only-light`` classes, and no page uses those."""
    mode_rules = [(sel.strip(), body) for path in (built_book / "_static").rglob("*.css")
                  for sel, body in re.findall(r"([^{}]*data-(?:theme|mode)[^{}]*)\{([^}]*)\}",
                                              path.read_text(encoding="utf-8"))]
    shows = [sel for sel, body in mode_rules if re.search(r"\b(display|visibility|opacity)\s*:", body)]
    assert len(mode_rules) > 10 and shows
    assert [sel for sel in shows if not re.search(r"\.theme-switch\b|\.only-(dark|light)\b", sel)] == []
    assert [p for p in site_pages(built_book) if re.search(r'class="[^"]*\bonly-(dark|light)\b',
                                                           (built_book / p).read_text(encoding="utf-8"))] == []


def test_the_book_has_figures_and_table_captions_for_the_crawl_to_measure(built_book):
    """The crawl measures what the pages hold: at least 8 figures and 5 table captions."""
    pages = [(built_book / p).read_text(encoding="utf-8") for p in site_pages(built_book)]
    figures = sum(len(re.findall(r'<img[^>]+src="(?!_static/)[^"]*_images/', html)) for html in pages)
    captions = sum(html.count("<caption") for html in pages)
    assert figures >= 8 and captions >= 5, (figures, captions)


def write_report(name: str, rows: dict) -> None:
    """One shard's rows, then ``_build/site-report.md`` made again from every shard's rows."""
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    (REPORT_DIR / f"{name}.json").write_text(json.dumps(rows, sort_keys=True), encoding="utf-8")
    report = {}
    for part in sorted(REPORT_DIR.glob("*.json")):
        report.update(json.loads(part.read_text(encoding="utf-8")))
    lines = ["| page | other hosts | console errors | axe critical/serious/moderate/minor "
             "| axe rules | weight KB |", "|---|---:|---:|---|---|---:|"]
    for name_, r in sorted(report.items()):
        a = r.get("axe", {})
        axe = "/".join(str(a.get(k, "-")) for k in ("critical", "serious", "moderate", "minor"))
        lines.append(f"| {name_} | {r.get('foreign', '-')} | {r.get('console_errors', '-')} | {axe} | "
                     f"{', '.join(r.get('axe_ids', []))} | {r.get('weight_kb', '-')} |")
    tmp = REPORT_DIR / f".{name}.{os.getpid()}.md"
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(ROOT / "_build" / "site-report.md")   # atomic: two workers may write at once
