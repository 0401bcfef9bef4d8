"""Every reader, every device: dark mode, phones, keyboard, and light pages.

Each test drives the built site in Chromium the way a reader meets it:
dark mode chosen from the theme's menu (``localStorage``), a 390 px phone
with touch, the keyboard only. What every page must pass on a phone (no
sideways scroll, captions that wrap, no math script, a description) is
checked by the page crawl, ``tests/browser/test_site.py``, on the one load
of each page at 390 px.
"""

from __future__ import annotations

import pytest

from tests.browser.test_site import OPEN_EVERYTHING

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
CHAPTERS = ["weighted-average.html", "attention-in-a-real-model.html", "the-cost-of-full-context.html"]


def open_page(tabs, path, mode="light", **options):
    """A new reader's tab (``tabs``), the colour mode chosen as the theme menu chooses it."""
    return tabs.open(path, mode=mode, wait_until="networkidle", **options)


# Our boxes, and the text inside them that a reader must be able to read.
OUR_TEXT = """() => {
  const rgba = (s) => { const m = s.match(/[\\d.]+/g).map(Number); return m.length === 3 ? [...m, 1] : m; };
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return [255, 255, 255, 1];
  };
  const boxes = '.sa-check, .sa-skip-test, .sa-fold-bar, .sa-progress, .sa-lab';
  const texts = Array.from(document.querySelectorAll(boxes)).flatMap(box =>
    [box, ...box.querySelectorAll('summary, p, label, legend, span, td, th, dt, dd, button')]);
  return texts.filter(el => el.offsetParent !== null && el.textContent.trim() &&
                            // own words or numbers (a coloured dot is a symbol: 3:1 is enough)
                            Array.from(el.childNodes).some(n => n.nodeType === 3 &&
                                                                /[\\p{L}\\p{N}]/u.test(n.textContent)))
    .map(el => {
      const fg = rgba(getComputedStyle(el).color), bg = background(el);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      return {text: el.textContent.trim().slice(0, 50), ratio: (a + 0.05) / (b + 0.05),
              box: el.closest(boxes).className};
    });
}"""


@pytest.mark.parametrize("path", CHAPTERS)
def test_dark_mode_chosen_in_the_menu_leaves_every_box_of_ours_readable(tabs, path):
    page = open_page(tabs, path, mode="dark")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.evaluate(OPEN_EVERYTHING)
    page.wait_for_timeout(300)
    texts = page.evaluate(OUR_TEXT)
    assert len(texts) > 10, "found none of our boxes to check"
    unreadable = [t for t in texts if t["ratio"] < 4.5]
    assert unreadable == [], f"text in our boxes below 4.5:1 contrast in dark mode: {unreadable[:5]}"
    # The theme's light band behind notebook outputs stays away from our boxes.
    bands = page.evaluate("""() => Array.from(document.querySelectorAll(
        '.cell_output .text_html:has(> .sa-check, > .sa-skip-test, > .sa-lab)'))
        .map(el => getComputedStyle(el).backgroundColor)
        .filter(c => c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent')""")
    assert bands == []
    # The test-data blocks are not shown as thin bars.
    fixtures = page.evaluate("""() => Array.from(document.querySelectorAll('script.sa-fixture'))
        .map(s => s.closest('.cell')).filter(c => c && c.getBoundingClientRect().height > 0).length""")
    assert fixtures == 0


@pytest.mark.parametrize("width", [390, 800])
def test_the_visible_sidebar_button_brings_the_chapter_list_into_view_on_a_phone(tabs, width):
    options = {**PHONE, "viewport": {"width": width, "height": 844}}
    page = open_page(tabs, "weighted-average.html", **options)
    link = page.get_by_role("link", name="The cost of full context")
    assert not link.is_visible()
    toggles = page.locator("button.primary-toggle:visible")
    assert toggles.count() == 1, "exactly one visible button opens the chapter list"
    toggles.first.tap()
    link.wait_for(state="visible", timeout=3000)
    link.scroll_into_view_if_needed()  # fourteen chapters: the list may scroll inside its panel
    box = link.bounding_box()
    assert 0 <= box["x"] and box["x"] + box["width"] <= width and 0 <= box["y"] < 844
    assert page.evaluate("document.getElementById('pst-primary-sidebar-modal').open")
    page.keyboard.press("Escape")
    # The page's own contents (secondary sidebar) open the same way.
    page.locator("button.secondary-toggle:visible").first.tap()
    page.locator("#pst-secondary-sidebar-modal").get_by_role("link", name="Step 1: score every pair") \
        .wait_for(state="visible", timeout=3000)


def test_on_a_wide_screen_the_sidebar_button_hides_and_shows_the_chapter_list(tabs):
    page = open_page(tabs, "weighted-average.html", viewport={"width": 1366, "height": 900})
    link = page.get_by_role("link", name="The cost of full context")
    assert link.is_visible()
    page.locator("button.primary-toggle:visible").click()
    link.wait_for(state="hidden", timeout=3000)
    page.locator("button.primary-toggle:visible").click()
    link.wait_for(state="visible", timeout=3000)


def test_no_formula_is_a_tab_stop(tabs):
    page = open_page(tabs, "the-cost-of-full-context.html", viewport={"width": 1366, "height": 900})
    assert page.locator(".math").count() > 20
    focusable = page.evaluate("""() => Array.from(document.querySelectorAll('.math, .math *'))
        .filter(el => el.tabIndex >= 0).length""")
    assert focusable == 0
    page.evaluate(OPEN_EVERYTHING)
    seen, in_math = 0, []
    for _ in range(400):
        page.keyboard.press("Tab")
        # Each element is marked when first reached: a second visit means Tab has gone round.
        stop = page.evaluate("""() => { const e = document.activeElement;
            if (!e || e === document.body || e.dataset.saTabSeen) return null;
            e.dataset.saTabSeen = "1";
            return [e.tagName + '.' + e.className, !!e.closest('.math, math')]; }""")
        if stop is None:
            break
        seen += 1
        if stop[1]:
            in_math.append(stop[0])
    assert seen > 20 and in_math == []


