"""The chapter notebooks a student downloads: they read like the page and run with the package alone."""

from __future__ import annotations

import re
import time

import nbformat
import pytest

from tests.book.pages import notebook_pages

pytestmark = pytest.mark.book

CHAPTERS = [p.stem for p in notebook_pages()]
WITH_EXERCISES = [p.stem for p in notebook_pages() if "{solution" in p.read_text(encoding="utf-8")]

#: Imported by the book build, never needed by a student's notebook.
BLOCKED = ("booktools", "myst_nb", "matplotlib", "sphinx", "jupyter_cache", "PIL", "torch")

# Runs first in every notebook under test: a student's machine has none of BLOCKED.
GUARD = f"""
import importlib.abc, sys


class _OnlyThePackage(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}: a student has only selfattention")
sys.meta_path.insert(0, _OnlyThePackage())
"""


def load(built_book, name):
    nb = nbformat.read(built_book / "_notebooks" / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    return nb


def markdown(nb):
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def code(nb):
    return [c.source for c in nb.cells if c.cell_type == "code"]


def all_notebooks():
    return CHAPTERS + [f"{c}-solutions" for c in WITH_EXERCISES]


@pytest.mark.parametrize("name", all_notebooks())
def test_roles_become_their_text_and_numbers(built_book, name):
    text = markdown(load(built_book, name))
    assert not re.findall(r"\{[a-z:]+\}`", text)                 # no {glue:text}`…`, {numref}`…`, {cite:t}`…`
    assert not re.findall(r"^:{3,}\{", text, re.M)                # no MyST directives
    assert not re.findall(r"^\([\w-]+\)=", text, re.M)            # no labels


def test_numbers_figures_and_citations_are_filled_in(built_book):
    nb = load(built_book, "weighted-average")
    text = markdown(nb)
    assert re.search(r"\(Table \d+\.\d+\)", text) and re.search(r"\(Figure \d+\.\d+\)", text)  # chapter.number
    assert re.search(r"Table \d+\.\d+ says that cat keeps 0\.768 of\nitself", text)
    assert "Vaswani et al. (2017)" in text and "Attention Is All You Need" in text
    figures = [c for c in nb.cells if c.get("attachments")]
    assert len(figures) == 2 and all("*Figure" in c.source for c in figures)


@pytest.mark.parametrize("name", all_notebooks())
def test_no_hidden_plumbing_and_no_book_tools(built_book, name):
    nb = load(built_book, name)
    for source in code(nb):
        assert not re.search(r"^\s*(from|import) (booktools|myst_nb|matplotlib|IPython)", source, re.M), source
        assert "glue" not in source and "_check(" not in source and "remove-cell" not in source
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert all(c.metadata == {} or set(c.metadata) <= {"tags"} and not c.metadata.get("tags")
               for c in nb.cells)


@pytest.mark.parametrize("name", WITH_EXERCISES)
def test_student_notebooks_have_exercises_but_no_solutions(built_book, name):
    student, solved = load(built_book, name), load(built_book, f"{name}-solutions")
    exercises = markdown(student).count("**Exercise ")
    assert exercises >= 2
    assert "Solution to" not in markdown(student)
    assert markdown(solved).count("**Solution to Exercise") == exercises
    assert len(code(solved)) > len(code(student)) - exercises


def test_a_code_exercise_keeps_its_checker_call(built_book):
    cells = code(load(built_book, "weighted-average"))
    starter = [s for s in cells if "your line here" in s]
    assert len(starter) == 1 and "sa.check_scores(scores)" in starter[0]
    assert any(s.strip() == "# Your answer here" for s in cells)   # an exercise without starter code
    assert not any("X @ X.T / np.sqrt(d_k)" in s for s in cells)  # the solution's line


def test_learning_where_to_look_keeps_its_checker_call_and_hides_its_solution(built_book):
    cells = code(load(built_book, "learning-where-to-look"))
    starter = [s for s in cells if "your line here" in s]
    assert len(starter) == 1 and "sa.check_gradient_step(c_next, c=1.0, learning_rate=0.5)" in starter[0]
    assert not any("c_next = c - 0.5 * gradient" in s for s in cells)          # the solution's line
    solved = code(load(built_book, "learning-where-to-look-solutions"))
    assert any("c_next = c - 0.5 * gradient" in s for s in solved)


def test_the_head_exercise_keeps_its_starter_and_checker_call(built_book):
    cells = code(load(built_book, "one-head-in-code"))
    starter = [s for s in cells if "your lines here" in s]
    assert len(starter) == 1 and "sa.check_head(head)" in starter[0] and "def head(X, W_Q, W_K, W_V):" in starter[0]
    assert not any("weights = sa.softmax(scores, axis=-1)         # (L, L)" in s for s in cells)  # the solution


def test_a_self_check_keeps_its_hints_and_answer_folded(built_book):
    text = markdown(load(built_book, "weighted-average"))
    assert "**Self-check (a number).** Before you run the code: what is the raw score cat · dog" in text
    assert "<details><summary>Hint 2</summary>" in text and "The answer is: **2**." in text


def test_the_book_links_both_notebooks(built_book):
    html = (built_book / "weighted-average.html").read_text(encoding="utf-8")
    assert 'href="_notebooks/weighted-average.ipynb" download' in html
    solutions = html.count('href="_notebooks/weighted-average-solutions.ipynb" download')
    assert solutions == 1 + html.count('class="solution dropdown admonition"')
    assert 'href="index.html#notebooks"' in html
    assert 'id="notebooks"' in (built_book / "index.html").read_text(encoding="utf-8")


def run(nb, folder):
    from nbclient import NotebookClient

    nb.cells.insert(0, nbformat.v4.new_code_cell(GUARD))
    start = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute()
    return time.perf_counter() - start


@pytest.mark.parametrize("name", all_notebooks())
def test_notebook_runs_top_to_bottom_with_only_the_package(built_book, tmp_path, name):
    nb = load(built_book, name)
    seconds = run(nb, tmp_path)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    print(f"{name}: {seconds:.1f} s")
    if name in ("weighted-average-solutions", "one-head-in-code-solutions"):
        assert any("✓ Right" in str(o.get("data", {}).get("text/markdown", "")) for o in outputs)


def test_the_cross_attention_notebook_keeps_its_checker_and_hides_its_solution(built_book):
    cells = code(load(built_book, "self-and-cross-attention"))
    starter = [s for s in cells if "# your line" in s]
    assert len(starter) == 1 and "sa.check_cross_weights(weights)" in starter[0]
    assert not any("Q @ K.T / np.sqrt(Q.shape[1])" in s for s in cells)  # the solution's line
    solved = code(load(built_book, "self-and-cross-attention-solutions"))
    assert any("Q @ K.T / np.sqrt(Q.shape[1])" in s for s in solved)


def test_the_rope_exercise_keeps_its_checker_and_hides_its_solution(built_book):
    cells = code(load(built_book, "where-each-word-stands"))
    starter = [s for s in cells if "# your line" in s]
    assert len(starter) == 1 and "sa.check_rope(y)" in starter[0]
    assert not any("y[0::2] = x[0::2] * c - x[1::2] * s" in s for s in cells)  # the solution's line
    solved = code(load(built_book, "where-each-word-stands-solutions"))
    assert any("y[0::2] = x[0::2] * c - x[1::2] * s" in s for s in solved)


def test_the_scaling_exercise_keeps_its_checker_call(built_book):
    cells = code(load(built_book, "why-divide-by-sqrt-dk"))
    starter = [s for s in cells if "your line here" in s]
    assert len(starter) == 1 and "sa.check_scaled_row(row)" in starter[0]
    solutions = code(load(built_book, "why-divide-by-sqrt-dk-solutions"))
    assert any("K @ q / np.sqrt(d_k)" in s for s in solutions)


@pytest.mark.parametrize("name, calls", [
    ("attention-in-a-real-model", ["sa.check_strongest_head(to_river, layer, head)",
                                   "sa.check_head_counts(n_more, n_strong)"]),
    ("the-cost-of-full-context", ["sa.check_score_memory(n_bytes)", "sa.check_window_count(count)"]),
])
def test_the_exercises_of_chapters_11_and_12_keep_their_checker_calls(built_book, name, calls):
    student = code(load(built_book, name))
    for call in calls:
        starter = [s for s in student if call in s]
        assert len(starter) == 1 and " = ...  " in starter[0], call
    solved = code(load(built_book, f"{name}-solutions"))
    assert sum("sa.check_" in s for s in solved) >= len(calls)


def test_the_causal_masking_exercise_keeps_its_checker_and_hides_its_solution(built_book):
    student = code(load(built_book, "causal-masking"))
    starter = [s for s in student if "your line here" in s]
    assert len(starter) == 1 and "sa.check_causal_mask(my_mask, n)" in starter[0]
    assert not any("mask4 = np.tril" in s for s in student)
    assert any("mask4 = np.tril" in s for s in code(load(built_book, "causal-masking-solutions")))


