"""The referent game plays its three rounds with the mouse, the keyboard and touch.

What each pick must say is computed here from the built page's own
configuration (``booktools.labs.referent_game``); the page ships no test
data. A wrong pick shows its own hint and is struck out; the right pick
shows why and opens the next round; the last round ends with a summary and
a way to play again.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import lab_fixture, open_lab_page

pytestmark = pytest.mark.browser

PAGE = "words-are-islands.html"
LAB = "#referent-game"


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "referent-game", "referent-game")


@pytest.fixture(scope="module")
def page(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, f"{LAB}.sa-lab-ready .sa-referent-choices button")


@pytest.fixture
def lab(page):
    yield page.locator(LAB)
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"


def restart(page, lab):
    page.reload()
    page.wait_for_selector(f"{LAB}.sa-lab-ready .sa-referent-choices button")
    assert lab.get_attribute("data-round") == "0"


def feedback(lab) -> str:
    return lab.locator(".sa-referent-feedback").text_content()


def test_the_rounds_are_the_syllabus_rounds(fixture):
    assert fixture["total"] == 3
    assert [r["answer"] for r in fixture["rounds"]] == ["cat", "mat", "street"]
    assert fixture["rounds"][0]["sentence"].startswith("The cat sat on the mat because it was")


def test_mouse_wrong_then_right_in_every_round(page, lab, fixture):
    restart(page, lab)
    for i, r in enumerate(fixture["rounds"]):
        assert lab.get_attribute("data-round") == str(i)
        sentence = lab.locator(".sa-referent-sentence").text_content()
        assert sentence == r["sentence"]
        assert lab.locator(".sa-referent-round").text_content() == f"Round {i + 1} of {fixture['total']}"
        assert lab.locator(".sa-referent-score").text_content() == "right at the first try: 0"
        assert lab.locator("button[data-action=next], button[data-action=again]").count() == 0
        for noun in r["wrong"]:
            lab.locator(f"button[data-noun={noun}]").click()
            assert feedback(lab) == f"Not the {noun}. {r['feedback'][noun]}"
            assert lab.locator(f"button[data-noun={noun}]").is_disabled()
            assert lab.get_attribute("data-solved") == "false"
        lab.locator(f"button[data-noun={r['answer']}]").click()
        assert feedback(lab) == f"Right: the {r['answer']}. {r['feedback'][r['answer']]}"
        assert lab.get_attribute("data-solved") == "true"
        if i < fixture["total"] - 1:
            lab.locator("button[data-action=next]").click()
    summary = lab.locator(".sa-referent-summary").text_content()
    assert summary.startswith(f"You found all {fixture['total']}, 0 of them at the first try.")
    assert lab.locator("button[data-action=again]").is_visible()


def test_keyboard_alone_plays_every_round_at_the_first_try(page, lab, fixture):
    restart(page, lab)
    lab.locator(".sa-referent-choices button").first.focus()
    for i, r in enumerate(fixture["rounds"]):
        # Tab through the nouns to the answer, then Enter.
        order = [b.get_attribute("data-noun") for b in lab.locator(".sa-referent-choices button").all()]
        for _ in range(order.index(r["answer"])):
            page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.dataset.noun") == r["answer"]
        assert page.evaluate("document.activeElement.matches(':focus-visible')")
        page.keyboard.press("Enter")
        assert feedback(lab) == f"Right: the {r['answer']}. {r['feedback'][r['answer']]}"
        # The focus moves to "Next round" (or "Play again" after the last round).
        action = "again" if i == fixture["total"] - 1 else "next"
        assert page.evaluate("document.activeElement.dataset.action") == action
        page.keyboard.press("Enter")
        if action == "next":
            assert page.evaluate("document.activeElement.dataset.noun") is not None
    assert lab.get_attribute("data-round") == "0"   # "Play again" starts over


def test_the_summary_counts_first_tries(page, lab, fixture):
    restart(page, lab)
    for i, r in enumerate(fixture["rounds"]):
        if i == 0:
            lab.locator(f"button[data-noun={r['wrong'][0]}]").click()
        lab.locator(f"button[data-noun={r['answer']}]").click()
        if i < fixture["total"] - 1:
            lab.locator("button[data-action=next]").click()
    n = fixture["total"]
    assert lab.locator(".sa-referent-score").text_content() == f"right at the first try: {n - 1}"
    assert lab.locator(".sa-referent-summary").text_content().startswith(
        f"You found all {n}, {n - 1} of them at the first try.")
    status = lab.locator(".sa-referent-feedback")
    assert status.get_attribute("role") == "status" and status.get_attribute("aria-live") == "polite"
    group = lab.locator(".sa-referent-choices")
    assert group.get_attribute("role") == "group" and group.get_attribute("aria-labelledby")


def test_taps_play_a_round_on_a_touch_screen(browser, site_url, fixture):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        pg = context.new_page()
        pg.goto(f"{site_url}/{PAGE}")
        pg.wait_for_selector(f"{LAB}.sa-lab-ready .sa-referent-choices button")
        root = pg.locator(LAB)
        first = fixture["rounds"][0]
        root.locator(f"button[data-noun={first['answer']}]").tap()
        assert root.get_attribute("data-solved") == "true"
        root.locator("button[data-action=next]").tap()
        assert root.get_attribute("data-round") == "1"
    finally:
        context.close()
