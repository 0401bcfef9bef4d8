"""The "learning" lab shows the package's numbers after 1, 10 and 200 steps, and after the slider moves.

The expected numbers are computed here from the built page's own configuration
(``booktools.labs.learning``: ``selfattention.descend`` and
``selfattention.apple_sweet_loss``, formatted as the book formats them); the
page ships no test data. Every state starts from Reset. The step buttons are
clicked with the mouse, pressed with the keyboard and tapped on a touch
screen; the slider is moved with keys and with the mouse.
"""

from __future__ import annotations

import pytest

import selfattention as sa
from booktools.labs.learning import learning_shown
from tests.browser.conftest import lab_fixture, open_lab_page, perform, read_config

pytestmark = pytest.mark.browser

PAGE = "learning-where-to-look.html"
LAB = "#learning-lab"
KEYS = ("c", "weight", "loss", "gradient", "step", "steps")


@pytest.fixture(scope="module")
def config(built_book) -> dict:
    return read_config(built_book, PAGE, "learning-lab")


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "learning-lab", "learning")


@pytest.fixture(scope="module")
def page(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, f"{LAB}.sa-lab-ready .sa-learn-table")


@pytest.fixture
def lab(page):
    root = page.locator(LAB)
    root.locator("button[data-action=reset]").click()
    yield root
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"


def shown(lab) -> dict:
    return lab.evaluate("""root => Object.fromEntries(
        [...root.querySelectorAll("td[data-value]")].map(td => [td.dataset.value, td.textContent]))""")


def steps(action) -> list:
    """The fixture's action as the shared interpreter's steps."""
    if action["kind"] == "steps":
        return [("click", f"button[data-steps='{action['n']}']")]
    return [("keys", "input[type=range]", action["keys"])]


def test_the_fixture_holds_the_syllabus_numbers(fixture):
    start = fixture["states"][0]["shown"]
    assert start["loss"] == "0.5000" and start["gradient"] == "-0.3536" and start["weight"] == "0.500"
    names = [s["name"] for s in fixture["states"]]
    assert {"1 step", "10 steps", "200 steps"} <= set(names)


def test_buttons_and_slider_keys_give_the_package_values(page, lab, fixture):
    for state in fixture["states"]:
        lab.locator("button[data-action=reset]").click()
        for action in state["actions"]:
            perform(page, lab, steps(action))
        assert shown(lab) == state["shown"], state["name"]
        assert abs(float(lab.get_attribute("data-c")) - state["c"]) <= 1e-12 * max(1.0, abs(state["c"]))


def test_the_keyboard_presses_the_step_buttons(page, lab, fixture):
    for state in (s for s in fixture["states"] if s["name"] in ("10 steps", "1 then 10 steps")):
        lab.locator("button[data-action=reset]").click()
        for action in state["actions"]:
            perform(page, lab, steps(action), how="keyboard")
        assert shown(lab) == state["shown"], state["name"]
    focused = lab.evaluate("""root => ({steps: document.activeElement.dataset.steps,
        visible: document.activeElement.matches(":focus-visible"),
        outline: getComputedStyle(document.activeElement).outlineStyle})""")
    assert focused["steps"] == "10" and focused["visible"] and focused["outline"] != "none"


def test_the_mouse_moves_the_slider_and_the_numbers_follow(page, lab, config):
    slider = lab.locator("input[type=range]")
    box = slider.bounding_box()
    for fraction in (0.15, 0.62, 0.9):
        page.mouse.click(box["x"] + fraction * box["width"], box["y"] + box["height"] / 2)
        c = float(slider.input_value())
        assert c != 0.0
        assert shown(lab) == learning_shown(c, 0, config)
        # One step from wherever the mouse put c.
        lab.locator("button[data-steps='1']").click()
        assert shown(lab) == learning_shown(sa.gradient_step(c, config["learning_rate"]), 1, config)
        lab.locator("button[data-action=reset]").click()


def test_the_curve_is_drawn_as_far_as_training_has_gone(page, lab):
    assert lab.locator(".sa-learn-curve").get_attribute("d") == ""      # nothing visited yet
    assert lab.locator(".sa-learn-dot").count() == 1
    lab.locator("button[data-steps='10']").click()
    short = lab.locator(".sa-learn-curve").get_attribute("d")
    assert short and lab.locator(".sa-learn-dot").count() == 11
    lab.locator("button[data-steps='200']").click()
    longer = lab.locator(".sa-learn-curve").get_attribute("d")
    first_x = lambda d: float(d[1:].split()[0])  # noqa: E731
    last_x = lambda d: float(d.split("L")[-1].split()[0])  # noqa: E731
    assert first_x(longer) == first_x(short) and last_x(longer) > last_x(short)


def test_changes_are_announced_and_controls_are_named(page, lab, fixture):
    lab.locator("button[data-steps='1']").click()
    status = lab.locator(".sa-learn-status")
    assert status.get_attribute("aria-live") == "polite"
    one = next(s for s in fixture["states"] if s["name"] == "1 step")["shown"]
    assert status.text_content() == (f"c = {one['c']}, loss {one['loss']}, gradient {one['gradient']}, "
                                     f"next step {one['step']}.")
    for button in lab.locator("button").all():
        assert button.text_content().strip()
    slider = lab.locator("input[type=range]")
    assert slider.evaluate("el => el.labels.length") == 1
    assert slider.get_attribute("aria-valuetext") == f"c = {one['c']}"
    assert page.locator("link[href$='labs/learning.css']").count() == 1


def test_a_tap_takes_steps_on_a_touch_screen(browser, site_url, fixture):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        pg = context.new_page()
        pg.goto(f"{site_url}/{PAGE}")
        pg.wait_for_selector(f"{LAB}.sa-lab-ready .sa-learn-table")
        root = pg.locator(LAB)
        root.locator("button[data-steps='10']").tap()
        expected = next(s for s in fixture["states"] if s["name"] == "10 steps")["shown"]
        assert shown(root) == expected
    finally:
        context.close()
