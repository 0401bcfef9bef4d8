"""The "position dial" lab shows the package's three scores for every pair of positions it reaches.

The expected numbers are computed here from the lab's own configuration in
the built page (``booktools.labs.position_dial``, from ``selfattention.rope``
and ``selfattention.sinusoidal_positions``; the page ships no test data), and
compared with what the lab shows, as formatted strings: positions set with
the keyboard, set directly (fill), dragged, tapped, and moved together with
the "move both" buttons, on a laptop (1366 px) and a phone (390 px), in the
light and the dark theme.
"""

from __future__ import annotations

import pytest

from booktools.labs.position_dial import position_dial_note, position_dial_view
from tests.browser.conftest import lab_fixture, open_lab_page, read_config

pytestmark = pytest.mark.browser

PAGE = "where-each-word-stands.html"
LAB = "#position-dial-lab"
WIDTHS = {"laptop": 1366, "phone": 390}


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "position-dial-lab", "position-dial")


@pytest.fixture(scope="module")
def config(built_book) -> dict:
    return read_config(built_book, PAGE, "position-dial-lab")


@pytest.fixture(scope="module", params=list(WIDTHS))
def page(request, browser, site_url):
    """One page load per width for the whole module; each test puts the lab back at its start."""
    yield from open_lab_page(browser, site_url, PAGE, f"{LAB}.sa-lab-ready .sa-pos-score", has_touch=True,
                             viewport={"width": WIDTHS[request.param], "height": 900})


def reset(lab, config):
    m, n = config["start"]
    lab.locator("input[data-which=m]").fill(str(m))
    lab.locator("input[data-which=n]").fill(str(n))


@pytest.fixture
def lab(page, config):
    root = page.locator(LAB)
    root.scroll_into_view_if_needed()
    reset(root, config)
    yield root
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"


def shown(lab) -> dict:
    return lab.evaluate("""root => ({
        m: root.querySelector("output[data-which=m]").textContent,
        n: root.querySelector("output[data-which=n]").textContent,
        distance: root.querySelector(".sa-pos-distance").dataset.distance,
        plain: root.querySelector("[data-score=plain]").textContent,
        added: root.querySelector("[data-score=added]").textContent,
        rope: root.querySelector("[data-score=rope]").textContent})""")


def assert_shows(lab, view):
    got = shown(lab)
    for key in ("m", "n", "distance", "plain", "added", "rope"):
        assert got[key] == view[key], (key, got, view)


def states(fixture, kind):
    found = [s for s in fixture["states"] if s["action"]["kind"] == kind]
    assert found, f"the fixture has no {kind} state"
    return found


def perform(page, lab, config, state):
    reset(lab, config)
    action = state["action"]
    if action["kind"] == "keys":
        lab.locator(f"input[data-which={action['which']}]").focus()
        for key in action["keys"]:
            page.keyboard.press(key)
    elif action["kind"] == "fill":
        lab.locator("input[data-which=m]").fill(str(action["m"]))
        lab.locator("input[data-which=n]").fill(str(action["n"]))
    elif action["kind"] == "both":
        for step in action["presses"]:
            button = lab.locator(f"button[data-move='{step}']")
            if button.is_disabled():
                break
            button.click()


def test_start_keyboard_and_fill_match_the_package(page, lab, fixture, config):
    for state in states(fixture, "initial") + states(fixture, "keys") + states(fixture, "fill"):
        perform(page, lab, config, state)
        assert_shows(lab, state["view"])


def test_moving_both_keeps_the_rope_score_and_changes_the_added_one(page, lab, fixture, config):
    added = set()
    for state in states(fixture, "both"):
        perform(page, lab, config, state)
        assert_shows(lab, state["view"])
        added.add(shown(lab)["added"])
    start = states(fixture, "initial")[0]["view"]
    assert {s["view"]["rope"] for s in states(fixture, "both")} == {start["rope"]}
    assert len(added) > 1
    status = lab.locator("[role=status]")
    assert status.get_attribute("aria-live") == "polite"
    assert "RoPE " + start["rope"] in status.text_content()
    # At the end of the range "move both on" is disabled, not silently ignored.
    assert lab.locator("button[data-move='1']").is_disabled()


def test_the_lab_shows_q_and_k_and_the_division_by_the_root_of_d(lab, config):
    assert lab.locator(".sa-pos-note").text_content() == position_dial_note(config)
    assert lab.locator("thead th").nth(1).text_content() == f"score ÷ √{config['d']}"


def test_dragging_and_tapping_a_slider_match_the_package(page, lab, config):
    slider = lab.locator("input[data-which=m]")
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    seen = []
    for frac in (0.5, 1.05, -0.05, 0.8):
        value = int(slider.input_value())
        thumb = value / config["max"]
        page.mouse.move(box["x"] + 8 + thumb * (box["width"] - 16), y)
        page.mouse.down()
        page.mouse.move(box["x"] + frac * box["width"], y, steps=5)
        page.mouse.up()
        m = int(slider.input_value())
        assert_shows(lab, position_dial_view(config, m, config["start"][1]))
        seen.append(m)
    assert seen[1] == config["max"] and seen[2] == 0 and 0 < seen[0] < seen[3] < config["max"]
    page.touchscreen.tap(box["x"] + 0.3 * box["width"], y)
    m = int(slider.input_value())
    assert m != seen[-1]
    assert_shows(lab, position_dial_view(config, m, config["start"][1]))


def test_focus_names_and_width(page, lab):
    lab.locator("input[data-which=n]").focus()
    page.keyboard.press("Shift+Tab")
    focused = lab.evaluate("""root => { const el = document.activeElement;
        const st = getComputedStyle(el);
        return {range: el.type === "range" && root.contains(el), visible: el.matches(":focus-visible"),
                outline: st.outlineStyle, width: parseFloat(st.outlineWidth)}; }""")
    assert focused["range"] and focused["visible"]
    assert focused["outline"] != "none" and focused["width"] >= 2
    for slider in lab.locator("input[type=range]").all():
        assert slider.evaluate("el => el.labels.length") == 1
    for button in lab.locator("button").all():
        assert button.text_content().strip()
    # Nothing sticks out of the page, and the text stays readable, at this width.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    smallest = lab.evaluate("""root => Math.min(...[...root.querySelectorAll("label, td, th, button, output, p")]
        .map(el => parseFloat(getComputedStyle(el).fontSize)))""")
    assert smallest >= 11