@pytest.mark.parametrize("selector", ["button.primary-toggle", ".dropdown-download-buttons > button",
                                      "button.theme-switch-button", "button.btn-fullscreen-button"])
def test_header_buttons_show_a_focus_ring(tabs, selector):
    page = open_page(tabs, "weighted-average.html", viewport={"width": 1366, "height": 900})
    target = page.locator(f"{selector}:visible").first
    page.evaluate("el => el.focus()", target.element_handle())  # then move by keyboard: :focus-visible
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    ring = target.evaluate("""el => { const s = getComputedStyle(el);
        return [document.activeElement === el, s.outlineStyle, parseFloat(s.outlineWidth), s.boxShadow]; }""")
    assert ring[0], f"{selector} did not take the focus back"
    assert (ring[1] != "none" and ring[2] >= 2) or ring[3] != "none", f"{selector} shows no focus ring: {ring}"


ACTIVE = """() => { const e = document.activeElement;
  return e === document.body ? 'body' : e.textContent.trim() || e.className; }"""
THEME_MENU = ".theme-switch-container .dropdown-menu"
TOOLTIPS = "() => [...document.querySelectorAll('.tooltip')].filter(t => getComputedStyle(t).display !== 'none').length"


def test_the_colour_menu_works_from_the_keyboard(tabs):
    """Enter opens the menu with focus in it, the arrows move, Enter chooses and focus goes back (W3 #7)."""
    page = open_page(tabs, "weighted-average.html", viewport={"width": 1366, "height": 900})
    button = page.locator("button.theme-switch-button")
    page.evaluate("el => el.focus()", button.element_handle())
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.classList.contains('theme-change-button')")
    assert page.locator(THEME_MENU).evaluate("m => m.classList.contains('show')")
    assert page.evaluate(TOOLTIPS) == 0   # "Color mode" would sit over the first item
    start = page.evaluate(ACTIVE)
    page.keyboard.press("ArrowDown")
    assert page.evaluate(ACTIVE) != start
    while page.evaluate(ACTIVE) != "Dark":
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.classList.contains('theme-switch-button')")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert not page.locator(THEME_MENU).is_visible()
    ring = button.evaluate("el => getComputedStyle(el).outlineStyle")
    assert ring != "none"


def test_a_sidebar_button_keeps_the_focus_when_pressed_with_the_keyboard(tabs):
    page = open_page(tabs, "weighted-average.html", viewport={"width": 1366, "height": 900})
    toggle = page.locator("button.primary-toggle:visible").first
    page.evaluate("el => el.focus()", toggle.element_handle())
    page.keyboard.press("Enter")
    page.wait_for_timeout(100)
    assert toggle.evaluate("el => document.activeElement === el")


def test_the_colour_menu_closes_after_a_choice_with_the_mouse(tabs):
    page = open_page(tabs, "weighted-average.html", viewport={"width": 1366, "height": 900})
    page.locator("button.theme-switch-button").hover()
    menu = page.locator(THEME_MENU)
    menu.wait_for(state="visible")
    assert page.evaluate(TOOLTIPS) == 0
    page.locator(".theme-change-button[data-mode=dark]").click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    menu.wait_for(state="hidden", timeout=2000)   # though the pointer is still over it
    page.mouse.move(5, 600)
    page.locator("button.theme-switch-button").hover()
    menu.wait_for(state="visible")                 # and it opens again on the next visit


def test_no_tooltip_stays_on_a_touch_screen(tabs):
    page = open_page(tabs, "weighted-average.html", **PHONE)
    page.locator("button.theme-switch-button").tap()
    page.locator(".theme-change-button[data-mode=dark]").tap()
    page.wait_for_timeout(800)   # Bootstrap shows a tooltip after the tap, fading in over some 300 ms
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate(TOOLTIPS) == 0


def test_every_copy_button_has_a_name(tabs):
    """sphinx-copybutton's icon buttons are named "Copy", as their tooltip says (W3 #22)."""
    page = open_page(tabs, "one-head-in-code.html", viewport={"width": 1366, "height": 900})
    buttons = page.locator("button.copybtn")
    assert buttons.count() > 3
    assert set(buttons.evaluate_all("bs => bs.map(b => b.getAttribute('aria-label'))")) == {"Copy"}
    assert page.get_by_role("button", name="Copy", exact=True, include_hidden=True).count() == buttons.count()


@pytest.mark.parametrize("path", ["several-heads.html", "the-whole-block.html", "notation.html"])
def test_every_letter_of_every_formula_is_drawn_in_the_books_math_font(tabs, path):
    """An italic h is U+210E, which the font's subset lacked: another font drew it, thin and serif (W3 #12)."""
    page = open_page(tabs, path, viewport={"width": 1366, "height": 900})
    page.evaluate("async () => { await document.fonts.ready; }")
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "math mi, math mn, math mo, math mtext"})
    assert len(nodes["nodeIds"]) > 50
    other = set()
    for node in nodes["nodeIds"]:
        for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
            if font["familyName"] != "Noto Sans Math":
                other.add((font["familyName"], cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"]))
    cdp.detach()
    assert other == set()
