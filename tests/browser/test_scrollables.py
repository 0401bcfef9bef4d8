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


def resize_to_desk(page) -> None:
    """Widen the page to 1366 px and wait until the blocks are marked again.

    The page says "resized" from its resize event until the pass after it starts. The event comes
    with the next frame, so the test waits two frames before it waits for "marked" (a fixed wait
    of 400 ms was too short on a loaded machine: the load's "marked" was taken for the new one).
    """
    page.set_viewport_size({"width": 1366, "height": 900})
    page.wait_for_function("() => innerWidth === 1366")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    marked(page)


@pytest.mark.parametrize("path", PAGES)
def test_every_block_that_scrolls_is_a_tab_stop_on_a_phone_and_after_a_resize(tabs, path):
    page = open_page(tabs, path, **PHONE)
    marked(page)
    assert page.evaluate("document.documentElement.dataset.saThemeTabStops") == "taken-over"
    assert page.evaluate(SCROLLING) > 0   # on a phone, some code is wider than the screen
    assert page.evaluate(MISMARKED) == []
    resize_to_desk(page)
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


#: Blocks whose content is wider than their box and that scroll sideways, with the cue each shows (W3 #20).
SIDEWAYS = """() => [...document.querySelectorAll(
    "pre, .cell_output > .output, .pst-scrollable-table-container, div.math, .sa-scroll-x")]
  .map(el => { const s = getComputedStyle(el);
    return {wide: el.scrollWidth > el.clientWidth && (s.overflowX === "auto" || s.overflowX === "scroll"),
            more: el.dataset.saMore ?? null, mask: s.maskImage}; })"""


def cue_of(locator) -> str | None:
    return locator.evaluate("el => el.dataset.saMore ?? null")


def scroll_to(page, locator, where: str, cue: str) -> None:
    """Scroll ``locator`` sideways (start, middle or end) and wait for its cue to say ``cue``."""
    locator.evaluate("""(el, where) => { el.scrollLeft = where === "start" ? 0
        : where === "end" ? el.scrollWidth : (el.scrollWidth - el.clientWidth) / 2; }""", where)
    page.wait_for_function("([el, cue]) => el.dataset.saMore === cue", arg=[locator.element_handle(), cue])


@pytest.mark.parametrize("path", ["api.html", "attention-in-a-real-model.html"])
def test_a_block_that_scrolls_sideways_fades_the_side_that_hides_more(tabs, path):
    page = open_page(tabs, path, **PHONE)
    marked(page)
    blocks = page.evaluate(SIDEWAYS)
    assert any(b["wide"] for b in blocks)   # on a phone, some code is wider than the screen
    assert [b for b in blocks if b["wide"] != (b["more"] is not None)] == []
    assert all(b["mask"] != "none" for b in blocks if b["wide"])
    first = page.locator("pre[data-sa-more]").first
    assert cue_of(first) == "right"
    scroll_to(page, first, "middle", "both")
    scroll_to(page, first, "end", "left")
    scroll_to(page, first, "start", "right")
    # With the keyboard's focus on it, the fade gives way to the focus ring, which it would hide.
    first.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert first.evaluate("el => document.activeElement === el && getComputedStyle(el).maskImage") == "none"
    resize_to_desk(page)
    blocks = page.evaluate(SIDEWAYS)
    assert [b for b in blocks if b["wide"] != (b["more"] is not None)] == []


def test_a_lab_box_is_marked_again_when_the_lab_draws_it_again(tabs):
    """The explorer's heatmap, wider than a phone for a long sentence, fits it for a short one."""
    page = open_page(tabs, "attention-in-a-real-model.html", **PHONE)
    marked(page)
    lab = page.locator("#explorer-lab")
    heatmap = lab.locator(".sa-ex-grid-wrap")
    sentences = lab.locator("select.sa-ex-sentence")
    options = sentences.evaluate("s => [...s.options].map(o => [o.value, o.textContent.length])")
    longest, shortest = max(options, key=lambda o: o[1])[0], min(options, key=lambda o: o[1])[0]
    sentences.select_option(longest)
    page.wait_for_function("el => el.dataset.saMore === 'right'", arg=heatmap.element_handle())
    sentences.select_option(shortest)
    page.wait_for_function("el => el.scrollWidth <= el.clientWidth && el.dataset.saMore === undefined",
                           arg=heatmap.element_handle())
    assert heatmap.get_attribute("tabindex") == "0"   # its own tab stop, which it keeps
