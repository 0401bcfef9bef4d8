"""The labs' findings of the second edition's reader walk (rows 4, 5, 6, 18 and 19), kept fixed.

* 4: the focus ring inside a lab keeps 3:1 against the lab's background, in light and
  dark mode (``labs/panel.css`` hard-coded the dark mode's orange: 2.25:1 on white);
* 5: a button that disables itself at the end ("Move both on" of the position dial,
  "Next token" of the generation stepper) leaves focus inside the lab, not on ``<body>``;
* 6: at 390 px the generation stepper's whole 6 x 6 table fits its box;
* 18: at 390 px the explorer's placeholder fits its box;
* 19: at 390 px a "Made by" line breaks only after a dot, never inside ``lab()``.

Rows 16 (Run errors) and 17 (the explorer's token limit) are in ``test_run_cells.py`` and
``test_lab_explorer_compute.py``.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

DESK = {"viewport": {"width": 1366, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
LABS = {  # page, lab, a control in it, what shows it is drawn
    "position-dial": ("where-each-word-stands.html", "#position-dial-lab", "button[data-move='1']", ".sa-pos-score"),
    "generation": ("one-word-at-a-time.html", "#gen-lab", "button[data-action=next]", ".sa-gen-cell"),
    "explorer": ("attention-in-a-real-model.html", "#explorer-lab", "button", "table.sa-ex-grid td"),
}


def open_page(tabs, path, mode="light", **options):
    """A new reader's tab (``tabs``) in colour mode ``mode``, as the system and the theme menu set it."""
    return tabs.open(path, mode=mode, color_scheme=mode, **options)


def lab_on(page, name):
    _, lab_id, _, ready = LABS[name]
    page.wait_for_selector(f"{lab_id}.sa-lab-ready {ready}")
    lab = page.locator(lab_id)
    lab.scroll_into_view_if_needed()
    return lab


def luminance(rgb: tuple[float, float, float]) -> float:
    c = [x / 255 for x in rgb]
    c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def contrast(a: str, b: str) -> float:
    """WCAG contrast of two CSS colours ``rgb(r, g, b)``."""
    la, lb = (luminance(tuple(float(x) for x in re.findall(r"[\d.]+", c)[:3])) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


FOCUS = """() => {
  const el = document.activeElement, style = getComputedStyle(el);
  let bg = "rgba(0, 0, 0, 0)";
  for (let n = el.parentElement; n; n = n.parentElement) {
    bg = getComputedStyle(n).backgroundColor;
    if (!/rgba\\(.*, 0\\)$/.test(bg) && bg !== "transparent") break;
  }
  return { ring: style.outlineColor, width: parseFloat(style.outlineWidth), outline: style.outlineStyle,
           bg, visible: el.matches(":focus-visible"), inLab: !!el.closest(".sa-lab") };
}"""


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("name", sorted(LABS))
def test_the_focus_ring_in_a_lab_keeps_3_to_1(tabs, name, mode):
    page = open_page(tabs, LABS[name][0], mode, **DESK)
    lab = lab_on(page, name)
    control = lab.locator(LABS[name][2]).first
    control.focus()
    page.keyboard.press("Shift+Tab")   # from the keyboard, so that the ring is :focus-visible
    page.keyboard.press("Tab")
    ring = page.evaluate(FOCUS)
    assert ring["inLab"] and ring["visible"] and ring["outline"] != "none" and ring["width"] >= 2, ring
    assert contrast(ring["ring"], ring["bg"]) >= 3, ring


@pytest.mark.parametrize("name, steps", [("position-dial", 60), ("generation", 10)])
def test_a_button_that_disables_itself_leaves_focus_in_the_lab(tabs, name, steps):
    page = open_page(tabs, LABS[name][0], **DESK)
    lab = lab_on(page, name)
    button = lab.locator(LABS[name][2])
    button.focus()
    for _ in range(steps):
        if button.is_disabled():
            break
        page.keyboard.press("Enter")
    assert button.is_disabled()
    where = page.evaluate("() => ({tag: document.activeElement.tagName, "
                          "inLab: !!document.activeElement.closest('.sa-lab'), "
                          "text: document.activeElement.textContent})")
    assert where["inLab"] and where["tag"] != "BODY", where
    page.keyboard.press("Enter")   # the button that has focus now works: back one step
    assert not button.is_disabled()


def test_the_generation_table_fits_a_phone_at_the_last_token(tabs):
    page = open_page(tabs, LABS["generation"][0], **PHONE)
    lab = lab_on(page, "generation")
    next_token = lab.locator(LABS["generation"][2])
    while not next_token.is_disabled():
        next_token.tap()
    box = lab.evaluate("""root => { const w = root.querySelector('.sa-gen-wrap');
      const t = w.querySelector('table'), last = t.querySelector('tbody tr:last-child td:last-child');
      return {box: w.clientWidth, content: w.scrollWidth, right: w.getBoundingClientRect().right,
              lastRight: last.getBoundingClientRect().right}; }""")
    assert box["content"] <= box["box"] and box["lastRight"] <= box["right"] + 0.5, box


def test_the_explorer_placeholder_fits_a_phone(tabs):
    page = open_page(tabs, LABS["explorer"][0], **PHONE)
    lab = lab_on(page, "explorer")
    fit = lab.locator("input.sa-ex-text").evaluate("""input => {
      const s = getComputedStyle(input), ctx = document.createElement('canvas').getContext('2d');
      ctx.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      return {text: ctx.measureText(input.placeholder).width, room: input.clientWidth
              - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight), placeholder: input.placeholder}; }""")
    assert fit["placeholder"] and fit["text"] <= fit["room"], fit


@pytest.mark.parametrize("path", ["where-each-word-stands.html", "one-word-at-a-time.html"])
def test_a_made_by_line_breaks_only_after_a_dot_on_a_phone(tabs, path):
    page = open_page(tabs, path, **PHONE)
    page.wait_for_selector("p.sa-made-by code")
    pieces = page.evaluate("""() => [...document.querySelectorAll('p.sa-made-by code')].map(code => ({
      name: code.textContent, breaks: [...code.querySelectorAll('span.pre')]
        .filter(s => s.getClientRects().length > 1).map(s => s.textContent),
      lines: new Set([...code.querySelectorAll('span.pre')]
        .map(s => Math.round(s.getBoundingClientRect().top))).size
    }))""")
    assert pieces and all(p["breaks"] == [] for p in pieces), pieces
    # the test would pass if nothing were long enough to break: one name does take two lines
    assert any(p["lines"] > 1 for p in pieces), pieces
