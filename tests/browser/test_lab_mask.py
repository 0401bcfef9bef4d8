"""The "mask" lab shows the package's masked weights, whatever is pressed and however.

The expected weights are computed here from the lab's own configuration in
the built page (``booktools.labs.mask``, from
``selfattention.scaled_dot_product_attention`` with a boolean mask; the page
ships no test data). Each test state is a list of presses from the start:
the causal toggle, or one cell. They are performed with the mouse, with the
keyboard (Tab, arrow keys, Enter and Space) and by touch, and every cell,
every row sum and the toggle must then show what the package gives. The
toggle says which mask is on: "on" (causal), "off" (none) or "custom". The
table is one Tab stop, with the arrow keys inside (a roving tabindex).
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import lab_fixture, open_lab_page, perform

pytestmark = pytest.mark.browser

PAGE = "causal-masking.html"
LAB = "#mask-lab"
READY = f"{LAB}.sa-lab-ready .sa-mask-cell"
TOGGLE = "button[data-action=causal]"
PRESSED = {"on": "true", "off": "false", "custom": "mixed"}
FOCUSED = "document.activeElement.dataset.row + ',' + document.activeElement.dataset.col"


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "mask-lab", "mask")


@pytest.fixture(scope="module")
def desk(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, READY, viewport={"width": 1366, "height": 900})


@pytest.fixture(scope="module")
def phone(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, READY, viewport={"width": 390, "height": 844},
                             has_touch=True, is_mobile=True)


def fresh(page):
    """The lab back at its start: the page reloaded."""
    page.reload()
    page.wait_for_selector(READY)
    lab = page.locator(LAB)
    lab.scroll_into_view_if_needed()
    return lab


def shown(lab) -> dict:
    return lab.evaluate("""root => {
        const cells = [...root.querySelectorAll(".sa-mask-cell")];
        const n = Math.round(Math.sqrt(cells.length));
        const rows = (f) => Array.from({length: n}, (_, i) => cells.slice(i * n, i * n + n).map(f));
        const toggle = root.querySelector("button[data-action=causal]");
        return {weights: rows(c => c.textContent), allowed: rows(c => c.dataset.allowed === "true"),
                sums: [...root.querySelectorAll("[data-sum]")].map(s => s.textContent),
                pressed: toggle.getAttribute("aria-pressed"), label: toggle.textContent,
                names: cells.map(c => c.getAttribute("aria-label"))};
    }""")


def assert_shows(lab, fixture, state):
    got = shown(lab)
    assert got["weights"] == state["weights"], state["name"]
    assert got["allowed"] == state["allowed"], state["name"]
    assert got["sums"] == state["sums"], state["name"]
    assert got["pressed"] == PRESSED[state["toggle"]], state["name"]
    assert got["label"] == f"Causal mask: {state['toggle']}", state["name"]
    assert (state["toggle"] == "on") == state["causal"]
    tokens = fixture["tokens"]
    n = len(tokens)
    for index, name in enumerate(got["names"]):
        i, j = divmod(index, n)
        word = "open" if state["allowed"][i][j] else "blocked"
        assert name.startswith(f"{tokens[i]} reads {tokens[j]}: {word}, weight {state['weights'][i][j]}.")


def cell_at(i, j):
    return f'.sa-mask-cell[data-row="{i}"][data-col="{j}"]'


def cell(lab, i, j):
    return lab.locator(cell_at(i, j))


def clicks(state) -> list:
    """A state's presses as the shared interpreter's steps."""
    return [("click", TOGGLE if press == "causal" else cell_at(*press)) for press in state["presses"]]


def test_clicks_match_the_package(desk, fixture):
    for state in fixture["states"]:
        lab = fresh(desk)
        perform(desk, lab, clicks(state))
        assert_shows(lab, fixture, state)
    assert desk.watch.console_errors == [] and desk.watch.foreign == []


def test_keyboard_matches_the_package(desk, fixture):
    """Tab from the toggle reaches the table's one Tab stop: the cell focused last (at first 0, 0)."""
    for state in fixture["states"]:
        lab = fresh(desk)
        at = (0, 0)
        for k, press in enumerate(state["presses"]):
            key = "Enter" if k % 2 == 0 else " "
            if press == "causal":
                perform(desk, lab, [("keys", TOGGLE, [key])])
                continue
            perform(desk, lab, [("keys", TOGGLE, ["Tab"])])
            assert desk.evaluate(FOCUSED) == f"{at[0]},{at[1]}"
            i, j = press
            moves = ["ArrowDown" if i > at[0] else "ArrowUp"] * abs(i - at[0]) \
                + ["ArrowRight" if j > at[1] else "ArrowLeft"] * abs(j - at[1])
            perform(desk, lab, [("keys", None, moves)])
            assert desk.evaluate(FOCUSED) == f"{i},{j}"
            perform(desk, lab, [("keys", None, [key])])
            at = (i, j)
        assert_shows(lab, fixture, state)
    assert desk.watch.console_errors == []


