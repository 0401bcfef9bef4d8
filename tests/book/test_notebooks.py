"""The chapter notebooks a student downloads: they read like the page and run as their first cell says."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

import nbformat
import pytest

from tests.book.pages import notebook_pages

pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[2]

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
def test_no_markup_is_left(built_book, name):
    text = markdown(load(built_book, name))
    prose = re.sub(r"^(`{3,}|~{3,})(?!\{).*?^\1\s*$", "", text, flags=re.S | re.M)  # code fences hold code
    assert not re.findall(r"\{[a-z][\w:-]*\}`", text)             # no {glue:text}`…`, {doc}`…`, {cite:t}`…`
    assert not re.findall(r"^\s*(?::{3,}|`{3,}|~{3,})\{", text, re.M)  # no directive, colon or backtick
    assert not re.findall(r"\{\{.*?\}\}", prose, re.S)              # no {{ substitution }}
    assert not re.findall(r"^\([\w-]+\)=", text, re.M)            # no labels
    assert not re.findall(r"^:[\w-]+:", prose, re.M)               # no directive options
    for slug in CHAPTERS:                                          # {doc} links read as titles, not slugs
        if slug == "index":                                        # also an English word ("at index 0")
            assert not re.search(r"\[index\]|\(index\)", prose)
            continue
        assert not re.search(rf"(?<![\w/.`-]){re.escape(slug)}(?![\w.-])", prose), slug


def test_literalinclude_becomes_the_code(built_book):
    text = markdown(load(built_book, "one-head-in-code"))
    assert "arr = arr.astype(" in text and "scores = q @ np.swapaxes(k, -1, -2)" in text
    assert "scores = _scores(q, k, scale)" in text


def test_the_front_page_notebook_has_its_version_citation_and_notebook_list(built_book):
    text = markdown(load(built_book, "index"))
    import selfattention

    assert f"This is version {selfattention.__version__}" in text and "@misc{" in text
    assert "“A weighted average”: `weighted-average.ipynb`" in text


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
    assert "Work through this chapter in Jupyter" in html
    for page in ("index", "testing"):   # not chapters
        assert "Work through this page in Jupyter" in (built_book / f"{page}.html").read_text(encoding="utf-8")


def first_cell_install_lines(nb) -> tuple[str, ...]:
    """The lines of the ``console`` block in the notebook's first cell: what it says to install."""
    block = re.search(r"```console\n(.*?)\n```", nb.cells[0].source, re.S)
    return tuple(block.group(1).splitlines()) if block else ()


def clean_env() -> dict[str, str]:
    """The environment without this checkout's PYTHONPATH or virtual environment."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}


def make_clone(folder: Path) -> Path:
    """What `pip install .` reads from a clone of the book (a copy: a build leaves files behind)."""
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(ROOT / "src", folder / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return folder


def make_venv(folder: Path, clone: Path, lines: tuple[str, ...]) -> Path:
    """A fresh virtual environment with exactly ``lines`` run in ``clone``, and a Jupyter kernel."""
    venv.create(folder, with_pip=True, system_site_packages=False)
    python = folder / "bin" / "python"
    for line in lines:
        args = shlex.split(line)
        assert args[:2] == ["pip", "install"], f"not an install line: {line!r}"
        done = subprocess.run([str(python), "-m", *args, "--quiet"], cwd=clone, env=clean_env(),
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{line}:\n{done.stderr[-3000:]}"
    # Jupyter's kernel, pinned as in requirements.txt: what a student's Jupyter provides. It is not one of
    # the notebook's lines, so uv installs it (make venv's installer: 1 s where pip takes 8 s) if it can.
    uv = Path(sys.executable).with_name("uv")
    installer = [str(uv), "pip", "install", "--python", str(python), "--compile-bytecode"] if uv.exists() \
        else [str(python), "-m", "pip", "install"]
    kernel = subprocess.run([*installer, "--quiet", f"ipykernel=={pin('ipykernel')}",
                             "-c", str(ROOT / "requirements.txt")], env=clean_env(), capture_output=True, text=True,
                            timeout=900)
    assert kernel.returncode == 0, kernel.stderr[-3000:]
    return python


def pin(name: str) -> str:
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{name}=="):
            return line.split("==", 1)[1].strip()
    raise KeyError(name)


@pytest.fixture(scope="session")
def fresh_python(tmp_path_factory):
    """``fresh_python(lines)``: the Python of a fresh venv made with those install lines, one per set of lines."""
    clone = make_clone(tmp_path_factory.mktemp("clone"))
    made: dict[tuple[str, ...], Path] = {}

    def get(lines: tuple[str, ...]) -> Path:
        if lines not in made:
            start = time.perf_counter()
            made[lines] = make_venv(tmp_path_factory.mktemp("venv"), clone, lines)
            print(f"fresh venv for {' && '.join(lines) or 'no install lines'}: {time.perf_counter() - start:.0f} s")
        return made[lines]

    return get


def run(nb, folder: Path, python: Path, monkeypatch) -> float:
    """Execute ``nb`` top to bottom in ``folder`` with a kernel of ``python``; the seconds it took."""
    from nbclient import NotebookClient

    kernels = folder / "kernels" / "fresh-venv"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "fresh venv", "language": "python",
    }), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(folder))   # where nbclient's kernel manager finds "fresh-venv"
    nb.cells.insert(0, nbformat.v4.new_code_cell(GUARD))
    start = time.perf_counter()
    NotebookClient(nb, kernel_name="fresh-venv", timeout=600,
                   resources={"metadata": {"path": str(folder)}}).execute(env=clean_env())
    return time.perf_counter() - start


@pytest.mark.library   # installs from a package registry (or pip's cache) into fresh venvs
@pytest.mark.parametrize("name", all_notebooks())
def test_notebook_runs_as_written_in_a_fresh_venv(built_book, fresh_python, tmp_path, monkeypatch, name):
    """The install lines of the notebook's own first cell, run in a clone, are all it needs to run."""
    nb = load(built_book, name)
    lines = first_cell_install_lines(nb)
    has_code = any(c.cell_type == "code" and c.source.strip() for c in nb.cells)
    assert bool(lines) == has_code, lines
    assert not lines or lines[0] == "pip install ."
    python = fresh_python(lines or ("pip install .",))
    seconds = run(nb, tmp_path, python, monkeypatch)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, errors[0].get("evalue")
    print(f"{name}: {seconds:.1f} s")
    if name in ("weighted-average-solutions", "one-head-in-code-solutions"):
        assert any("✓ Right" in str(o.get("data", {}).get("text/markdown", "")) for o in outputs)
    if name == "why-not-left-to-right":   # the starter, run unedited, points at its placeholder
        assert any("the placeholder ..." in str(o.get("data", {})) for o in outputs)


def test_only_the_notebooks_that_run_the_model_install_it(built_book):
    needs_model = {name for name in all_notebooks() if len(first_cell_install_lines(load(built_book, name))) > 1}
    uses_model = {name for name in all_notebooks()
                  if any(re.search(r"\bminilm\b", s) for s in code(load(built_book, name)))}
    assert needs_model == uses_model and "why-divide-by-sqrt-dk" not in needs_model
    assert {"words-are-islands", "attention-in-a-real-model", "the-whole-block"} <= needs_model


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
    ("one-word-at-a-time", ["sa.check_decode_step(out)"]),
    ("a-model-that-writes", ["sa.check_top_p(kept)", "sa.check_bits_per_character(bpc)"]),
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
    assert not any("my_mask = np.tril" in s for s in student)
    assert any("my_mask = np.tril" in s for s in code(load(built_book, "causal-masking-solutions")))


