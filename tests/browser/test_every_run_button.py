"""Every Run button of every page, and every published solution, as a reader meets them.

For each page that the book's table of contents lists (every toctree of
``book/index.md``, so a new page is covered without a line of test code here):

* **The page's cells.** In a new reader's tab (:class:`~tests.browser.conftest.Tabs`: a new
  document, every storage of the site emptied, so a new Python), every Run button is pressed in page order,
  as a reader scrolling down would. None may fail, and each output must be what the build printed
  under the cell: the same text, or, under a cell that reads the real model (tagged ``model``), the
  same words with every number within how far float16 moves it (the note under the output).
  A ``run`` cell without a Run button fails the test.
* **Each code exercise**, in another new reader's tab: its published solution is pasted into the editor and
  run, and the checker must say it is right, as the solution said on the page; then a typical wrong
  answer is typed: the solution, followed by the page's "first attempt" cell (the ``run`` cell
  between the exercise and its solution that calls the same checker). The checker must name the
  slip, as it did under that cell.

So each exercise needs a solution whose code runs alone (``run.js`` runs an exercise and a solution
in a namespace of their own) and a first-attempt cell; the test fails when either is missing.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from tests.book.pages import BOOK
from tests.browser.test_run_cells import wait_status

pytestmark = pytest.mark.browser

EXERCISE = re.compile(r"^:{3,}\{exercise\}\n:label: (?P<label>\S+)\n(?P<body>.*?)^:{3,}$", re.M | re.S)
CHECKER = re.compile(r"\b(check_\w+)\(")
#: The end of a run: done, or one of run.js's messages of failure.
FINISHED = re.compile(r"^(Done|The cell raised|A cell above failed|This browser cannot|Python|Stopped|"
                      r"the runtime files|the model's files)")
PLAIN = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})
#: The text a cell's output shows, without its copy button's.
PRINTED = ("(el) => { const c = el.cloneNode(true); "
           "c.querySelectorAll('button, .copybtn').forEach(b => b.remove()); return c.textContent; }")
NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def toc_pages() -> list[str]:
    """The front page and every page of the book's toctrees (``book/index.md``), in their order."""
    text = (BOOK / "index.md").read_text(encoding="utf-8")
    return ["index"] + [line.strip() for body in re.findall(r"```\{toctree\}\n(.*?)```", text, re.S)
            for line in body.splitlines() if line.strip() and not line.startswith(":")]


def code_exercises() -> list[tuple[str, str]]:
    """``(page, label)`` of every exercise whose code block calls a checker (it gets an editor)."""
    found = []
    for page in toc_pages():
        for m in EXERCISE.finditer((BOOK / f"{page}.md").read_text(encoding="utf-8")):
            if "```python" in m["body"] and CHECKER.search(m["body"]):
                found.append((page, m["label"]))
    return found


def flat(text: str) -> str:
    """Text with its runs of white space made one space (the build's HTML and a run's output wrap
    lines differently), and the typographic quotes and ellipsis that the build's Markdown makes of a
    checker's message (its ``_repr_markdown_``) made plain again, as the browser prints them."""
    return " ".join(text.translate(PLAIN).replace("…", "...").split())


def float16_tolerance(built_book: Path) -> float:
    """How far float16 may move a printed number of the model: its largest change (model.json's
    float16_change, measured at build) plus the last printed digit of three decimals."""
    change = json.loads((built_book / "_static" / "model" / "model.json").read_text())["float16_change"]
    return max(change["attention"], change["hidden"]) + 1e-3


def same_output(ran: str, built: str, *, model: bool, tolerance: float) -> str | None:
    """``None`` if a run printed what the build printed, else why not.

    The same words, and the same numbers: to the last digit mostly, but within 1e-6 of each other
    (relative or absolute) in all, because the browser's NumPy (WebAssembly, no OpenBLAS) may round
    a sum differently in its last bit, which shows in a number that measures a rounding error (1e-15
    here, 4e-15 there) or in a float32's last printed digit. Under a cell that reads the model,
    numbers agree within ``tolerance``, float16's change.
    """
    ran, built = flat(ran), flat(built)
    if ran == built:
        return None
    if NUMBER.sub("#", ran) != NUMBER.sub("#", built):
        return f"ran {ran!r}, the build printed {built!r}: not the same words"
    close = tolerance if model else 1e-6
    for a, b in zip(NUMBER.findall(ran), NUMBER.findall(built)):
        if not math.isclose(float(a), float(b), abs_tol=close, rel_tol=1e-3 if model else 1e-6):
            return f"ran {ran!r}, the build printed {built!r}: {a} is not {b} within {close:.2g}"
    return None


def open_reader_page(tabs, page: str):
    """A new reader's tab at ``page``, its folds and solutions open (as a reader opens them)."""
    pg = tabs.open(f"{page}.html")
    pg.evaluate("""() => {
      document.querySelectorAll('.sa-fold-bar button').forEach(b => b.click());
      document.querySelectorAll('details').forEach(d => { d.open = true; });
      document.querySelectorAll('button.toggle-button').forEach(b => {
        if (b.getAttribute('aria-expanded') === 'false') b.click();
      });
    }""")
    return pg


