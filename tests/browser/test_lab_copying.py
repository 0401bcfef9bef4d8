"""The "copying" lab shows the package's guesses and head weights, whatever is typed, picked or pressed.

The expected values are computed here from the lab's own configuration in
the built page (``booktools.labs.copying``, from
``selfattention.induction.continue_sequence`` on the parameters the page
holds, float16; the page ships no test data). Each test state is a sequence
that is typed or picked, then a number of presses of "Write the guess". They
are performed with the mouse, with the keyboard and by touch, and the
sequence (as typed: case matters), the guess, its probability and the two
heads' weights must then show what the package gives. The page's rounded
model must also write what the shipped model writes, with probabilities
within ``ROUNDING_TOLERANCE`` of it.
"""

from __future__ import annotations

import pytest

from booktools.labs.copying import ROUNDING_TOLERANCE
from selfattention.induction import continue_sequence, training
from tests.browser.conftest import lab_fixture, open_lab_page, read_config

pytestmark = pytest.mark.browser

PAGE = "two-heads-that-copy.html"
LAB = "#copy-lab"
READY = f"{LAB}.sa-lab-ready .sa-copy-cell"


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "copy-lab", "copying")


@pytest.fixture(scope="module")
def config(built_book) -> dict:
    return read_config(built_book, PAGE, "copy-lab")


@pytest.fixture(scope="module")
def desk(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, READY, viewport={"width": 1366, "height": 900})


@pytest.fixture(scope="module")
def phone(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, READY, viewport={"width": 390, "height": 844},
                             has_touch=True, is_mobile=True)


def fresh(page):
    page.reload()
    page.wait_for_selector(READY)
    lab = page.locator(LAB)
    lab.scroll_into_view_if_needed()
    return lab


def shown(lab) -> dict:
    return lab.evaluate("""root => ({
        text: [...root.querySelectorAll(".sa-copy-seq .sa-copy-letter")].map(s => s.textContent).join(""),
        guess: root.querySelector("[data-part=symbol]")?.textContent ?? null,
        probability: root.querySelector("[data-part=probability]")?.textContent ?? null,
        weights: [...root.querySelectorAll(".sa-copy-row")].map(r =>
            [...r.querySelectorAll(".sa-copy-value")].map(v => v.textContent)),
    })""")


def press(page, lab, action, how):
    activate(page, lab.locator(f"button[data-action={action}]"), how)


def activate(page, target, how):
    if how == "touch":
        target.tap()
    elif how == "keyboard":
        target.focus()
        page.keyboard.press("Enter")
    else:
        target.click()


def run_state(page, state, how):
    lab = fresh(page)
    if "pick" in state:
        activate(page, lab.locator(f"button[data-example='{state['pick']}']"), how)
    else:
        box = lab.locator("input[data-part=input]")
        box.fill(state["type"])
        if how == "keyboard":
            box.focus()
            page.keyboard.press("Enter")
        else:
            press(page, lab, "read", how)
    for _ in range(state["writes"]):
        press(page, lab, "write", how)
    return lab


def assert_shows(lab, state):
    got, want = shown(lab), state["shown"]
    assert got["text"] == want["text"], state["name"]
    assert (got["guess"], got["probability"]) == (want["guess"], want["probability"]), state["name"]
    assert got["weights"] == want["weights"], state["name"]


@pytest.mark.parametrize("how", ["mouse", "keyboard"])
def test_the_lab_matches_the_package(desk, fixture, how):
    for state in fixture["states"]:
        assert_shows(run_state(desk, state, how), state)
    assert desk.watch.console_errors == [] and desk.watch.foreign == []


def test_taps_match_the_package(phone, fixture):
    for state in fixture["states"][:3]:
        assert_shows(run_state(phone, state, "touch"), state)
    assert phone.watch.console_errors == []


def test_the_lab_writes_what_the_shipped_model_writes(desk, config):
    """The page's float16 parameters change no guess of the shipped float64 model on the examples, and move
    no probability by more than the rounding's tolerance (plus the half unit of the two decimals shown)."""
    run = training.load()
    assert config["digest"] == training.digest(run["params"]), (
        "the built page holds other weights than the package ships: rebuild the book")
    writes = 6
    for i, example in enumerate(config["examples"]):
        lab = fresh(desk)
        activate(desk, lab.locator(f"button[data-example='{i}']"), "mouse")
        shown_p = [float(shown(lab)["probability"])]
        for _ in range(writes - 1):
            press(desk, lab, "write", "mouse")
            shown_p.append(float(shown(lab)["probability"]))
        press(desk, lab, "write", "mouse")
        want = continue_sequence(run["params"], example["text"], writes)
        assert shown(lab)["text"] == want["text"], example["name"]
        half = 0.5 * 10 ** -config["decimals"]
        assert all(abs(got - p) <= ROUNDING_TOLERANCE + half
                   for got, p in zip(shown_p, want["probabilities"], strict=True)), (example, shown_p)


