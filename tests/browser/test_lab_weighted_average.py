"""The "weighted average" lab shows the package's numbers in every test state.

The expected tables are computed here, by the package, from the lab's own
configuration in the built page (``booktools.labs.weighted_average``); the
page ships no test data. The lab's JavaScript is checked against the NumPy
package, cell by cell, as formatted strings, for the mouse, the keyboard and
touch, on a desktop and on a phone.
"""

from __future__ import annotations

import math
import re

import pytest

from booktools.labs.weighted_average import weighted_average_tables
from tests.browser.conftest import lab_fixture, open_lab_page, perform

LAB = "#wa-lab"

READ_TABLES = """root => Object.fromEntries([...root.querySelectorAll("table[data-table]")].map(t =>
  [t.dataset.table, [...t.querySelectorAll("tbody tr")].map(tr =>
    [...tr.querySelectorAll("td")].map(td => td.textContent))]))"""

PLANE = """svg => { svg.scrollIntoView({block: "center"}); const r = svg.getBoundingClientRect();
  return {left: r.left, top: r.top, width: r.width, height: r.height,
          lo: +svg.dataset.min, hi: +svg.dataset.max, pad: +svg.dataset.pad, size: +svg.dataset.size}; }"""


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, "weighted-average.html", "wa-lab", "weighted-average")


@pytest.fixture(scope="module")
def page(browser, site_url):
    """One page load for the whole module (a load takes seconds); each test resets the lab."""
    ready = f"{LAB}.sa-lab-ready table[data-table=weights] td"
    yield from open_lab_page(browser, site_url, "weighted-average.html", ready)


@pytest.fixture
def lab(page):
    root = page.locator(LAB)
    root.locator("button[data-action=reset]").click()
    root.locator("select").select_option("0")
    page.mouse.move(1, 1)
    yield root
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"


def states(fixture, kind):
    found = [s for s in fixture["states"] if s["action"]["kind"] == kind]
    assert found, f"the fixture has no {kind} state"
    return found


def pixel(lab, point):
    """Viewport coordinates of a point of the plane (the lab's own geometry)."""
    g = lab.locator("svg.sa-wa-svg").evaluate(PLANE)
    assert g["width"] == pytest.approx(g["height"], abs=1)  # square: no letterboxing
    k = g["width"] / g["size"]
    span = g["size"] - 2 * g["pad"]
    x = g["left"] + (g["pad"] + (point[0] - g["lo"]) / (g["hi"] - g["lo"]) * span) * k
    y = g["top"] + (g["pad"] + (g["hi"] - point[1]) / (g["hi"] - g["lo"]) * span) * k
    return x, y


def perform_action(page, lab, fixture, action):
    """The fixture's action, from Reset, through the shared interpreter."""
    perform(page, lab, [("click", "button[data-action=reset]")])
    kind = action["kind"]
    if kind == "preset":
        perform(page, lab, [("click", f"button[data-preset={action['preset']}]")])
    elif kind == "scale":
        perform(page, lab, [("check", "input.sa-wa-scale", action["on"])])
    elif kind == "drag":  # the points on screen are read after Reset
        start = pixel(lab, fixture["states"][0]["x"][action["word"]])
        perform(page, lab, [("drag", start, pixel(lab, action["to"]))])
    elif kind == "keys":
        perform(page, lab, [("keys", f".sa-wa-point[data-word='{action['word']}']", action["keys"])])


def check_states(page, lab, fixture, kind):
    wrong = []
    for state in states(fixture, kind):
        perform_action(page, lab, fixture, state["action"])
        shown = lab.evaluate(READ_TABLES)
        if shown != state["tables"]:
            wrong.append((state["name"], shown, state["tables"]))
    assert wrong == []


@pytest.mark.browser
def test_start_presets_and_sqrt_switch_match_the_package(page, lab, fixture):
    check_states(page, lab, fixture, "initial")
    check_states(page, lab, fixture, "preset")
    check_states(page, lab, fixture, "scale")
    assert lab.get_attribute("data-scaled") == "false"
    status = lab.locator(".sa-wa-status")
    lab.locator("button[data-preset=far]").click()
    assert "car becomes [5, 5]" in status.text_content()  # announced
    assert status.get_attribute("aria-live") == "polite"


@pytest.mark.browser
def test_dragging_with_the_mouse_matches_the_package(page, lab, fixture):
    check_states(page, lab, fixture, "drag")
    last = states(fixture, "drag")[-1]
    point = lab.locator(f".sa-wa-point[data-word='{last['action']['word']}']")
    assert point.get_attribute("aria-label") == f"{fixture['words'][last['action']['word']]} at " + \
        ", ".join(last["tables"]["x"][last["action"]["word"]])


@pytest.mark.browser
def test_arrow_keys_match_the_package(page, lab, fixture):
    check_states(page, lab, fixture, "keys")
    last = states(fixture, "keys")[-1]
    word = last["action"]["word"]
    point = lab.locator(f".sa-wa-point[data-word='{word}']")
    assert point.get_attribute("aria-label") == f"{fixture['words'][word]} at " + \
        ", ".join(last["tables"]["x"][word])
    words, t = fixture["words"], last["tables"]
    takes = ", ".join(f"{w} from {other}" for w, other in zip(t["weights"][word], words))
    assert lab.locator(".sa-wa-status").text_content() == \
        f"{words[word]} at {', '.join(t['x'][word])}. {words[word]} takes {takes}."


