"""Run buttons on cells that read the real model: the site's float16 files, through the explorer's code.

A cell tagged ``run`` and ``model`` (``:tags: [run, model]``) first downloads
the files that ``_static/model/model.json`` names (``run/model-files.js``,
which the explorer's Compute uses too), puts them in the browser's Python and
sets ``SA_MODEL_DIR``, so ``selfattention.minilm`` reads them. Its output
then gives the build's tokens and shapes, and the numbers within what float16
moves them by, which the note under the output states from ``model.json``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from booktools.labs.explorer_compute import MODEL_BROWSER_DIR, MODEL_SITE_DIR
from tests.browser.test_run_cells import numbers, open_run_page, run_box

pytestmark = pytest.mark.browser

PAGE = "attention-in-a-real-model.html"
RUN_JS = Path(__file__).resolve().parents[2] / "book" / "_static" / "sa" / "run" / "run.js"
PAGES_WITH_MODEL_CELLS = ["words-are-islands.html", "attention-in-a-real-model.html", "where-each-word-stands.html"]


def up_to(x: float) -> str:
    """One significant digit, rounded up (as run.js writes a bound after "at most")."""
    e = math.floor(math.log10(x))
    m = math.ceil(x / 10**e)
    return f"{m * 10.0**e:.{max(0, -e)}f}"


@pytest.fixture(scope="module")
def model_page(browser, site_url):
    context = browser.new_context()
    pg = open_run_page(context, site_url, PAGE)
    pg.evaluate("""() => document.querySelectorAll('button.toggle-button').forEach(b => {   // the solutions
      if (b.getAttribute('aria-expanded') === 'false') b.click();
    })""")
    yield pg
    context.close()


def printed(box) -> str:
    """What the build printed under a cell (its output's text, without the copy button)."""
    return box.locator(".cell_output pre").first.text_content().strip()


def model_cell(page, text: str):
    return page.locator(".cell.tag_run.tag_model").filter(has=page.locator(".cell_input", has_text=text)).first


def test_run_js_puts_the_files_where_the_explorer_does():
    js = RUN_JS.read_text(encoding="utf-8")
    assert f'const MODEL_SITE_DIR = "{MODEL_SITE_DIR}";' in js and f'const MODEL_DIR = "{MODEL_BROWSER_DIR}";' in js


@pytest.mark.parametrize("path", PAGES_WITH_MODEL_CELLS)
def test_every_cell_that_reads_the_model_has_a_run_button(browser, site_url, built_book, path):
    html = (built_book / path).read_text(encoding="utf-8")
    assert "tag_model" in html and "No Run button: the browser" not in html
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{site_url}/{path}")
        page.wait_for_selector(".sa-run-button")
        missing = page.evaluate("""() => [...document.querySelectorAll('.cell.tag_model')]
            .filter(c => !c.querySelector('.sa-run-button')).length""")
        assert missing == 0
    finally:
        context.close()


def test_a_model_cell_runs_the_float16_copy_and_gives_the_builds_tokens(model_page, built_book):
    box = model_cell(model_page, "enc = encode(wide)")
    status = run_box(model_page, box)
    assert status.startswith("Done"), (status, box.locator(".sa-run-output").text_content())
    built, ran = printed(box), box.locator(".sa-run-output").text_content().strip()
    assert ran == built                                          # the tokens, and the shape (6, 12, L, L)
    assert any("model-f16.safetensors" in u for u in model_page.requests)
    assert model_page.watch.foreign == [] and model_page.watch.console_errors == []
    # The cells above it ran first: the configuration and the tokens, as the book printed them.
    for text in ("config = minilm.load_config()", "minilm.tokenize("):
        above = model_cell(model_page, text)
        assert above.locator(".sa-run-output").text_content().strip() == printed(above)


def test_its_note_says_how_far_float16_moves_the_numbers(model_page, built_book):
    box = model_cell(model_page, "enc = encode(wide)")
    note = box.locator(".sa-run-note")
    assert note.is_visible()
    change = json.loads((built_book / "_static" / "model" / "model.json").read_text())["float16_change"]
    text = note.text_content()
    assert f"by at most {up_to(change['attention'])} and a hidden-state number by at most " \
           f"{up_to(change['hidden'])} (numbers of size {math.ceil(change['hidden_max'])} at most)" in text, text
    assert float(up_to(change["attention"])) >= change["attention"] > 0


def test_the_numbers_of_a_model_cell_are_the_builds_within_that_bound(model_page, built_book):
    box = model_cell(model_page, "layer, head = np.unravel_index")   # Exercise 12.1's solution
    status = run_box(model_page, box)
    assert status.startswith("Done"), (status, box.locator(".sa-run-output").text_content())
    ran, built = box.locator(".sa-run-output").text_content(), printed(box)
    change = json.loads((built_book / "_static" / "model" / "model.json").read_text())["float16_change"]
    assert re.search(r"layer \d, head \d+", ran) and ran.split(":")[0] == built.split(":")[0]  # the same head
    # The weight it prints, to 3 decimals: float16's change, plus the rounding of both prints.
    np.testing.assert_allclose(numbers(ran)[:3], numbers(built)[:3], atol=change["attention"] + 1e-3)
    assert "✓" in ran                                              # the checker (float16 too) accepts it
