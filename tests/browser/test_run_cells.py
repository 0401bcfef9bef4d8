"""Run buttons (booksite.runcells): the reader's code runs in Chromium, offline.

Python is loaded once for the module (one page, kept open); the tests then
run cells in that page as a reader would, in this order: a cell, the
exercise (wrong, then right), an infinite loop and Stop, a deep recursion.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.browser.conftest import PageWatch

pytestmark = pytest.mark.browser

PAGE = "weighted-average.html"
STATUS_DONE = re.compile(r"Done|error|failed|restarted|missing|cannot")


def open_run_page(context, site_url, path):
    """A page with Run buttons, its requests recorded and its folds open (as a reader opens them)."""
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)
    pg.requests = []
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.goto(f"{site_url}/{path}")
    pg.wait_for_selector(".sa-run-button")
    pg.evaluate("() => document.querySelectorAll('.sa-fold-bar button').forEach(b => b.click())")
    return pg


@pytest.fixture(scope="module")
def run_page(browser, site_url):
    context = browser.new_context()
    yield open_run_page(context, site_url, PAGE)
    context.close()


def cell_with(page, text: str):
    """The ``run`` cell whose code contains ``text``."""
    return page.locator(".cell.tag_run").filter(has=page.locator(".cell_input", has_text=text)).first


def wait_status(page, box, pattern=STATUS_DONE, timeout=120_000):
    status = box.locator(".sa-run-status")
    page.wait_for_function("([el, p]) => new RegExp(p).test(el.textContent)",
                           arg=[status.element_handle(), pattern.pattern], timeout=timeout)
    return status.text_content()


def run_box(page, box, pattern=STATUS_DONE):
    button = box.locator(".sa-run-button")
    button.scroll_into_view_if_needed()
    button.click()
    return wait_status(page, box, pattern)


def exercise(page):
    return page.locator(".sa-run-exercise").first


def run_exercise(page, code: str, pattern=STATUS_DONE) -> tuple[str, str]:
    box = exercise(page)
    box.locator("textarea").fill(code)
    status = run_box(page, box, pattern)
    return status, box.locator(".sa-run-output").text_content()


def numbers(text: str) -> np.ndarray:
    return np.array([float(x) for x in re.findall(r"-?\d+\.\d*|-?\d+", text)])


def test_nothing_downloads_before_the_first_run(browser, site_url):
    context = browser.new_context()
    pg = context.new_page()
    seen = []
    pg.on("request", lambda r: seen.append(r.url))
    pg.goto(f"{site_url}/{PAGE}")
    pg.wait_for_selector(".sa-run-button")
    pg.wait_for_timeout(300)
    context.close()
    assert [u for u in seen if "/runtime" in u or "wasi_shim" in u] == []


def test_run_gives_the_numbers_the_build_computed(run_page):
    box = cell_with(run_page, "sa.softmax(scores)")
    status = run_box(run_page, box)
    assert status.startswith("Done"), status
    built = box.locator(".cell_output").text_content()
    ran = box.locator(".sa-run-output").text_content()
    np.testing.assert_allclose(numbers(ran), numbers(built), atol=0)
    assert numbers(ran).size == 9
    assert any("python.wasm.gz" in u for u in run_page.requests)


def test_state_persists_and_cells_above_run_first(run_page):
    # `output = weights @ X` needs X and weights from the cells above it.
    box = cell_with(run_page, "output = weights @ X")
    status = run_box(run_page, box)
    assert status.startswith("Done"), status
    np.testing.assert_allclose(numbers(box.locator(".sa-run-output").text_content()),
                               numbers(box.locator(".cell_output").text_content()), atol=0)


def test_sleep_takes_the_time_asked(run_page):
    status, out = run_exercise(run_page, "import time\nt = time.monotonic()\ntime.sleep(0.2)\n"
                                         "print(time.monotonic() - t)")
    assert status.startswith("Done"), status
    # At least the time asked, and not a stalled page: a busy machine may add a little (0.25 s was seen
    # in CI), so the upper bound is loose; the test is that sleep sleeps, not how precisely.
    assert 0.2 <= float(out.strip()) < 2.0, out


def test_exercise_gets_the_checkers_message(run_page):
    box = exercise(run_page)
    box.locator(".sa-run-reset").click()  # an earlier test typed in the editor
    starter = box.locator("textarea").input_value()
    assert "sa.check_scores(scores)" in starter and "scores = ..." in starter
    status, out = run_exercise(run_page, starter.replace("scores = ...", "scores = X @ X.T"))
    assert "✗" in out and "did you forget to divide by sqrt(d_k)" in out, out
    status, out = run_exercise(run_page, starter.replace("scores = ...", "scores = X @ X.T / np.sqrt(d_k)"))
    assert out.startswith("✓ Right"), out


def test_stop_ends_an_infinite_loop_and_python_restarts(run_page):
    box = exercise(run_page)
    box.locator("textarea").fill("while True:\n    pass")
    box.locator(".sa-run-button").click()
    wait_status(run_page, box, re.compile("Running…"))
    run_page.wait_for_timeout(300)
    box.locator(".sa-run-stop").click()
    assert "Stopped" in wait_status(run_page, box, re.compile("Stopped"))
    box = cell_with(run_page, "output = weights @ X")           # the cells above it run again first
    status = run_box(run_page, box)
    assert status.startswith("Done"), status
    np.testing.assert_allclose(numbers(box.locator(".sa-run-output").text_content()),
                               numbers(box.locator(".cell_output").text_content()), atol=0)


def test_an_exercise_runs_alone_in_a_namespace_of_its_own(run_page):
    # The page's cells have run (the test above): the exercise sees none of their variables,
    # and what it defines is gone at its next Run.
    status, out = run_exercise(run_page, "secret = 1\nprint('weights' in globals(), 'np' in globals())")
    assert status.startswith("Done"), status
    assert out.strip() == "False False"
    status, out = run_exercise(run_page, "print('secret' in globals())")
    assert out.strip() == "False"


def test_deep_python_recursion_is_a_recursion_error(run_page):
    code = "import sys\nsys.setrecursionlimit(10**5)\ndef f(n):\n    return f(n + 1)\nf(0)"
    status, out = run_exercise(run_page, code)
    assert "raised an error" in status
    assert out.rstrip().endswith("RecursionError: maximum recursion depth exceeded")


def test_an_error_shows_the_readers_frames_only_and_the_status_points_below(run_page):
    # The status sits above the output: it says "below". No frame of the runtime's own library.
    status, out = run_exercise(run_page, "print(1")
    assert "below" in status and "above" not in status, status
    assert "python315.zip" not in out and "ast.py" not in out, out
    assert 'File "<cell>", line 1' in out and "SyntaxError" in out, out
    status, out = run_exercise(run_page, "def f():\n    return 1 / 0\nf()")
    assert "below" in status, status
    assert out.count('File "<cell>"') == 2 and "python315.zip" not in out, out
    assert out.rstrip().endswith("ZeroDivisionError: division by zero"), out
    run_exercise(run_page, "pass")  # the next test starts from a clean status


def test_a_crash_restarts_with_a_clear_message(run_page):
    # repr of a deeply nested list recurses in C: the browser's stack overflows (a RangeError).
    code = "x = []\nfor _ in range(200000):\n    x = [x]\nrepr(x)"
    status, _ = run_exercise(run_page, code, re.compile("restarted"))
    assert "ran out of stack" in status and "restarted" in status
    status, out = run_exercise(run_page, "print(1 + 1)")
    assert status.startswith("Done") and out.strip() == "2"


def test_no_request_left_the_site(run_page):
    assert run_page.watch.foreign == []
    assert run_page.watch.console_errors == []


def test_csp_allows_wasm_and_nothing_else(run_page):
    policy = run_page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    script_src = next(p for p in policy.split(";") if p.strip().startswith("script-src"))
    assert "'wasm-unsafe-eval'" in script_src
    assert "'unsafe-eval'" not in policy and "'unsafe-inline'" not in script_src


def test_page_works_without_the_runtime_files(browser, site_url):
    context = browser.new_context()
    pg = context.new_page()
    pg.route("**/_static/sa/run/runtime/**", lambda route: route.fulfill(status=404, body="missing"))
    pg.goto(f"{site_url}/{PAGE}")
    box = cell_with(pg, "sa.softmax(scores)")
    assert "0.768" in box.locator(".cell_output").text_content()  # the build's output is there
    status = run_box(pg, box)
    context.close()
    assert "missing" in status


def test_browser_without_exnref_gets_the_notebook_link(browser, site_url):
    context = browser.new_context()
    context.add_init_script("WebAssembly.validate = () => false;")
    pg = context.new_page()
    pg.goto(f"{site_url}/{PAGE}")
    box = cell_with(pg, "sa.softmax(scores)")
    box.locator(".sa-run-button").click()
    status = box.locator(".sa-run-status")
    status.wait_for()
    text, link = status.text_content(), status.locator("a").get_attribute("href")
    context.close()
    assert "cannot run" in text
    assert link.endswith("weighted-average.ipynb")


@pytest.mark.parametrize("width", [1366, 390])
def test_the_editor_keys_run_indent_and_leave_and_the_editor_says_so(browser, site_url, width):
    """Ctrl+Enter and Cmd+Enter run the cell; Tab indents; Esc, then Tab, leaves; a visible hint says so.

    ``run()`` is reached without the 27 MB runtime: the browser is told it
    lacks WebAssembly exception references, so a run ends at once with the
    "cannot run" message, which shows that the keys asked for a run.
    """
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_init_script("WebAssembly.validate = () => false;")
    try:
        pg = context.new_page()
        pg.goto(f"{site_url}/{PAGE}")
        pg.wait_for_selector(".sa-run-exercise textarea")
        pg.evaluate("() => document.querySelectorAll('.sa-fold-bar button').forEach(b => b.click())")
        box = exercise(pg)
        area, status = box.locator("textarea"), box.locator(".sa-run-status")
        hint = box.locator(".sa-run-keys")
        assert hint.is_visible()
        assert hint.text_content() == ("This code runs on its own: it needs nothing from the page's cells. "
                                       "Ctrl+Enter (⌘+Enter on a Mac) runs. Tab inserts four spaces; "
                                       "Esc, then Tab, leaves the editor.")
        assert area.get_attribute("aria-describedby") == hint.get_attribute("id")
        start = area.input_value()
        area.focus()
        pg.keyboard.press("End")
        pg.keyboard.press("Enter")            # Enter alone is a new line, not a run
        assert area.input_value().count("\n") == start.count("\n") + 1 and status.is_hidden()
        pg.keyboard.press("Tab")              # Tab indents by four spaces and keeps the focus
        assert area.input_value().endswith("\n    ") and area.evaluate("el => el === document.activeElement")
        for chord in ("Control+Enter", "Meta+Enter"):
            pg.evaluate("() => { const s = document.querySelector('.sa-run-exercise .sa-run-status');"
                        " s.textContent = ''; s.hidden = true; }")
            area.focus()
            pg.keyboard.press(chord)
            status.wait_for(state="visible")
            assert "cannot run" in status.text_content(), chord
            assert area.input_value().endswith("\n    ")   # the chord ran the code; it typed nothing
        area.focus()
        pg.keyboard.press("Escape")
        pg.keyboard.press("Tab")              # Esc, then Tab: the focus leaves the editor
        assert not area.evaluate("el => el === document.activeElement")
        assert area.input_value().endswith("\n    ")
    finally:
        context.close()


def test_a_failed_cell_above_is_linked_and_runs_again_next_time(tabs):
    """A cell above that fails stops the run; the status links to it; it is not marked as run."""
    pg = tabs.open(PAGE)
    pg.wait_for_selector(".sa-run-button")
    pg.evaluate("() => document.querySelectorAll('.sa-fold-bar button').forEach(b => b.click())")
    first = pg.locator(".cell.tag_run").first
    code = first.locator(".cell_input pre")
    kept = code.evaluate("el => { const t = el.textContent; el.textContent = '1 / 0'; return t; }")
    box = cell_with(pg, "output = weights @ X")
    status = run_box(pg, box)
    assert status.startswith("A cell above failed"), status
    link = box.locator(".sa-run-status a")
    assert link.get_attribute("href") == f"#{first.get_attribute('id')}"
    assert "ZeroDivisionError" in first.locator(".sa-run-output").text_content()
    assert box.locator(".sa-run-note").is_hidden()
    link.click()
    assert first.locator(".sa-run-output").evaluate("el => el === document.activeElement")
    code.evaluate("(el, t) => { el.textContent = t; }", kept)
    status = run_box(pg, box)                  # the failed cell was not marked as run: it runs again
    assert status.startswith("Done"), status
    assert first.locator(".sa-run-output").text_content().strip() != ""
