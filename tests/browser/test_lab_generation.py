"""The "generation" lab shows the package's weights and counts, whatever is pressed and however.

The expected values are computed here from the lab's own configuration in
the built page (``booktools.labs.generation``, from
``selfattention.scaled_dot_product_attention`` and
``selfattention.scores_per_step``; the page ships no test data). Each test
state is a list of presses from the start ("next", "back", "mode"). They are
performed with the mouse, with the keyboard (Enter and Space on a focused
button) and by touch, and the table, the highlighted cells, the counts, the
cache strip and the toggle must then show what the package gives.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import lab_fixture, open_lab_page

pytestmark = pytest.mark.browser

PAGE = "one-word-at-a-time.html"
LAB = "#gen-lab"
READY = f"{LAB}.sa-lab-ready .sa-gen-cell"


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "gen-lab", "generation")


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
    return lab.evaluate("""root => {
        const cells = [...root.querySelectorAll(".sa-gen-cell")];
        const t = Number(root.dataset.t);
        const rows = Array.from({length: t}, (_, i) => cells.filter(c => c.dataset.row === String(i)));
        const mode = root.querySelector("button[data-action=mode]");
        return {t, weights: rows.map(r => r.map(c => c.textContent)),
                computed: rows.map(r => r.map(c => c.dataset.now === "true")),
                step: root.querySelector("[data-count=step]").textContent,
                pick: root.querySelector("[data-count=pick]").textContent,
                total: root.querySelector("[data-count=total]").textContent,
                kept: [...root.querySelectorAll(".sa-gen-cache li")].map(li => li.textContent),
                pressed: mode.getAttribute("aria-pressed"), label: mode.textContent,
                words: [...root.querySelectorAll(".sa-gen-text span")].map(s => s.textContent)};
    }""")


def count(n: int) -> str:
    return f"{n:,}"


def step_text(state, prompt: int) -> str:
    """The lab's count of one step: the step that reads t tokens (the prefill reads the whole prompt)."""
    if state["t"] == prompt:
        return f"The prefill reads the {state['t']} tokens of the prompt at once: {count(state['step'])} scores."
    return f"This step reads {state['t']} tokens: {count(state['step'])} scores."


def assert_shows(lab, fixture, state):
    got = shown(lab)
    name = state["name"]
    assert got["t"] == state["t"], name
    assert got["weights"] == state["weights"], name
    assert got["computed"] == [row[: i + 1] for i, row in enumerate(state["computed"])], name
    assert got["step"] == step_text(state, fixture["prompt"]), name
    # Review R4-1: the step that reads t tokens picks token t + 1 (counting from one), which has no row yet.
    assert got["pick"] == f"It picks token {state['t'] + 1}: “{state['picked']}”.", name
    assert len(got["weights"]) == state["t"], name
    assert got["total"] == f"So far: {count(state['total'])} scores.", name
    assert got["kept"] == state["kept"], name
    assert got["pressed"] == ("true" if state["cache"] else "false"), name
    assert got["label"] == ("KV cache: on" if state["cache"] else "KV cache: off"), name
    assert got["words"] == fixture["tokens"][: state["t"]], name


def button(lab, action):
    return lab.locator(f"button[data-action={action}]")


def test_clicks_match_the_package(desk, fixture):
    for state in fixture["states"]:
        lab = fresh(desk)
        for press in state["presses"]:
            target = button(lab, press)
            if target.is_enabled():
                target.click()
        assert_shows(lab, fixture, state)
    assert desk.watch.console_errors == [] and desk.watch.foreign == []


def test_keyboard_matches_the_package(desk, fixture):
    for state in fixture["states"]:
        lab = fresh(desk)
        for k, press in enumerate(state["presses"]):
            target = button(lab, press)
            if target.is_enabled():
                target.focus()
                desk.keyboard.press("Enter" if k % 2 == 0 else " ")
        assert_shows(lab, fixture, state)
    assert desk.watch.console_errors == []


def test_taps_match_the_package(phone, fixture):
    for state in fixture["states"]:
        lab = fresh(phone)
        for press in state["presses"]:
            target = button(lab, press)
            if target.is_enabled():
                target.tap()
        assert_shows(lab, fixture, state)
    assert phone.watch.console_errors == []


def test_the_buttons_stop_at_the_ends(desk, fixture):
    lab = fresh(desk)
    assert button(lab, "back").is_disabled()
    for _ in range(len(fixture["tokens"]) - fixture["prompt"]):
        button(lab, "next").click()
    assert button(lab, "next").is_disabled() and button(lab, "back").is_enabled()


def test_status_is_announced_and_everything_has_a_name(desk):
    lab = fresh(desk)
    status = lab.locator(".sa-gen-status")
    assert status.get_attribute("aria-live") == "polite"
    button(lab, "next").click()
    assert status.text_content().startswith("Next step. This step reads")
    button(lab, "mode").click()
    assert status.text_content().startswith("KV cache off")
    button(lab, "next").focus()
    desk.keyboard.press("Tab")
    desk.keyboard.press("Shift+Tab")
    focused = desk.evaluate("""() => { const el = document.activeElement; const st = getComputedStyle(el);
        return {visible: el.matches(":focus-visible"), outline: st.outlineStyle,
                width: parseFloat(st.outlineWidth)}; }""")
    assert focused["visible"] and focused["outline"] != "none" and focused["width"] >= 2
    for b in lab.locator("button").all():
        assert (b.get_attribute("aria-label") or b.text_content()).strip()
    assert lab.locator("caption").text_content().strip()
    assert desk.locator("link[href$='labs/generation.css']").count() == 1


def test_the_lab_fits_a_phone(phone, fixture):
    lab = fresh(phone)
    for _ in range(len(fixture["tokens"]) - fixture["prompt"]):
        button(lab, "next").tap()
    widths = phone.evaluate("""() => ({page: document.documentElement.scrollWidth, screen: window.innerWidth,
        lab: document.querySelector("#gen-lab").getBoundingClientRect().right})""")
    assert widths["page"] <= widths["screen"] and widths["lab"] <= widths["screen"] + 0.5