def test_the_table_is_one_tab_stop_with_the_arrow_keys_inside(desk, fixture):
    lab = fresh(desk)
    n = len(fixture["tokens"])
    stops = lab.evaluate("root => [...root.querySelectorAll('.sa-mask-cell')].filter(c => c.tabIndex === 0).length")
    assert stops == 1
    perform(desk, lab, [("keys", TOGGLE, ["Tab"])])
    assert desk.evaluate(FOCUSED) == "0,0"
    perform(desk, lab, [("keys", None, ["ArrowDown", "End"])])
    assert desk.evaluate(FOCUSED) == f"1,{n - 1}"
    perform(desk, lab, [("keys", None, ["Home"])])
    assert desk.evaluate(FOCUSED) == "1,0"
    perform(desk, lab, [("keys", None, ["Tab"])])          # one Tab leaves the table
    assert not desk.evaluate("document.activeElement.classList.contains('sa-mask-cell')")
    perform(desk, lab, [("keys", None, ["Shift+Tab"])])    # and comes back to the cell left
    assert desk.evaluate(FOCUSED) == "1,0"
    cell(lab, 2, 1).click()                                 # a click moves the Tab stop too
    assert lab.evaluate("root => [...root.querySelectorAll('.sa-mask-cell')].filter(c => c.tabIndex === 0)"
                        ".map(c => c.dataset.row + ',' + c.dataset.col)") == ["2,1"]
    assert "one Tab stop" in lab.locator(".sa-mask-hint").text_content()


def test_arrow_keys_stop_at_the_edges(desk, fixture):
    lab = fresh(desk)
    n = len(fixture["tokens"])
    cell(lab, 0, 0).focus()
    for key in ("ArrowUp", "ArrowLeft"):
        desk.keyboard.press(key)
        assert desk.evaluate("document.activeElement.dataset.row + document.activeElement.dataset.col") == "00"
    cell(lab, n - 1, n - 1).focus()
    for key in ("ArrowDown", "ArrowRight"):
        desk.keyboard.press(key)
        assert desk.evaluate("document.activeElement.dataset.row") == str(n - 1)
    assert shown(lab)["weights"] == fixture["states"][0]["weights"]  # moving changes nothing


def test_taps_match_the_package(phone, fixture):
    for state in fixture["states"]:
        lab = fresh(phone)
        perform(phone, lab, clicks(state), how="touch")
        assert_shows(lab, fixture, state)
    assert phone.watch.console_errors == []


def test_status_announces_a_row_with_nothing_to_read(desk, fixture):
    state = next(s for s in fixture["states"] if s["name"] == "row 0 fully blocked")
    lab = fresh(desk)
    cell(lab, 0, 0).click()
    status = lab.locator(".sa-mask-status")
    assert status.get_attribute("aria-live") == "polite"
    first = fixture["tokens"][0]
    assert f"{first} reads nothing: every key is blocked, all weights 0." in status.text_content()
    assert state["sums"][0] == shown(lab)["sums"][0]
    assert lab.locator(TOGGLE).text_content() == "Causal mask: custom"
    lab.locator(TOGGLE).click()                               # a custom mask: the toggle puts the causal one on
    assert status.text_content().startswith("Causal mask on")
    lab.locator(TOGGLE).click()
    assert status.text_content().startswith("Causal mask off")


def test_focus_is_visible_and_everything_has_a_name(desk):
    lab = fresh(desk)
    lab.locator("button[data-action=causal]").focus()
    desk.keyboard.press("Tab")
    focused = desk.evaluate("""() => { const el = document.activeElement; const st = getComputedStyle(el);
        return {cell: el.classList.contains("sa-mask-cell"), visible: el.matches(":focus-visible"),
                outline: st.outlineStyle, width: parseFloat(st.outlineWidth)}; }""")
    assert focused["cell"] and focused["visible"] and focused["outline"] != "none" and focused["width"] >= 2
    for button in lab.locator("button").all():
        assert (button.get_attribute("aria-label") or button.text_content()).strip()
    assert lab.locator("caption").text_content().strip()
    assert desk.locator("link[href$='labs/mask.css']").count() == 1
