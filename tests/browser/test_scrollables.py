"""Blocks that scroll sideways are tab stops, on long API pages too, without the theme's one big pass.

``_static/sa/scrollables.js`` takes over the theme's pass (which reads
every block's width at once, and on the API pages lays out each entry that
``content-visibility`` had left unlaid) and marks the blocks in idle slices.
These tests check the result, as the theme would have left it: after the
page has loaded, and again after a resize, every code block, output, table
and display formula that scrolls is a tab stop (``tabindex="0"``) and every
one that does not is not (``-1``). How long it takes is measured by
``make lighthouse``, not here.
"""

from __future__ import annotations

import pytest

from tests.browser.test_devices import PHONE, open_page

pytestmark = pytest.mark.browser

PAGES = ["api.html", "api-model-and-speed.html", "weighted-average.html", "the-cost-of-full-context.html"]

#: A block scrolls along an axis whose content is larger than its box and whose style lets it scroll
#: (display maths is ``overflow-y: hidden``: a formula a few pixels taller than its box does not scroll).
SCROLLS = """el => {
  const s = getComputedStyle(el), free = o => o === "auto" || o === "scroll";
  return (el.scrollWidth > el.clientWidth && free(s.overflowX))
    || (el.scrollHeight > el.clientHeight && free(s.overflowY));
}"""
MISMARKED = f"""() => [...document.querySelectorAll(
    "pre, .cell_output > .output, .pst-scrollable-table-container, div.math")]
  .filter(el => ({SCROLLS})(el) !== (el.tabIndex === 0))
  .map(el => el.tagName + "." + el.className + "#" + (el.id || ""))"""
SCROLLING = """() => [...document.querySelectorAll("pre")]
  .filter(el => el.scrollWidth > el.clientWidth).length"""


def marked(page) -> None:
    page.wait_for_function("() => document.documentElement.dataset.saScrollables === 'marked'", timeout=60_000)


@pytest.mark.parametrize("path", PAGES)
def test_every_block_that_scrolls_is_a_tab_stop_on_a_phone_and_after_a_resize(tabs, path):
    page = open_page(tabs, path, **PHONE)
    marked(page)
    assert page.evaluate("document.documentElement.dataset.saThemeTabStops") == "taken-over"
    assert page.evaluate(SCROLLING) > 0   # on a phone, some code is wider than the screen
    assert page.evaluate(MISMARKED) == []
    page.set_viewport_size({"width": 1366, "height": 900})
    page.wait_for_timeout(400)   # the resize pass starts 300 ms after the last resize
    marked(page)
    assert page.evaluate(MISMARKED) == []
    assert page.watch.console_errors == []


def test_a_block_inside_a_details_that_opens_is_marked(tabs):
    page = open_page(tabs, "attention-in-a-real-model.html", **PHONE)
    marked(page)
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.wait_for_timeout(200)
    marked(page)
    assert page.evaluate(MISMARKED) == []


#: Display formulas that were tab stops although nothing in them scrolls: each is a few pixels
#: taller than its box (reader walk of the second edition), at the desk width and on a phone.
STILL_FORMULAS = {
    "learning-where-to-look.html": ["equation-eq-gradient-step"],
    "why-divide-by-sqrt-dk.html": ["equation-eq-temperature"],
    "one-head-in-code.html": ["equation-eq-shape-rule"],
}
FORMULA_STOPS = """() => [...document.querySelectorAll("div.math")].map(el => ({
  id: el.id, stop: el.tabIndex === 0, wide: el.scrollWidth > el.clientWidth}))"""


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("path", sorted(STILL_FORMULAS))
def test_a_formula_is_a_tab_stop_only_while_it_is_wider_than_its_box(tabs, path, width):
    options = PHONE if width == 390 else {"viewport": {"width": 1366, "height": 900}}
    page = open_page(tabs, path, **options)
    marked(page)
    formulas = page.evaluate(FORMULA_STOPS)
    assert [f["id"] for f in formulas if f["stop"] != f["wide"]] == []
    by_id = {f["id"]: f for f in formulas if f["id"]}
    for formula in STILL_FORMULAS[path]:
        assert not by_id[formula]["stop"], (formula, by_id[formula])
    assert page.evaluate(MISMARKED) == []
