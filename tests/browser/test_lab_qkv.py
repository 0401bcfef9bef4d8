"""The "Q, K, V" lab and the "I love cats" trace show the package's numbers in every state and step.

The expected values are computed here, by the package, from the configuration
each element holds in the built page (``booktools.labs.qkv`` and
``booktools.labs.qkv_trace``); the page ships no test data. The lab's
JavaScript is compared with the NumPy package cell by cell, as formatted
strings: the start, every preset, the projections switched off, numbers typed
into the boxes and arrow keys in a box, on a desktop and on a phone.
"""

from __future__ import annotations

import pytest

from booktools.labs.qkv import qkv_tables
from tests.browser.conftest import lab_fixture, open_lab_page, perform
from tests.browser.test_lab_devices import TEXT_AND_BACKGROUND, contrast, open_page

PAGE = "queries-keys-values.html"
LAB = "#qkv-lab"
TRACE = "#qkv-trace"

READ = """root => {
  const tables = Object.fromEntries([...root.querySelectorAll("table[data-table]")].map(t =>
    [t.dataset.table, [...t.querySelectorAll("tbody tr")].map(tr =>
      [...tr.querySelectorAll("td")].map(td => td.textContent))]));
  tables.symmetric = root.dataset.symmetric === "true";
  return tables;
}"""

READ_STEP = """root => { const s = root.querySelector(".sa-trace-step:not([hidden])");
  return {title: s.querySelector(".sa-trace-title").textContent, text: s.querySelector(".sa-trace-text").textContent,
          tables: [...s.querySelectorAll("table")].map(t => ({caption: t.caption.textContent,
            cols: [...t.querySelectorAll("thead th")].map(th => th.textContent),
            rows: [...t.querySelectorAll("tbody th")].map(th => th.textContent),
            cells: [...t.querySelectorAll("tbody tr")].map(tr =>
              [...tr.querySelectorAll("td")].map(td => td.textContent))}))};
}"""


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "qkv-lab", "qkv")


@pytest.fixture(scope="module")
def trace_fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, "qkv-trace", "qkv-trace")


@pytest.fixture(scope="module")
def page(browser, site_url):
    """One page load for the whole module; each test resets the lab."""
    yield from open_lab_page(browser, site_url, PAGE, f"{LAB}.sa-lab-ready table[data-table=weights] td")


@pytest.fixture
def lab(page):
    root = page.locator(LAB)
    root.locator("button[data-action=reset]").click()
    page.mouse.move(1, 1)
    yield root
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"


def box_at(name, i, j):
    return f"input.sa-qkv-box[data-m='{name}'][data-r='{i}'][data-c='{j}']"


def box(lab, name, i, j):
    return lab.locator(box_at(name, i, j))


def steps(action) -> list:
    """The fixture's action as the shared interpreter's steps, from Reset."""
    out = [("click", "button[data-action=reset]")]
    if action.get("preset"):
        out.append(("click", f"button[data-preset='{action['preset']}']"))
    kind = action["kind"]
    if kind == "projections":
        out.append(("check", "input.sa-qkv-proj", action["on"]))
    elif kind == "edit":
        out += [("fill", box_at(name, i, j), text) for name, i, j, text in action["edits"]]
    elif kind == "keys":
        out.append(("keys", box_at(*action["box"]), action["keys"]))
    return out


def explanation(page, lab, a, b, how):
    cell = lab.locator(f"table[data-table=scores] td[data-r='{a}'][data-c='{b}']")
    if how == "hover":
        cell.hover()
    else:
        page.mouse.move(1, 1)   # the pointer stays off the tables while the page scrolls to the cell
        cell.focus()
    text = lab.locator(".sa-qkv-explain").text_content()
    page.mouse.move(1, 1)
    lab.locator("button[data-action=reset]").focus()
    return text


@pytest.mark.browser
def test_every_state_matches_the_package(page, lab, fixture):
    wrong = []
    for state in fixture["states"]:
        perform(page, lab, steps(state["action"]))
        shown = lab.evaluate(READ)
        if shown != state["tables"]:
            wrong.append((state["name"], shown, state["tables"]))
    assert wrong == []
    kinds = {s["action"]["kind"] for s in fixture["states"]}
    assert kinds == {"initial", "preset", "projections", "edit", "keys"}


