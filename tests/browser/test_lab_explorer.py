"""The attention explorer shows the package's numbers in every test state.

The expected numbers are computed here, by the package, from the lab's own
configuration in the built page (``booktools.labs.explorer``): the package's
softmax of the very scores stored in the page, so the lab's JavaScript is
checked against NumPy cell by cell, as formatted strings. The page ships no
test data.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import lab_fixture, open_lab_page, perform

pytestmark = pytest.mark.browser

PAGE = "attention-in-a-real-model.html"
LAB = "#explorer-lab"

READ = """root => ({
  row: Number(root.dataset.row),
  locked: root.dataset.locked === undefined ? null : Number(root.dataset.locked),
  tokens: [...root.querySelectorAll(".sa-ex-strip .sa-ex-tok")].map(s => s.textContent),
  strip: [...root.querySelectorAll(".sa-ex-strip .sa-ex-w")].map(s => s.textContent),
  matrix: [...root.querySelectorAll("table.sa-ex-grid tbody tr")].map(tr =>
    [...tr.querySelectorAll("td")].map(td => td.textContent)),
})"""


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "explorer-lab", "explorer")


@pytest.fixture(scope="module")
def page(browser, site_url):
    """One page load for the whole module; each test resets the lab."""
    ready = f"{LAB}.sa-lab-ready table.sa-ex-grid td"
    yield from open_lab_page(browser, site_url, PAGE, ready, viewport={"width": 1280, "height": 900})


@pytest.fixture
def lab(page):
    root = page.locator(LAB)
    root.locator("button[data-action=reset]").click()
    page.mouse.move(1, 1)
    yield root
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"


def token_at(i):
    return f".sa-ex-strip button.sa-ex-token[data-i='{i}']"


def token(lab, i):
    return lab.locator(token_at(i))


def steps(action) -> list:
    """A fixture state as the shared interpreter's steps: choosers, temperature, then lock and hover."""
    out = [("click", "button[data-action=reset]"), ("hover", None),
           ("select", "select.sa-ex-sentence", action["sentence"]),
           ("select", "select.sa-ex-layer", action["layer"]),
           ("select", "select.sa-ex-head", action["head"])]
    if action["temperature"] != 1.0:
        out.append(("fill", "input.sa-ex-temperature", action["temperature"]))
    if action["lock"] is not None:
        out.append(("click", token_at(action["lock"])))
    out.append(("hover", None if action["hover"] is None else token_at(action["hover"])))
    return out


def state(fixture, name):
    found = [s for s in fixture["states"] if s["name"] == name]
    assert found, f"the fixture has no state {name!r}"
    return found[0]


def check(page, lab, fixture, names):
    wrong = []
    for name in names:
        s = state(fixture, name)
        perform(page, lab, steps(s["action"]))
        shown = lab.evaluate(READ)
        expected = {"row": s["row"], "locked": s["action"]["lock"],
                    "tokens": fixture["tokens"][s["action"]["sentence"]],
                    "strip": s["strip"], "matrix": s["matrix"]}
        if shown != expected:
            wrong.append((name, shown, expected))
    assert wrong == []


def test_start_sentences_layers_heads_and_average_match_the_package(page, lab, fixture):
    start = lab.evaluate(READ)
    assert start["row"] == state(fixture, "start")["row"]
    assert start["matrix"] == state(fixture, "start")["matrix"]  # before any interaction
    check(page, lab, fixture, ["start", "another sentence", "another layer and head",
                               "average of heads"])
    assert lab.get_attribute("data-head") == "mean"
    status = lab.locator(".sa-ex-status")
    assert status.get_attribute("aria-live") == "polite"
    assert "average of 12 heads" in status.text_content()  # the last change was announced


def test_temperature_recomputes_the_softmax_exactly(page, lab, fixture):
    check(page, lab, fixture, ["lock at temperature 0.25", "temperature 0.5",
                               "temperature 2, average of heads"])
    assert lab.locator("output.sa-ex-temp-value").text_content() == "2.00"
    assert "average of 12 heads, temperature 2.00" in lab.locator(".sa-ex-status").text_content()
    # Every row still adds up to 1 at any temperature.
    sums = lab.evaluate("""root => [...root.querySelectorAll("table.sa-ex-grid tbody tr")].map(tr =>
        [...tr.querySelectorAll("td")].reduce((t, td) => t + Number(td.textContent), 0))""")
    assert all(abs(v - 1) < 0.01 for v in sums)


