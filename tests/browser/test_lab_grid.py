"""The "grid" lab shows the package's count of comparisons for every n it reaches.

The expected counts are computed here from the lab's own configuration in
the built page (``booktools.labs.grid``, from ``selfattention.cost.score_count``;
the page ships no test data), so the lab's JavaScript is checked against the
NumPy package, as formatted
strings, for n set with the keyboard, set directly (fill), dragged with the
mouse, and doubled or halved with the buttons.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import lab_fixture, open_lab_page, perform

pytestmark = pytest.mark.browser

PAGE = "the-cost-of-full-context.html"
LAB = "#grid-lab"


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "grid-lab", "grid")


@pytest.fixture(scope="module")
def page(browser, site_url):
    """One page load for the whole module; each test puts the lab back at its start."""
    yield from open_lab_page(browser, site_url, PAGE, f"{LAB}.sa-lab-ready [data-count]")


@pytest.fixture
def lab(page, fixture):
    root = page.locator(LAB)
    start = next(s for s in fixture["states"] if s["action"]["kind"] == "initial")
    root.locator("input[type=range]").fill(str(start["n"]))
    yield root
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"


def shown(lab) -> dict:
    """What the lab shows: n on the slider, next to it, in the formula, and the count."""
    return lab.evaluate("""root => ({
        value: root.querySelector("input[type=range]").value,
        output: root.querySelector("output").textContent,
        formula: root.querySelector(".sa-grid-formula").textContent,
        count: root.querySelector("[data-count]").textContent,
        n: root.dataset.n,
        label: root.querySelector("svg").getAttribute("aria-label"),
        valuetext: root.querySelector("input[type=range]").getAttribute("aria-valuetext")})""")


def assert_shows(lab, fixture, n):
    got = shown(lab)
    count = fixture["counts"][str(n)]
    assert got["n"] == got["value"] == got["output"] == str(n)
    assert got["formula"] == f"{n} × {n} = "
    assert got["count"] == count
    assert f"{n} rows by {n} columns" in got["label"] and f"{count} in all" in got["label"]
    assert got["valuetext"] == f"{n} tokens: {count} comparisons"


def states(fixture, kind):
    found = [s for s in fixture["states"] if s["action"]["kind"] == kind]
    assert found, f"the fixture has no {kind} state"
    return found


def steps(fixture, state) -> list:
    """The fixture's state as the shared interpreter's steps, from the start."""
    slider = "input[type=range]"
    out = [("fill", slider, states(fixture, "initial")[0]["n"])]
    action = state["action"]
    if action["kind"] == "keys":
        out.append(("keys", slider, action["keys"]))
    elif action["kind"] == "fill":
        out.append(("fill", slider, action["value"]))
    elif action["kind"] == "buttons":
        out += [("click-enabled", f"button[data-action={press}]") for press in action["presses"]]
    return out


def test_start_and_keyboard_match_the_package(page, lab, fixture):
    for state in states(fixture, "initial") + states(fixture, "keys"):
        perform(page, lab, steps(fixture, state))
        assert_shows(lab, fixture, state["n"])
    status = lab.locator(".sa-grid-status")
    assert status.get_attribute("aria-live") == "polite"
    last = states(fixture, "keys")[-1]
    assert status.text_content() == f"{last['n']} tokens: {last['count']} comparisons."


def test_setting_the_value_directly_matches_the_package(page, lab, fixture):
    for state in states(fixture, "fill"):
        perform(page, lab, steps(fixture, state))
        assert_shows(lab, fixture, state["n"])
        assert lab.locator(".sa-grid-status").text_content() == \
            f"{state['n']} tokens: {state['count']} comparisons."


def test_double_and_halve_buttons_match_the_package(page, lab, fixture):
    for state in states(fixture, "buttons"):
        perform(page, lab, steps(fixture, state))
        assert_shows(lab, fixture, state["n"])
    n_max, n_min = fixture["max"], fixture["min"]
    lab.locator("input[type=range]").fill(str(n_max))
    assert lab.locator("button[data-action=double]").is_disabled()
    lab.locator("input[type=range]").fill(str(n_min))
    assert lab.locator("button[data-action=halve]").is_disabled()
    # Doubling quadruples the count, and the shaded quarter is the grid of n / 2.
    lab.locator("button[data-action=double]").click()
    n = 2 * n_min
    assert_shows(lab, fixture, n)
    half = lab.locator(".sa-grid-half").text_content()
    assert f"n / 2 = {n_min} tokens: {fixture['counts'][str(n_min)]} comparisons" in half
    assert lab.locator("rect.sa-grid-quarter").get_attribute("width") != "0"


def test_dragging_the_slider_matches_the_package(page, lab, fixture):
    slider = lab.locator("input[type=range]")
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    seen = []
    for frac in (0.5, 1.05, 0.25, -0.05, 0.8):
        value = int(slider.input_value())
        thumb = (value - fixture["min"]) / (fixture["max"] - fixture["min"])
        page.mouse.move(box["x"] + 8 + thumb * (box["width"] - 16), y)
        page.mouse.down()
        page.mouse.move(box["x"] + frac * box["width"], y, steps=5)
        page.mouse.up()
        n = int(slider.input_value())
        assert_shows(lab, fixture, n)
        seen.append(n)
    assert seen[1] == fixture["max"] and seen[3] == fixture["min"]  # dragged past the ends
    assert fixture["min"] < seen[2] < seen[0] < seen[4] < fixture["max"]


def test_slider_focus_is_visible_and_everything_has_a_name(page, lab):
    lab.locator("button[data-action=halve]").focus()
    page.keyboard.press("Shift+Tab")  # reach the slider by keyboard
    focused = lab.evaluate("""root => { const el = document.activeElement;
        const st = getComputedStyle(el);
        return {range: el.type === "range" && root.contains(el), visible: el.matches(":focus-visible"),
                outline: st.outlineStyle, width: parseFloat(st.outlineWidth)}; }""")
    assert focused["range"] and focused["visible"]
    assert focused["outline"] != "none" and focused["width"] >= 2
    assert lab.locator("input[type=range]").evaluate("el => el.labels.length") == 1
    assert lab.locator("svg").get_attribute("role") == "img"
    for button in lab.locator("button").all():
        assert button.text_content().strip()
    assert page.locator("link[href$='labs/grid.css']").count() == 1
