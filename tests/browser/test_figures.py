"""Every figure's text is at least 11 px high as a reader sees it, on a desktop and on a phone.

Each figure's PNG records the smallest font it uses, in pixels of the PNG
(``booktools.figures.base.png`` measures every text of the figure as it is
saved: titles, labels, tick labels, legends, notes). The browser shows the
PNG at some width; the text then shows at

    smallest px * (rendered width / natural width)

which must be at least 11, at 1366 and at 390 px wide, in every page, with
every fold and dropdown open. The PNG also records the texts that were cut
at the figure's edge or crowded each other when it was drawn
(``booktools.pngfile.cut_texts``, measured in Python): there must be none.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlparse

import pytest
from PIL import Image

from booktools.figures.base import CUT_TEXT_KEY, SMALLEST_TEXT_KEY

pytestmark = pytest.mark.browser

OPEN_EVERYTHING = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.sa-fold-bar button').forEach(b => b.click());
  document.querySelectorAll('button.toggle-button').forEach(b => {
    if (b.getAttribute('aria-expanded') === 'false') b.click();
  });
}"""

# Figures load lazily (booksite.sphinxext.BookHTMLTranslator): load them all, as a reader's scroll would.
LOAD_IMAGES = """async () => {
  const images = [...document.images];
  for (const img of images) img.loading = "eager";
  await Promise.all(images.map((img) => img.complete ? null
    : new Promise((done) => { img.addEventListener("load", done); img.addEventListener("error", done); })));
}"""

FIGURES = """() => [...document.querySelectorAll('main img, article img')].map(img => ({
  src: img.currentSrc || img.src, natural: img.naturalWidth, shown: img.getBoundingClientRect().width}))"""


def pages(built_book):
    """Every page at the top of the build but a moved page's forward (a meta refresh, no figures)."""
    return sorted(str(p.relative_to(built_book)) for p in built_book.glob("*.html")
                  if 'http-equiv="refresh"' not in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("width, height", [(1366, 900), (390, 844)])
def test_every_figure_shows_text_of_at_least_11_px(browser, site_url, built_book, width, height):
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=width < 500,
                                  is_mobile=width < 500)
    page = context.new_page()
    measured, small, cut = [], [], []
    try:
        for path in pages(built_book):
            page.goto(f"{site_url}/{path}")
            page.evaluate(OPEN_EVERYTHING)
            page.evaluate(LOAD_IMAGES)
            page.wait_for_timeout(100)
            for fig in page.evaluate(FIGURES):
                url = urlparse(urljoin(f"{site_url}/{path}", fig["src"]))
                if "/_static/" in url.path:
                    continue  # the theme's own images (logo), not figures
                with Image.open(built_book / url.path.lstrip("/")) as im:
                    assert SMALLEST_TEXT_KEY in im.text, f"{path}: {url.path} does not record its smallest text"
                    px = float(im.text[SMALLEST_TEXT_KEY])
                    assert im.width == fig["natural"]
                    if im.text.get(CUT_TEXT_KEY, "missing"):
                        cut.append((path, url.path.rsplit("/", 1)[-1], im.text.get(CUT_TEXT_KEY, "missing")))
                assert fig["shown"] > 0, f"{path}: {url.path} is not shown"
                shown = px * fig["shown"] / fig["natural"]
                measured.append(shown)
                if shown < 11:
                    small.append((path, url.path.rsplit("/", 1)[-1], round(shown, 1)))
    finally:
        context.close()
    assert len(measured) >= 8, "the book has fewer figures than it should"
    assert small == [], f"figure text under 11 px at {width} px wide: {small}"
    assert cut == [], f"figure text cut or crowded: {cut}"