def test_hover_shows_a_row_click_locks_it_and_unlock_releases_it(page, lab, fixture):
    check(page, lab, fixture, ["hover a token", "lock a token", "locked row ignores hover"])
    locked = state(fixture, "locked row ignores hover")
    lock, hover = locked["action"]["lock"], locked["action"]["hover"]
    unlock = lab.locator("button[data-action=unlock]")
    assert unlock.is_visible() and unlock.is_enabled()
    assert token(lab, lock).get_attribute("aria-pressed") == "true"
    assert "Locked" in lab.locator(".sa-ex-status").text_content()
    # Unlock while the pointer rests on another token: the row follows the pointer again.
    unlock.click()
    token(lab, hover).hover()
    assert lab.get_attribute("data-locked") is None
    assert lab.evaluate(READ)["row"] == hover
    assert not unlock.is_enabled()
    assert token(lab, lock).get_attribute("aria-pressed") == "false"
    assert "Unlocked" in lab.locator(".sa-ex-status").text_content()
    # With nothing pointed at, the sentence's own token comes back.
    page.mouse.move(1, 1)
    assert lab.evaluate(READ)["row"] == state(fixture, "start")["row"]
    # Clicking the locked token again, or Escape, also unlocks.
    token(lab, lock).click()
    assert lab.get_attribute("data-locked") == str(lock)
    token(lab, lock).click()
    assert lab.get_attribute("data-locked") is None
    token(lab, lock).click()
    page.keyboard.press("Escape")
    assert lab.get_attribute("data-locked") is None


def test_heatmap_row_labels_behave_like_the_tokens(page, lab, fixture):
    hover = state(fixture, "hover a token")
    row_label = lab.locator(f"table.sa-ex-grid button.sa-ex-rowtok[data-i='{hover['row']}']")
    row_label.hover()
    assert lab.evaluate(READ)["strip"] == hover["strip"]
    row_label.click()
    assert lab.get_attribute("data-locked") == str(hover["row"])
    shown = lab.locator("table.sa-ex-grid tbody tr.is-shown")
    assert shown.count() == 1 and shown.get_attribute("data-r") == str(hover["row"])


def test_keyboard_reaches_the_tokens_focus_shows_a_row_and_enter_locks(page, lab, fixture):
    lab.locator("button[data-action=reset]").focus()
    page.keyboard.press("Tab")  # the first token of the strip
    first = token(lab, 0)
    assert first.evaluate("el => el === document.activeElement")
    ring = first.evaluate("el => [getComputedStyle(el).outlineStyle, getComputedStyle(el).outlineWidth]")
    assert ring == ["solid", "3px"]  # focus is visible
    assert lab.evaluate(READ)["row"] == 0
    assert "[CLS]" in lab.locator(".sa-ex-status").text_content()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert lab.get_attribute("data-locked") == "1"
    page.keyboard.press("Tab")
    assert lab.evaluate(READ)["row"] == 1  # locked: moving focus does not change the row


def test_controls_are_labelled_and_colours_are_never_alone(page, lab, fixture):
    for cls in ("sentence", "layer", "head", "temperature"):
        control = lab.locator(f".sa-ex-{cls}")
        label = lab.locator(f"label[for='{control.get_attribute('id')}']")
        assert label.count() == 1 and label.text_content().strip()
    heads = lab.locator("select.sa-ex-head option")
    assert heads.count() == 13 and heads.last.get_attribute("value") == "mean"
    assert lab.locator("select.sa-ex-sentence option").count() == len(fixture["tokens"]) >= 8
    slider = lab.locator("input.sa-ex-temperature")
    assert slider.get_attribute("type") == "range"
    assert lab.locator("output.sa-ex-temp-value").text_content() == "1.00"
    ends = lab.locator(".sa-ex-scale-end").all_text_contents()
    assert ends == ["0", "1"]  # the colour scale is labelled 0 to 1
    # Every coloured cell carries its number, in a colour that contrasts with it.
    cells = lab.evaluate("""root => [...root.querySelectorAll("table.sa-ex-grid td")].map(td =>
        [td.textContent, getComputedStyle(td).backgroundColor, getComputedStyle(td).color])""")
    assert all(re.fullmatch(r"\d\.\d{3}", text) for text, _, _ in cells)
    assert all(bg.startswith("rgb(") and ink in ("rgb(0, 0, 0)", "rgb(255, 255, 255)")
               for _, bg, ink in cells)
    # The lab's own stylesheet was loaded from the site, by the module.
    assert page.locator("link[rel=stylesheet][href$='labs/explorer.css']").count() == 1
