"""The "mask" lab shows the package's masked weights, whatever is pressed and however.

The expected weights are computed here from the lab's own configuration in
the built page (``booktools.labs.mask``, from
``selfattention.scaled_dot_product_attention`` with a boolean mask; the page
ships no test data). Each test state is a list of presses from the start:
the causal toggle, or one cell. They are performed with the mouse, with the
keyboard (Tab, arrow keys, Enter and Space) and by touch, and every cell,
every row sum and the toggle must then show what the package gives.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import lab_fixture, open_lab_page

pytestmark = pytest.mark.browser

PAGE = "causal-masking.html"
LAB = "#mask-lab"
READY = f"{LAB}.sa-lab-ready .sa-mask-cell"


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
    assert got["pressed"] == ("true" if state["causal"] else "false"), state["name"]
    assert got["label"] == ("Causal mask: on" if state["causal"] else "Causal mask: off")
    tokens = fixture["tokens"]
    n = len(tokens)
    for index, name in enumerate(got["names"]):
        i, j = divmod(index, n)
        word = "open" if state["allowed"][i][j] else "blocked"
        assert name.startswith(f"{tokens[i]} reads {tokens[j]}: {word}, weight {state['weights'][i][j]}.")


def cell(lab, i, j):
    return lab.locator(f'.sa-mask-cell[data-row="{i}"][data-col="{j}"]')


def test_clicks_match_the_package(desk, fixture):
    for state in fixture["states"]:
        lab = fresh(desk)
        for press in state["presses"]:
            (lab.locator("button[data-action=causal]") if press == "causal" else cell(lab, *press)).click()
        assert_shows(lab, fixture, state)
    assert desk.watch.console_errors == [] and desk.watch.foreign == []


def test_keyboard_matches_the_package(desk, fixture):
    for state in fixture["states"]:
        lab = fresh(desk)
        toggle = lab.locator("button[data-action=causal]")
        for k, press in enumerate(state["presses"]):
            key = "Enter" if k % 2 == 0 else " "
            if press == "causal":
                toggle.focus()
                desk.keyboard.press(key)
                continue
            toggle.focus()
            desk.keyboard.press("Tab")  # the first cell follows the toggle in the tab order
            assert desk.evaluate("document.activeElement.dataset.row + ',' + document.activeElement.dataset.col") \
                == "0,0"
            i, j = press
            for _ in range(i):
                desk.keyboard.press("ArrowDown")
            for _ in range(j):
                desk.keyboard.press("ArrowRight")
            assert desk.evaluate("document.activeElement.dataset.row + ',' + document.activeElement.dataset.col") \
                == f"{i},{j}"
            desk.keyboard.press(key)
        assert_shows(lab, fixture, state)
    assert desk.watch.console_errors == []


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
        for press in state["presses"]:
            (lab.locator("button[data-action=causal]") if press == "causal" else cell(lab, *press)).tap()
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
    lab.locator("button[data-action=causal]").click()
    assert status.text_content().startswith("Causal mask on")
    lab.locator("button[data-action=causal]").click()
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