@pytest.mark.browser
def test_pointing_at_a_weight_shows_who_looks_at_whom(page, lab):
    weights = lab.locator("table[data-table=weights]")
    weights.locator("td[data-r='0'][data-c='2']").hover()
    assert (lab.get_attribute("data-looker"), lab.get_attribute("data-target")) == ("cat", "car")
    assert "is-looker" in lab.locator(".sa-wa-point[data-word='0']").get_attribute("class")
    assert "is-target" in lab.locator(".sa-wa-point[data-word='2']").get_attribute("class")
    assert "is-looker" in weights.locator("th[data-r='0']").get_attribute("class")
    assert "is-target" in weights.locator("th[data-c='2']").get_attribute("class")
    assert lab.locator("line.sa-wa-look").is_visible()
    assert "cat looks at car" in lab.locator(".sa-wa-look-text").text_content()
    page.mouse.move(1, 1)
    assert lab.get_attribute("data-looker") is None
    assert not lab.locator("line.sa-wa-look").is_visible()
    weights.locator("td[data-r='1'][data-c='0']").focus()  # the keyboard gets the same
    assert (lab.get_attribute("data-looker"), lab.get_attribute("data-target")) == ("dog", "cat")
    # A finger on the plane drags a word: touch-action sits on the SVG element
    # itself (Chromium ignores it on the groups inside); see the touch tests.
    assert lab.locator("svg.sa-wa-svg").evaluate("el => getComputedStyle(el).touchAction") == "none"


@pytest.mark.browser
def test_mix_chooser_redraws_the_chosen_output(page, lab, fixture):
    start = fixture["states"][0]["tables"]
    words = fixture["words"]
    star = lab.locator("polygon.sa-wa-star")
    shares = lab.locator(".sa-wa-shares")
    drawn = []
    for m in range(len(words)):
        lab.locator("select").select_option(str(m))
        text = shares.text_content()
        for j, other in enumerate(words):
            assert f"{start['weights'][m][j]} × {other}" in text
        assert f"[{', '.join(start['output'][m])}]" in text
        assert lab.locator("g.sa-wa-mix").get_attribute("data-word") == str(m)
        # The dashed shares are laid end to end and finish at the star.
        last = lab.locator("line.sa-wa-seg").last
        end = [float(last.get_attribute(a)) for a in ("x2", "y2")]
        at = [float(v) for v in re.findall(r"[-\d.]+", star.get_attribute("transform"))]
        assert end == pytest.approx(at, abs=1e-6)
        drawn.append(star.get_attribute("transform"))
    assert len(set(drawn)) == len(words)
    terms = " + ".join(f"{w} × {other}" for w, other in zip(start["weights"][-1], words))
    assert lab.locator(".sa-wa-status").text_content() == \
        f"Drawing {words[-1]}'s output = {terms} = [{', '.join(start['output'][-1])}]."


# ---------------------------------------------------------------------------
# Touch, on a phone
# ---------------------------------------------------------------------------

CENTRE = """el => { const r = el.querySelector(".sa-wa-marker").getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2]; }"""


@pytest.fixture(scope="module")
def phone(browser, site_url):
    """The page on a 390 x 844 phone with a touch screen."""
    ready = f"{LAB}.sa-lab-ready table[data-table=weights] td"
    yield from open_lab_page(browser, site_url, "weighted-average.html", ready,
                             viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)


def touch_drag(page, start, dx, dy, steps=10):
    """Drag one finger from ``start`` by (dx, dy) CSS px, as a touch screen sends it."""
    cdp = page.context.new_cdp_session(page)
    x, y = start
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, steps + 1):
        cdp.send("Input.dispatchTouchEvent",
                 {"type": "touchMove", "touchPoints": [{"x": x + dx * k / steps, "y": y + dy * k / steps}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


@pytest.mark.browser
@pytest.mark.parametrize("word, dx, dy", [(2, 100, 0), (1, 0, -100), (0, -70, -70)])
def test_a_touch_drag_moves_the_word_not_the_page(phone, fixture, word, dx, dy):
    lab = phone.locator(LAB)
    lab.locator("button[data-action=reset]").click()
    point = lab.locator(f".sa-wa-point[data-word='{word}']")
    lab.locator("svg.sa-wa-svg").evaluate("el => el.scrollIntoView({block: 'center'})")
    before, scroll = point.evaluate(CENTRE), phone.evaluate("scrollY")
    touch_drag(phone, before, dx, dy)
    after = point.evaluate(CENTRE)
    assert phone.evaluate("scrollY") == scroll  # the page did not scroll
    moved = (after[0] - before[0], after[1] - before[1])
    assert math.hypot(*moved) >= 0.9 * math.hypot(dx, dy), f"a {dx, dy} px drag moved the point by {moved}"
    assert abs(moved[0] - dx) <= 10 and abs(moved[1] - dy) <= 10  # and in the direction of the finger
    # The tables show the package's numbers for where the finger left the word.
    x = [[float(p.get_attribute("data-x")), float(p.get_attribute("data-y"))]
         for p in lab.locator(".sa-wa-point").all()]
    assert lab.evaluate(READ_TABLES) == weighted_average_tables(x, fixture["words"])
    assert lab.locator(".sa-wa-status").text_content().startswith(f"{fixture['words'][word]} at ")
    assert phone.watch.console_errors == []
