"""The "three moves" step-through shows the package's numbers at every move, by button and by key.

The expected moves are computed here from the words in the built page's own
configuration (``booktools.labs.three_moves``: scores, shares and blend from
``selfattention``, formatted as the book formats them); the page ships no
test data. Every state walks from the first move with the Next and Back
buttons or with the arrow keys, Home and End.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import lab_fixture, open_lab_page, perform

pytestmark = pytest.mark.browser

PAGE = "words-are-islands.html"
LAB = "#moves-lab"


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "moves-lab", "three-moves")


@pytest.fixture(scope="module")
def page(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, f"{LAB}.sa-lab-ready .sa-moves-table")


@pytest.fixture
def lab(page):
    root = page.locator(LAB)
    rewind(page, root)
    yield root
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"


def rewind(page, root):
    root.locator("button[data-action=next]").focus()
    page.keyboard.press("Home")
    assert root.get_attribute("data-move") == "0"


def shown(lab) -> dict:
    return lab.evaluate("""root => ({
        move: root.dataset.move,
        title: root.querySelector(".sa-moves-title").textContent,
        text: root.querySelector(".sa-moves-text").textContent,
        columns: [...root.querySelectorAll(".sa-moves-table thead th")].map(c => c.textContent),
        rows: [...root.querySelectorAll(".sa-moves-table tbody tr")].map(
            r => [...r.children].map(c => c.textContent)),
        back: root.querySelector("button[data-action=back]").disabled,
        next: root.querySelector("button[data-action=next]").disabled,
        label: root.querySelector("svg").getAttribute("aria-label"),
        star: root.querySelector(".sa-moves-star").getAttribute("d"),
        pieces: root.querySelectorAll(".sa-moves-piece").length,
        shareLabels: [...root.querySelectorAll(".sa-moves-share")].map(t => t.textContent)})""")


def assert_move(lab, fixture, move):
    expected = fixture["moves"][move]
    got = shown(lab)
    last = len(fixture["moves"]) - 1
    assert got["move"] == str(move)
    assert got["title"] == expected["title"] and got["text"] == expected["text"]
    assert got["columns"] == expected["columns"] and got["rows"] == expected["rows"]
    assert got["back"] == (move == 0) and got["next"] == (move == last)
    assert got["label"] == f"{expected['title']}. {expected['text']}"
    # The drawing: shares at the score move, the pieces and the star at the blend.
    assert got["shareLabels"] == ([r[2] for r in expected["rows"]] if expected["name"] == "score" else [])
    assert (got["pieces"] > 0) == (expected["name"] == "blend")
    assert bool(got["star"]) == (expected["name"] == "blend")


def test_the_moves_are_the_package_moves(fixture):
    names = [m["name"] for m in fixture["moves"]]
    assert names == ["look", "score", "blend"]
    blend = fixture["moves"][2]["rows"][-1]
    assert blend == ["blend", "[1.72, 0.28]"]    # the syllabus's cat output, to 2 decimals


def test_buttons_walk_through_the_moves(page, lab, fixture):
    for state in (s for s in fixture["states"] if s["kind"] == "buttons"):
        rewind(page, lab)
        assert_move(lab, fixture, 0)
        perform(page, lab, [("click-enabled", f"button[data-action={press}]") for press in state["presses"]])
        assert_move(lab, fixture, state["move"])


def test_keys_walk_through_the_moves(page, lab, fixture):
    for state in (s for s in fixture["states"] if s["kind"] == "keys"):
        rewind(page, lab)
        perform(page, lab, [("keys", None, state["keys"])])
        assert_move(lab, fixture, state["move"])
        assert lab.evaluate("root => root.contains(document.activeElement) && !document.activeElement.disabled")


def test_focus_never_stays_on_a_disabled_button_and_moves_are_announced(page, lab, fixture):
    nxt = lab.locator("button[data-action=next]")
    for _ in fixture["moves"][1:]:
        nxt.focus()
        page.keyboard.press("Enter")
    focused = lab.evaluate("""root => ({action: document.activeElement.dataset.action,
        visible: document.activeElement.matches(":focus-visible"),
        outline: getComputedStyle(document.activeElement).outlineStyle})""")
    assert focused["action"] == "back" and focused["visible"] and focused["outline"] != "none"
    status = lab.locator(".sa-moves-status")
    assert status.get_attribute("aria-live") == "polite"
    last = fixture["moves"][-1]
    assert status.text_content() == f"{last['title']}. {last['text']}"
    for button in lab.locator("button").all():
        assert button.text_content().strip()
    assert page.locator("link[href$='labs/three-moves.css']").count() == 1


def test_a_tap_works_on_a_touch_screen(browser, site_url, fixture):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        pg = context.new_page()
        pg.goto(f"{site_url}/{PAGE}")
        pg.wait_for_selector(f"{LAB}.sa-lab-ready .sa-moves-table")
        root = pg.locator(LAB)
        root.locator("button[data-action=next]").tap()
        assert_move(root, fixture, 1)
    finally:
        context.close()
