"""The "temperature" lab shows the package's softmax(scores / T) for every T it reaches.

The expected numbers are computed here from the lab's own configuration in
the built page (``booktools.labs.temperature``, from
``selfattention.softmax_with_temperature``; the page ships no test data), and
compared with what the lab shows, as formatted strings: for T set with the
keyboard, set directly (fill), dragged with the mouse, tapped, and chosen with
the preset buttons.
"""

from __future__ import annotations

import pytest

from booktools.labs.temperature import temperature_view
from tests.browser.conftest import lab_fixture, open_lab_page, perform

pytestmark = pytest.mark.browser

PAGE = "why-divide-by-sqrt-dk.html"
LAB = "#temperature-lab"


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "temperature-lab", "temperature")


@pytest.fixture(scope="module")
def config(built_book) -> dict:
    from tests.browser.conftest import read_config

    return read_config(built_book, PAGE, "temperature-lab")


@pytest.fixture(scope="module")
def page(browser, site_url):
    """One page load for the whole module; each test puts the lab back at its start."""
    yield from open_lab_page(browser, site_url, PAGE, f"{LAB}.sa-lab-ready .sa-temp-weight", has_touch=True)


@pytest.fixture
def lab(page, fixture):
    root = page.locator(LAB)
    start = next(s for s in fixture["states"] if s["action"]["kind"] == "initial")
    root.locator("input[type=range]").fill(str(start["t"]))
    yield root
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"


def shown(lab) -> dict:
    return lab.evaluate("""root => ({
        t: root.querySelector("output").textContent,
        divided: [...root.querySelectorAll(".sa-temp-divided")].map(td => td.textContent),
        weights: [...root.querySelectorAll(".sa-temp-weight")].map(td => td.textContent),
        widths: [...root.querySelectorAll(".sa-temp-fill")].map(el => parseFloat(el.style.width)),
        top: root.querySelector("tr.sa-temp-top")?.dataset.word,
        state: Number(root.dataset.t),
        valuetext: root.querySelector("input[type=range]").getAttribute("aria-valuetext")})""")


def assert_shows(lab, view, t=None):
    got = shown(lab)
    assert got["t"] == view["t"]
    assert got["divided"] == view["divided"]
    assert got["weights"] == view["weights"]
    assert got["top"] == view["top"]
    for width, w in zip(got["widths"], view["weight_values"]):
        assert abs(width - 100 * w) < 0.01
    assert got["valuetext"].startswith(f"T = {view['t']}: ")
    if t is not None:
        assert abs(got["state"] - t) < 1e-12, (got["state"], t)


def states(fixture, kind):
    found = [s for s in fixture["states"] if s["action"]["kind"] == kind]
    assert found, f"the fixture has no {kind} state"
    return found


def steps(fixture, state) -> list:
    """The fixture's state as the shared interpreter's steps, from the start."""
    slider = "input[type=range]"
    out = [("fill", slider, states(fixture, "initial")[0]["t"])]
    action = state["action"]
    if action["kind"] == "keys":
        out.append(("keys", slider, action["keys"]))
    elif action["kind"] == "fill":
        out.append(("fill", slider, action["value"]))
    elif action["kind"] == "presets":
        out += [("click", f"button[data-preset={name}]") for name in action["presses"]]
        if action["keys"]:
            out.append(("keys", slider, action["keys"]))
    return out


def test_start_and_keyboard_match_the_package(page, lab, fixture):
    for state in states(fixture, "initial") + states(fixture, "keys"):
        perform(page, lab, steps(fixture, state))
        assert_shows(lab, state["view"], state["t"])
    status = lab.locator(".sa-temp-status")
    assert status.get_attribute("aria-live") == "polite"
    last = states(fixture, "keys")[-1]
    assert status.text_content().startswith(f"T = {last['view']['t']}: cat {last['view']['weights'][0]}")


def test_setting_the_value_directly_matches_the_package(page, lab, fixture):
    for state in states(fixture, "fill"):
        perform(page, lab, steps(fixture, state))
        assert_shows(lab, state["view"], state["t"])


def test_preset_buttons_match_the_package_and_say_which_is_on(page, lab, fixture):
    for state in states(fixture, "presets"):
        perform(page, lab, steps(fixture, state))
        assert_shows(lab, state["view"], state["t"])
        if not state["action"]["keys"]:
            pressed = lab.locator("button[aria-pressed=true]")
            assert pressed.count() == 1
            assert pressed.get_attribute("data-preset") == state["action"]["presses"][-1]
    scaled = next(s for s in states(fixture, "presets") if s["name"] == "presets scaled")
    assert scaled["view"]["weights"] == ["0.768", "0.187", "0.045"]  # the weighted-average chapter's row


def test_dragging_and_tapping_the_slider_match_the_package(page, lab, config):
    slider = lab.locator("input[type=range]")
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    seen = []
    for frac in (0.5, 1.05, 0.1, -0.05, 0.8):
        value = float(slider.input_value())
        thumb = (value - config["min"]) / (config["max"] - config["min"])
        page.mouse.move(box["x"] + 8 + thumb * (box["width"] - 16), y)
        page.mouse.down()
        page.mouse.move(box["x"] + frac * box["width"], y, steps=5)
        page.mouse.up()
        t = float(slider.input_value())
        assert_shows(lab, temperature_view(config, t), t)
        seen.append(t)
    assert seen[1] == config["max"] and seen[3] == config["min"]  # dragged past the ends
    assert config["min"] < seen[2] < seen[0] < seen[4] < config["max"]
    # A tap on the track moves T too (touch).
    page.touchscreen.tap(box["x"] + 0.3 * box["width"], y)
    t = float(slider.input_value())
    assert t != seen[-1]
    assert_shows(lab, temperature_view(config, t), t)


def test_small_t_sharpens_and_large_t_softens(page, lab, config):
    slider = lab.locator("input[type=range]")
    slider.fill(str(config["min"]))
    sharp = [float(w) for w in shown(lab)["weights"]]
    slider.fill(str(config["max"]))
    soft = [float(w) for w in shown(lab)["weights"]]
    assert max(sharp) > 0.99 and max(soft) < 0.5


def test_focus_is_visible_and_everything_has_a_name(page, lab):
    lab.locator("button").first.focus()
    page.keyboard.press("Shift+Tab")  # reach the slider by keyboard
    focused = lab.evaluate("""root => { const el = document.activeElement;
        const st = getComputedStyle(el);
        return {range: el.type === "range" && root.contains(el), visible: el.matches(":focus-visible"),
                outline: st.outlineStyle, width: parseFloat(st.outlineWidth)}; }""")
    assert focused["range"] and focused["visible"]
    assert focused["outline"] != "none" and focused["width"] >= 2
    assert lab.locator("input[type=range]").evaluate("el => el.labels.length") == 1
    for button in lab.locator("button").all():
        assert button.text_content().strip()
    assert page.locator("link[href$='labs/temperature.css']").count() == 1