def press(page, box) -> tuple[str, str]:
    """Press a box's Run button; return its status and output once the run has ended."""
    button = box.locator(".sa-run-button").first
    button.scroll_into_view_if_needed()
    button.click()
    status = wait_status(page, box, FINISHED, timeout=180_000)
    return status, box.locator(".sa-run-output").first.text_content()


@pytest.mark.parametrize("page", toc_pages())
def test_every_run_button_of_the_page_gives_what_the_build_printed(tabs, built_book, page):
    html = (built_book / f"{page}.html").read_text(encoding="utf-8")
    if "tag_run" not in html:
        assert "sa-run-button" not in html
        return
    pg = open_reader_page(tabs, page)
    pg.wait_for_selector(".sa-run-button")
    boxes = pg.locator(".cell.tag_run")
    n = boxes.count()
    assert pg.locator(".cell.tag_run:not(:has(.sa-run-button))").count() == 0, "a run cell has no Run button"
    tolerance = float16_tolerance(built_book)
    problems = []
    for i in range(n):
        box = boxes.nth(i)
        code = box.locator(".cell_input pre").first.text_content()
        status, ran = press(pg, box)
        where = f"cell {i + 1} of {n} ({code.strip().splitlines()[0]!r})"
        if not status.startswith("Done"):
            problems.append(f"{where}: {status} {ran[-500:]}")
            continue
        built = box.locator(".cell_output").first.evaluate(PRINTED) if box.locator(".cell_output").count() else ""
        differs = same_output(ran if built else ran.replace("(no output)", ""), built,
                              model="tag_model" in (box.get_attribute("class") or ""), tolerance=tolerance)
        if differs:
            problems.append(f"{where}: {differs}")
    assert pg.watch.console_errors == [] and pg.watch.foreign == []
    assert problems == [], "\n".join(problems)


def exercise_parts(pg, label: str) -> dict:
    """The exercise's editor box, its solution's code and printed output, and its first attempt's."""
    return pg.evaluate(f"""(label) => {{
      const exercise = document.getElementById(label);
      const solution = [...document.querySelectorAll('.solution')]
        .find(s => s.querySelector(`.admonition-title a[href="#${{label}}"]`));
      const editor = exercise && exercise.querySelector('.sa-run-exercise');
      const starter = editor ? editor.querySelector('textarea').value : '';
      const checker = (starter.match(/\\b(check_\\w+)\\(/) || [])[1];
      const text = (cell, part) => {{
        const el = cell && cell.querySelector(part);
        return el ? ({PRINTED})(el) : null;
      }};
      const runCells = [...document.querySelectorAll('.cell.tag_run')];
      const follows = (a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING;
      const attempt = runCells.find(c => exercise && solution && follows(exercise, c) && follows(c, solution)
        && !solution.contains(c) && (text(c, '.cell_input pre') || '').includes(checker + '('));
      const sol = solution && solution.querySelector('.cell.tag_run');
      return {{
        found: !!editor, checker: checker || null,
        solution: text(sol, '.cell_input pre'), solutionPrinted: text(sol, '.cell_output'),
        solutionModel: !!sol && sol.classList.contains('tag_model'),
        attempt: text(attempt, '.cell_input pre'), attemptPrinted: text(attempt, '.cell_output'),
      }};
    }}""", label)


@pytest.mark.parametrize("page, label", code_exercises())
def test_the_published_solution_passes_and_a_first_attempt_gets_its_slip_named(tabs, built_book, page, label):
    pg = open_reader_page(tabs, page)
    pg.wait_for_selector(".sa-run-exercise")
    parts = exercise_parts(pg, label)
    assert parts["found"] and parts["checker"], f"{label} has no editor that calls a checker"
    assert parts["solution"], f"{label}'s solution has no run cell"
    assert parts["attempt"] and parts["attemptPrinted"], \
        f"{label} has no first-attempt run cell (calling {parts['checker']}) between it and its solution"
    assert "✓" in parts["solutionPrinted"] and "✗" in parts["attemptPrinted"]
    box = pg.locator(f"#{label} .sa-run-exercise")
    area = box.locator("textarea")
    tolerance = float16_tolerance(built_book)

    area.fill(parts["solution"])
    status, ran = press(pg, box)
    assert status.startswith("Done"), (status, ran)
    assert "✓" in ran, ran
    differs = same_output(ran, parts["solutionPrinted"], model=parts["solutionModel"], tolerance=tolerance)
    assert differs is None, differs

    area.fill(parts["solution"].rstrip("\n") + "\n" + parts["attempt"])
    status, ran = press(pg, box)
    assert status.startswith("Done"), (status, ran)
    verdict = ran[ran.rindex("✗"):] if "✗" in ran else ran
    differs = same_output(verdict, parts["attemptPrinted"], model=parts["solutionModel"], tolerance=tolerance)
    assert differs is None, differs
    assert pg.watch.console_errors == [] and pg.watch.foreign == []
