"""What a reader walk at 1366 and 390 px, in light and dark mode, found in the labs, and must not find again.

Each test opens the page at one width, chooses the mode from the theme menu
as a reader does (a click on a desktop, a tap on a phone), and checks:

* the theme menu closes after the choice (on a phone it stayed open over the
  page title: the theme shows it on :hover, and a touch screen keeps the last
  tap as the hover);
* the mask lab's toggle says which mask is on once a cell is pressed
  ("custom", not "off"), and its table is one Tab stop;
* the three moves: at the blend, no word's name crosses the dashed path or
  the star;
* the cost grid at n = 30: every row and every column of cells is as many
  device pixels high and wide as the others (they aliased into uneven rows).
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.browser.conftest import perform

pytestmark = pytest.mark.browser

WIDTHS = {1366: {"viewport": {"width": 1366, "height": 900}},
          390: {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True,
                "has_touch": True}}
MENU = ".bd-header-article .theme-switch-container"


def choose(pg, mode: str, how: str) -> None:
    """Choose ``mode`` from the theme menu; the menu must close after the choice."""
    perform(pg, pg.locator(MENU), [("click", ".theme-switch-button"),
                                   ("click", f".theme-change-button[data-mode={mode}]")], how=how)
    assert pg.evaluate("document.documentElement.dataset.theme") == mode
    if how == "mouse":
        pg.mouse.move(1, 400)   # a mouse leaves the menu; a finger stays where it tapped
    assert pg.locator(f"{MENU} .dropdown-menu").is_hidden(), "the theme menu stayed open after a choice"


@pytest.fixture(params=[(w, m) for w in WIDTHS for m in ("light", "dark")], ids=lambda p: f"{p[0]}px-{p[1]}")
def reader(tabs, site_url, request):
    """Open a page at one width and choose the mode from the theme menu; yield ``open(page_path)``."""
    width, mode = request.param
    pg = tabs.open(**WIDTHS[width])
    how = "touch" if width < 500 else "mouse"

    def open_page(page_path: str, ready: str):
        pg.goto(f"{site_url}/{page_path}")
        pg.wait_for_selector(ready)
        choose(pg, mode, how)
        return pg

    pg.how, pg.width, pg.mode = how, width, mode
    yield open_page
    assert pg.watch.console_errors == [] and pg.watch.foreign == []


def test_the_theme_menu_closes_after_a_choice_and_leaves_the_title_readable(reader):
    pg = reader("causal-masking.html", "#mask-lab.sa-lab-ready")
    choose(pg, "dark" if pg.mode == "light" else "light", pg.how)   # and a second choice
    choose(pg, pg.mode, pg.how)
    # Nothing lies over the page title: the element at its middle is the title itself.
    assert pg.evaluate("""() => { const h = document.querySelector("article h1"); const r = h.getBoundingClientRect();
        return h.contains(document.elementFromPoint(r.left + Math.min(r.width, 300) / 2, r.top + r.height / 2)); }""")


def test_the_mask_toggle_says_custom_and_the_table_is_one_tab_stop(reader):
    pg = reader("causal-masking.html", "#mask-lab.sa-lab-ready .sa-mask-cell")
    lab = pg.locator("#mask-lab")
    toggle = lab.locator("button[data-action=causal]")
    assert (toggle.text_content(), toggle.get_attribute("aria-pressed")) == ("Causal mask: on", "true")
    perform(pg, lab, [("click", '.sa-mask-cell[data-row="2"][data-col="0"]')], how=pg.how)
    assert (toggle.text_content(), toggle.get_attribute("aria-pressed")) == ("Causal mask: custom", "mixed")
    assert lab.locator('.sa-mask-cell[data-row="0"][data-col="2"]').get_attribute("data-allowed") == "false"
    perform(pg, lab, [("click", "button[data-action=causal]")], how=pg.how)
    assert toggle.text_content() == "Causal mask: on"
    perform(pg, lab, [("click", "button[data-action=causal]")], how=pg.how)
    assert toggle.text_content() == "Causal mask: off"
    assert lab.evaluate("root => [...root.querySelectorAll('.sa-mask-cell')].filter(c => c.tabIndex >= 0).length") == 1
    assert pg.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


CROSSINGS = """root => {
  const svg = root.querySelector("svg"); const m = svg.getScreenCTM();
  const screen = (x, y) => { const p = new DOMPoint(x, y).matrixTransform(m); return [p.x, p.y]; };
  const inside = ([x, y], r) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
  const pts = [];
  for (const l of root.querySelectorAll(".sa-moves-piece")) {
    const [x1, y1, x2, y2] = ["x1", "y1", "x2", "y2"].map(a => +l.getAttribute(a));
    for (let t = 0; t <= 1; t += 1 / 64) pts.push(screen(x1 + t * (x2 - x1), y1 + t * (y2 - y1)));
  }
  const star = root.querySelector(".sa-moves-star").getBoundingClientRect();
  const box = svg.getBoundingClientRect();
  return [...root.querySelectorAll(".sa-moves-labels text")].map(t => { const r = t.getBoundingClientRect();
    return {word: t.textContent, crossed: pts.some(p => inside(p, r)),
            star: r.left < star.right && r.right > star.left && r.top < star.bottom && r.bottom > star.top,
            inside: r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1
                    && r.bottom <= box.bottom + 1}; });
}"""


def test_at_the_blend_no_name_crosses_the_dashed_path(reader):
    pg = reader("words-are-islands.html", "#moves-lab.sa-lab-ready .sa-moves-table")
    lab = pg.locator("#moves-lab")
    perform(pg, lab, [("click-enabled", "button[data-action=next]")] * 2, how=pg.how)
    assert lab.get_attribute("data-move") == "2"
    names = lab.evaluate(CROSSINGS)
    assert [n["word"] for n in names] == ["cat", "dog", "car"]
    assert [n for n in names if n["crossed"] or n["star"] or not n["inside"]] == []


def runs(flags) -> list[int]:
    """Lengths of the runs of True."""
    out, cur = [], 0
    for f in flags:
        if f:
            cur += 1
        elif cur:
            out.append(cur)
            cur = 0
    return out + ([cur] if cur else [])


def test_the_cost_grid_has_even_rows_and_columns_at_n_30(reader):
    pg = reader("the-cost-of-full-context.html", "#grid-lab.sa-lab-ready [data-count]")
    lab = pg.locator("#grid-lab")
    perform(pg, lab, [("fill", "input[type=range]", 30)])
    cells = lab.locator("rect.sa-grid-cells")
    cells.scroll_into_view_if_needed()
    img = Image.open(io.BytesIO(cells.screenshot(animations="disabled"))).convert("RGB")
    w, h = img.size
    sky = (0x56, 0xB4, 0xE9)   # the cells' colour (grid.css), the same in both modes
    near = lambda p: sum(abs(a - b) for a, b in zip(p, sky)) < 60  # noqa: E731
    rows = runs(near(img.getpixel((int(0.75 * w), y))) for y in range(h))       # down the unshaded columns
    cols = runs(near(img.getpixel((x, int(0.75 * h)))) for x in range(w))       # across the unshaded rows
    assert len(rows) == len(cols) == 30
    assert len(set(rows[1:-1])) == 1 and len(set(cols[1:-1])) == 1, (rows, cols)