def test_case_is_kept(desk):
    """"a" and "A" are two symbols: the lab reads what is typed, never in capitals."""
    lab = fresh(desk)
    box = lab.locator("input[data-part=input]")
    box.fill("qZ aBcaB")
    press(desk, lab, "read", "mouse")
    assert shown(lab)["text"] == "qZaBcaB" and box.input_value() == "qZ aBcaB"
    press(desk, lab, "write", "mouse")
    assert box.input_value().startswith("qZaBcaB") and shown(lab)["text"] == box.input_value()


def test_a_full_sequence_says_so_and_keeps_the_focus(desk, fixture):
    lab = fresh(desk)
    lab.locator("input[data-part=input]").fill("Ab" * (fixture["positions"] // 2))
    press(desk, lab, "read", "keyboard")
    write = lab.locator("button[data-action=write]")
    assert write.get_attribute("aria-disabled") == "true"
    press(desk, lab, "write", "keyboard")
    assert desk.evaluate("document.activeElement.dataset.action") == "write"
    assert "full" in lab.locator("[role=status]").text_content()


def test_a_full_sequence_looks_disabled_too(desk, fixture):
    """aria-disabled keeps the focus on "Write the guess"; it must also look disabled (reader walk W3 #14)."""
    lab = fresh(desk)
    write = lab.locator("button[data-action=write]")
    assert write.evaluate("el => getComputedStyle(el).opacity") == "1"
    lab.locator("input[data-part=input]").fill("Ab" * (fixture["positions"] // 2))
    press(desk, lab, "read", "mouse")
    assert write.get_attribute("aria-disabled") == "true"
    assert float(write.evaluate("el => getComputedStyle(el).opacity")) < 1
    assert write.evaluate("el => getComputedStyle(el).cursor") == "default"


def test_a_sequence_too_long_is_kept_and_named(desk, fixture, config):
    """A longer sequence is not cut short without a word (reader walk W3 #13)."""
    lab = fresh(desk)
    n = fixture["positions"] + 8
    text = (config["symbols"] * n)[:n]
    box = lab.locator("input[data-part=input]")
    box.fill(text)
    press(desk, lab, "read", "mouse")
    assert box.input_value() == text
    assert lab.locator("[role=status]").text_content() == (
        f"That is {n} symbols: the model reads at most {fixture['positions']}. Remove 8.")
    assert desk.evaluate("document.activeElement.dataset.part") == "input"


def test_one_symbol_is_one_symbol(desk):
    lab = fresh(desk)
    lab.locator("input[data-part=input]").fill("A")
    press(desk, lab, "read", "mouse")
    assert lab.locator("[role=status]").text_content().startswith("Read 1 symbol. ")


def test_the_keyboard_passes_the_examples_without_reading_them(desk, fixture):
    """Arrows and Tab over the examples leave the reader's sequence alone; Enter reads one (reader walk W3 #15)."""
    lab = fresh(desk)
    box = lab.locator("input[data-part=input]")
    box.fill("AbcAbc")
    box.press("Enter")
    first = lab.locator("button[data-example='0']")
    first.focus()
    for key in ("ArrowDown", "ArrowUp", "ArrowRight", "Tab"):
        desk.keyboard.press(key)
    assert box.input_value() == "AbcAbc" and shown(lab)["text"] == "AbcAbc"
    first.focus()
    desk.keyboard.press("Enter")
    assert box.input_value() == shown(lab)["text"] == fixture["states"][0]["shown"]["text"]


def test_a_wrong_symbol_is_named(desk, config):
    lab = fresh(desk)
    lab.locator("input[data-part=input]").fill("AbZ9-é z")
    press(desk, lab, "read", "mouse")
    assert lab.locator("[role=status]").text_content() == (
        "Only the letters A to Z and a to z are symbols here, not 9, -, é.")
    assert shown(lab)["text"] == config["examples"][0]["text"]   # nothing was read: the first example stays


def test_the_lab_fits_a_phone_and_everything_has_a_name(phone):
    lab = fresh(phone)
    widths = phone.evaluate("""() => ({page: document.documentElement.scrollWidth, screen: window.innerWidth,
        lab: document.querySelector("#copy-lab").getBoundingClientRect().right})""")
    assert widths["page"] <= widths["screen"] and widths["lab"] <= widths["screen"] + 0.5
    for control in lab.locator("button, select, input").all():
        name = (control.get_attribute("aria-label") or control.text_content() or "").strip()
        labelled = control.evaluate("el => el.labels ? el.labels.length : 0")
        assert name or labelled


def test_a_finger_can_hit_every_control(phone):
    """44 px high on a touch screen, and at least 24 px wide (reader walk W3 #9)."""
    lab = fresh(phone)
    sizes = lab.evaluate("""root => [...root.querySelectorAll("button, select, input")].map(el => {
        const box = el.getBoundingClientRect();
        return {name: el.dataset.action || el.dataset.part || el.textContent, width: box.width, height: box.height};
    })""")
    assert sizes and all(s["height"] >= 44 and s["width"] >= 24 for s in sizes), sizes
