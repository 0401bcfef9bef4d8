"""The "several-heads" lab shows the package's weights and output, whatever h, head and box are chosen.

The expected values are computed here from the lab's own configuration in
the built page (``booktools.labs.several_heads``, from
``selfattention.multi_head_attention`` and, for the box ticked, from ``h``
separate ``selfattention.attention_head`` calls on the matrices the page
holds; the page ships no test data). Each test state is a number of heads,
a head and the box; they are chosen with the mouse, with the keyboard and by
touch, and the head's table of weights and the joined output must then show
what the package gives.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import lab_fixture, open_lab_page

pytestmark = pytest.mark.browser

PAGE = "several-heads.html"
LAB = "#heads-lab"
READY = f"{LAB}.sa-lab-ready .sa-heads-table td"


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "heads-lab", "several-heads")


# The lab sits in the text that a check folds until it is answered; the fold's button opens it.
MOUNTED = f"{LAB}.sa-lab-ready"


def unfold(page):
    page.wait_for_selector(MOUNTED, state="attached")
    for button in page.locator(".sa-fold-bar button").all():
        if button.is_visible():
            button.click()
    page.wait_for_selector(READY)


@pytest.fixture(scope="module")
def desk(browser, site_url):
    for page in open_lab_page(browser, site_url, PAGE, ".sa-fold-bar button", viewport={"width": 1366, "height": 900}):
        unfold(page)
        yield page


@pytest.fixture(scope="module")
def phone(browser, site_url):
    for page in open_lab_page(browser, site_url, PAGE, ".sa-fold-bar button", viewport={"width": 390, "height": 844},
                              has_touch=True, is_mobile=True):
        unfold(page)
        yield page


def fresh(page):
    page.reload()
    unfold(page)
    lab = page.locator(LAB)
    lab.scroll_into_view_if_needed()
    return lab


def shown(lab) -> dict:
    return lab.evaluate("""root => {
        const cells = (part) => [...root.querySelectorAll(`table[data-table=${part}] tbody tr`)].map(r =>
            [...r.querySelectorAll("td")].map(td => td.textContent));
        return {weights: cells("weights"), output: cells("output"),
                h: root.querySelector("select[data-part=h]").value,
                head: root.querySelector("select[data-part=head]").value};
    }""")


def choose_with_keyboard(page, select, value):
    """Move a focused <select> with the arrow keys until it holds ``value``."""
    select.focus()
    options = select.evaluate("s => [...s.options].map(o => o.value)")
    key = "ArrowDown" if options.index(value) > options.index(select.input_value()) else "ArrowUp"
    for _ in range(8):
        if select.input_value() == value:
            return
        page.keyboard.press(key)
    assert select.input_value() == value


def run_state(page, state, how):
    lab = fresh(page)
    count, head, box = (lab.locator(f"[data-part={p}]") for p in ("h", "head", "projections"))
    if how == "keyboard":
        choose_with_keyboard(page, count, str(state["h"]))
        choose_with_keyboard(page, head, str(state["head"]))
        if state["projections"]:
            box.focus()
            page.keyboard.press("Space")
    else:
        count.select_option(str(state["h"]))
        head.select_option(str(state["head"]))
        if state["projections"]:
            box.tap() if how == "touch" else box.click()
    return lab


def assert_shows(lab, state):
    got, want = shown(lab), state["shown"]
    assert (got["h"], got["head"]) == (str(state["h"]), str(state["head"])), state["name"]
    assert got["weights"] == want["weights"], state["name"]
    assert got["output"] == want["output"], state["name"]


@pytest.mark.parametrize("how", ["mouse", "keyboard"])
def test_the_lab_matches_the_package(desk, fixture, how):
    for state in fixture["states"]:
        assert_shows(run_state(desk, state, how), state)
    assert desk.watch.console_errors == [] and desk.watch.foreign == []


def test_taps_match_the_package(phone, fixture):
    for state in fixture["states"]:
        assert_shows(run_state(phone, state, "touch"), state)
    assert phone.watch.console_errors == []


def test_the_lab_opens_at_the_chapters_h(desk, fixture):
    """The chapter's text and the no-JavaScript line quote h = 2: the lab starts there (reader walk W3 #10)."""
    lab = fresh(desk)
    assert_shows(lab, fixture["opens"])
    assert fixture["opens"]["h"] == 2


def test_the_output_caption_counts_its_heads(desk):
    lab = fresh(desk)
    caption = lab.locator("table[data-table=output] caption")
    lab.locator("[data-part=h]").select_option("1")
    assert caption.text_content().startswith("The one head's output, times W_O:")
    lab.locator("[data-part=h]").select_option("4")
    assert caption.text_content().startswith("The 4 heads' outputs side by side, times W_O:")


def test_the_box_gives_the_same_numbers_and_says_so(desk, fixture):
    lab = fresh(desk)
    lab.locator("[data-part=h]").select_option("2")
    lab.locator("[data-part=head]").select_option("1")
    before = shown(lab)
    lab.locator("[data-part=projections]").click()
    assert shown(lab) == before
    status = lab.locator("[role=status]")
    assert status.get_attribute("aria-live") == "polite"
    assert status.text_content() == ("h = 2, head 1, queries from h projections of the whole word: "
                                     "the same numbers as one W_Q split into columns.")


def test_fewer_heads_keep_a_head_that_exists(desk):
    lab = fresh(desk)
    lab.locator("[data-part=h]").select_option("4")
    lab.locator("[data-part=head]").select_option("3")
    lab.locator("[data-part=h]").select_option("2")
    options = lab.locator("[data-part=head] option").all_text_contents()
    assert options == ["0", "1"] and lab.locator("[data-part=head]").input_value() == "1"


def test_the_lab_fits_a_phone_and_everything_has_a_name(phone, fixture):
    lab = fresh(phone)
    lab.locator("[data-part=h]").select_option("4")
    widths = phone.evaluate("""() => ({page: document.documentElement.scrollWidth, screen: window.innerWidth,
        lab: document.querySelector("#heads-lab").getBoundingClientRect().right})""")
    assert widths["page"] <= widths["screen"] and widths["lab"] <= widths["screen"] + 0.5
    # The four heads' output fits its box: no column is cut at the screen's edge (reader walk W3 #8).
    for box in lab.locator(".sa-heads-scroll").all():
        assert box.evaluate("el => el.scrollWidth <= el.clientWidth"), box.get_attribute("data-part")
    for control in lab.locator("button, select, input").all():
        name = (control.get_attribute("aria-label") or control.text_content() or "").strip()
        labelled = control.evaluate("el => el.labels ? el.labels.length : 0")
        assert name or labelled


def test_a_finger_can_hit_every_control(phone):
    """At least 24 px every way, and 44 px high on a touch screen, counting a control's label (W3 #9)."""
    lab = fresh(phone)
    sizes = lab.evaluate("""root => [...root.querySelectorAll("button, select, input")].map(el => {
        const box = el.getBoundingClientRect();
        const label = el.labels && el.labels.length ? el.labels[0].getBoundingClientRect() : {height: 0};
        return {part: el.dataset.part, width: box.width, height: box.height, tall: Math.max(box.height, label.height)};
    })""")
    assert sizes and all(min(s["width"], s["height"]) >= 24 for s in sizes), sizes
    assert all(s["tall"] >= 44 for s in sizes), sizes