@pytest.mark.browser
def test_pointing_at_or_focusing_a_score_names_its_query_and_key(page, lab, fixture):
    for state in fixture["states"]:
        for pair, expected in state["explain"].items():
            a, b = map(int, pair.split(","))
            for how in ("hover", "focus"):
                perform(page, lab, steps(state["action"]))
                assert explanation(page, lab, a, b, how) == expected, (state["name"], pair, how)
    # The pair is marked in the tables: the looker's query row, the target's key row, the score.
    lab.locator("button[data-preset=one-way]").click()
    lab.locator("table[data-table=scores] td[data-r='2'][data-c='0']").hover()
    assert (lab.get_attribute("data-looker"), lab.get_attribute("data-target")) == ("car", "cat")
    assert "is-pair" in lab.locator("table[data-table=q] td[data-r='2'][data-c='0']").get_attribute("class")
    assert "is-pair" in lab.locator("table[data-table=k] td[data-r='0'][data-c='1']").get_attribute("class")
    page.mouse.move(1, 1)
    assert lab.get_attribute("data-looker") is None
    assert lab.locator(".sa-qkv-explain").text_content().startswith("Point at a score")


@pytest.mark.browser
def test_the_badge_follows_the_symmetry_and_presets_are_announced(page, lab, fixture):
    by_preset = {s["action"]["preset"]: s for s in fixture["states"] if s["action"]["kind"] == "preset"}
    assert [p for p, s in by_preset.items() if not s["tables"]["symmetric"]] == ["one-way"]
    badge = lab.locator(".sa-qkv-badge")
    for preset, state in by_preset.items():
        lab.locator(f"button[data-preset='{preset}']").click()
        assert badge.get_attribute("data-symmetric") == str(state["tables"]["symmetric"]).lower()
        assert badge.text_content() == ("✓ symmetric scores" if state["tables"]["symmetric"] else "✗ not symmetric")
        status = lab.locator(".sa-qkv-status").text_content()
        assert status.startswith(f"Preset: {lab.locator(f'button[data-preset={preset!r}]').text_content()}.")
    assert lab.locator(".sa-qkv-status").get_attribute("aria-live") == "polite"


@pytest.mark.browser
def test_without_projections_the_matrices_are_locked_and_a_preset_turns_them_back_on(page, lab, fixture):
    lab.locator("button[data-preset=one-way]").click()
    lab.locator("input.sa-qkv-proj").set_checked(False)
    assert lab.get_attribute("data-projections") == "false"
    assert box(lab, "w_k", 1, 0).is_disabled() and not box(lab, "x", 0, 0).is_disabled()
    lab.locator("button[data-preset=swap]").click()
    assert lab.locator("input.sa-qkv-proj").is_checked() and not box(lab, "w_k", 1, 0).is_disabled()


@pytest.mark.browser
def test_an_unusable_entry_is_marked_and_ignored(page, lab, fixture):
    start = fixture["states"][0]["tables"]
    b = box(lab, "w_q", 0, 0)
    b.fill("")
    assert b.get_attribute("aria-invalid") == "true"
    assert lab.evaluate(READ) == start        # the last usable number still counts
    b.fill("1000")                            # beyond the lab's limit
    assert b.get_attribute("aria-invalid") == "true" and lab.evaluate(READ) == start
    b.press("Tab")                            # leaving the box puts the number back
    assert b.input_value() == "1" and b.get_attribute("aria-invalid") == "false"


@pytest.mark.browser
def test_every_step_of_the_trace_matches_the_package(page, trace_fixture):
    trace = page.locator(TRACE)
    page.wait_for_selector(f"{TRACE}.sa-lab-ready")
    back, nxt = trace.locator("button[data-action=back]"), trace.locator("button[data-action=next]")
    while not back.is_disabled():
        back.click()
    steps = trace_fixture["steps"]
    assert [s["id"] for s in steps] == ["inputs", "projections", "scores", "scaling", "softmax", "output"]
    for k, step in enumerate(steps):
        assert trace.get_attribute("data-step") == str(k)
        shown = trace.evaluate(READ_STEP)
        expected = {"title": step["title"], "text": step["text"],
                    "tables": [{"caption": t["caption"], "cols": t["cols"], "rows": t["rows"], "cells": t["cells"]}
                               for t in step["tables"]]}
        assert shown == expected, step["id"]
        assert trace.locator(".sa-trace-step:not([hidden])").count() == 1
        if k < len(steps) - 1:
            nxt.click()
            assert trace.locator(".sa-trace-status").text_content() == f"{steps[k + 1]['title']}."
    assert nxt.is_disabled()


@pytest.mark.browser
def test_the_trace_works_with_the_keyboard(page, trace_fixture):
    trace = page.locator(TRACE)
    back, nxt = trace.locator("button[data-action=back]"), trace.locator("button[data-action=next]")
    while not back.is_disabled():
        back.click()
    nxt.focus()
    n = len(trace_fixture["steps"])
    for _ in range(n - 1):
        page.keyboard.press("Enter")
    assert trace.get_attribute("data-step") == str(n - 1)
    # Next is now disabled: the focus moved to Back instead of getting lost.
    assert page.evaluate("document.activeElement.dataset.action") == "back"
    page.keyboard.press("Space")
    assert trace.get_attribute("data-step") == str(n - 2)


@pytest.mark.book
def test_without_javascript_every_step_of_the_trace_is_in_the_page(built_book, trace_fixture):
    html = (built_book / PAGE).read_text(encoding="utf-8")
    for step in trace_fixture["steps"]:
        assert step["title"] in html
        for table in step["tables"]:
            for row in table["cells"]:
                assert "".join(f"<td>{v}</td>" for v in row) in html


# ---------------------------------------------------------------------------
# A phone with a touch screen, and the trace in dark mode
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def phone(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, f"{LAB}.sa-lab-ready table[data-table=weights] td",
                             viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)


@pytest.mark.browser
def test_touch_presets_and_typing_work_on_a_phone(phone, fixture):
    lab = phone.locator(LAB)
    lab.locator("button[data-action=reset]").tap()
    lab.locator("button[data-preset=one-way]").tap()
    expected = next(s for s in fixture["states"] if s["action"] == {"kind": "preset", "preset": "one-way"})
    assert lab.evaluate(READ) == expected["tables"]
    b = box(lab, "x", 1, 0)
    b.tap()
    b.fill("-1")
    inputs = expected["inputs"]
    x = [list(r) for r in inputs["x"]]
    x[1][0] = -1.0
    assert lab.evaluate(READ) == qkv_tables(x, inputs["w_q"], inputs["w_k"], inputs["w_v"], fixture["words"])
    lab.locator("table[data-table=scores] td[data-r='0'][data-c='2']").tap()   # a tap focuses a score
    assert lab.locator(".sa-qkv-explain").text_content().startswith("cat looks at car")
    trace = phone.locator(TRACE)
    trace.locator("button[data-action=next]").tap()
    assert trace.get_attribute("data-step") == "1"
    assert phone.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    assert phone.watch.console_errors == []


@pytest.mark.browser
@pytest.mark.parametrize("mode", ["light", "dark"])
def test_every_text_of_the_trace_is_readable(tabs, mode):
    page = open_page(tabs, PAGE, TRACE, mode=mode, viewport={"width": 1366, "height": 900})
    page.wait_for_selector(f"{TRACE}.sa-lab-ready")
    for _ in range(3):
        page.locator(f"{TRACE} button[data-action=next]").click()
    texts = page.locator(TRACE).evaluate(TEXT_AND_BACKGROUND)
    assert len(texts) >= 8 and [t for t in texts if "bad" in t] == []
    low = [(t["text"], round(contrast(t["fg"], t["bg"]), 2)) for t in texts
           if contrast(t["fg"], t["bg"]) < (3.0 if t["size"] >= 18.5 else 4.5) and t["opacity"] == 1]
    assert low == []
