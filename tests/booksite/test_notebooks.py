"""Chapter notebooks from an executed page: roles resolved, plumbing dropped, solutions apart."""

import base64
import re
from pathlib import Path

import nbformat
import pytest

from booksite.notebooks import (
    MODEL_INSTALL,
    READERS_INSTALL,
    NotebookExportError,
    References,
    chapter_notebooks,
    install_lines,
    needs_book_tools,
    resolve_roles,
    setup_imports,
    substitute,
)

ROOT = Path(__file__).resolve().parents[2]

PNG = base64.b64encode(b"\x89PNG fake").decode()
REFS = References(
    numbers={"fig-a": "Figure 2", "tbl-a": "Table 4", "ex-1": "Exercise 3", "ex-2": "Exercise 4"},
    titles={"ch-a": "A weighted average"},
    documents={"a": "A page", "weighted-average": "A weighted average"},
    substitutions={"version": "0.1.0", "listing": "- {doc}`weighted-average`"},
    citations={"v17": ("Vaswani et al.", "2017", "Vaswani, A. et al. (2017). Attention. NeurIPS.")},
    glue={"w": {"text/plain": "0.76805"}, "n": {"text/plain": "16384000000"}},
)


def md(text):
    return nbformat.v4.new_markdown_cell(text)


def cell(source, tags=(), outputs=(), mystnb=None):
    c = nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)} if tags else {})
    if mystnb:
        c.metadata["mystnb"] = mystnb
    c.outputs = [nbformat.v4.new_output("execute_result", data=d, execution_count=1) for d in outputs]
    return c


def page(*cells):
    nb = nbformat.v4.new_notebook(cells=list(cells))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    return nb


def build(*cells):
    return chapter_notebooks(page(md("(ch-a)=\n# A page"), *cells), REFS, title="A page", stem="a")


def text_of(nb):
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


@pytest.mark.parametrize("role, text", [
    ("{glue:text}`w:.3f`", "0.768"), ("{glue:text}`n:,d`", "16,384,000,000"), ("{glue}`w`", "0.76805"),
    ("{numref}`fig-a`", "Figure 2"), ("{numref}`Tab. %s <tbl-a>`", "Tab. 4"),
    ("{ref}`ch-a`", "“A weighted average”"), ("{ref}`this chapter <ch-a>`", "this chapter"),
    ("{cite:t}`v17`", "Vaswani et al. (2017)"), ("{cite:p}`v17`", "(Vaswani et al., 2017)"),
    ("{kbd}`?`", "<kbd>?</kbd>"), ("{math}`x^2`", "$x^2$"),
    ("{doc}`weighted-average`", "“A weighted average”"), ("{doc}`that one <weighted-average>`", "that one"),
])
def test_roles_become_the_text_the_book_shows(role, text):
    assert resolve_roles(f"a {role} b", REFS) == f"a {text} b"


@pytest.mark.parametrize("role, match", [("{glue:text}`nope`", "glued key 'nope'"),
                                         ("{numref}`fig-z`", "fig-z"), ("{cite:p}`x99`", "x99"),
                                         ("{doc}`no-such-page`", "not a page of the book"),
                                         ("{abbr}`X`", "does not know the role")])
def test_an_unknown_role_label_or_key_fails_loudly(role, match):
    with pytest.raises(NotebookExportError, match=match):
        resolve_roles(role, REFS)


def test_hidden_cells_go_and_what_they_drew_stays_as_markdown():
    student, solutions = build(
        cell("import numpy as np\nfrom booktools.style import use\nuse()", tags=["remove-cell"]),
        cell("MystTable(...)", tags=["remove-input"],
             outputs=[{"text/markdown": ":::{table} Scores.\n:name: tbl-a\n\n| a |\n|---|\n| 1 |\n:::",
                       "text/plain": "<table>"}]),
        cell("plot()", tags=["remove-input"], mystnb={"figure": {"caption": "Words, {numref}`tbl-a`.",
                                                                 "name": "fig-a"},
                                                      "image": {"alt": "Three arrows."}},
             outputs=[{"image/png": PNG, "text/plain": "<Figure>"}]),
        cell("lab()", tags=["remove-input"], outputs=[{"text/html": '<div class="sa-lab">x</div>'}]),
        cell("fixture()", tags=["remove-input"], outputs=[{"text/html": '<script class="sa-fixture">'}]),
        cell("np.ones(2)"),
    )
    assert solutions is None
    assert [c.source for c in student.cells if c.cell_type == "code"] == ["import numpy as np", "np.ones(2)"]
    text = text_of(student)
    assert "**Table 4:** Scores.\n\n| a |" in text
    assert "![Three arrows.](attachment:fig-a.png)\n\n*Figure 2: Words, Table 4.*" in text
    assert "interactive lab" in text and "fixture" not in text and "(ch-a)=" not in text
    figure = next(c for c in student.cells if c.get("attachments"))
    assert figure.attachments == {"fig-a.png": {"image/png": PNG}}
    assert student.cells[0].source.startswith("# A page\n\n") and "```console\npip install .\n```" in text
    assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")


def test_a_cell_that_needs_the_book_tools_is_shown_not_run():
    student, _ = build(cell("from booktools import explore\nexplore.main([])"))
    assert not [c for c in student.cells if c.cell_type == "code"]
    assert "shown here, not run:\n\n```python\nfrom booktools import explore" in text_of(student)
    assert needs_book_tools("import matplotlib.pyplot as plt") == ["matplotlib"]


def test_setup_imports_only_what_the_visible_code_uses():
    hidden = ["import os\nimport numpy as np\nfrom selfattention import cost, sparse\nfrom myst_nb import glue"]
    assert setup_imports(hidden, ["cost.score_count(4)"]) == "from selfattention import cost"


def test_directives_become_plain_markdown():
    student, _ = build(md(":::{dropdown} Stuck? A hint\n:icon: question\n\nTry {glue:text}`w:.2f`.\n:::\n\n"
                          ":::{admonition} Keep in mind\n:class: note\n\n$$a = b$$\n:::\n\n"
                          ":::{note}\nA note.\n:::"))
    text = text_of(student)
    assert "<details><summary>Stuck? A hint</summary>\n\nTry 0.77.\n\n</details>" in text
    assert "**Keep in mind**\n\n$$a = b$$" in text and "**Note**\n\nA note." in text
    assert ":::" not in text and ":icon:" not in text


def test_an_unknown_directive_fails_loudly():
    with pytest.raises(NotebookExportError, match="does not know the directive"):
        build(md(":::{margin}\nx\n:::"))


EXERCISES = [
    md("## Exercises\n\n:::{exercise}\n:label: ex-1\n\nWrite the line.\n\n```python\nscores = ...\n"
       "sa.check_scores(scores)\n```\n:::\n\n::::{solution-start} ex-1\n:class: dropdown\n::::"),
    cell("scores = X @ X.T / np.sqrt(2)\nsa.check_scores(scores)"),
    md("It is {glue:text}`w:.3f`.\n\n::::{solution-end}\n::::\n\n:::{exercise}\n:label: ex-2\n\n"
       "Guess first.\n:::\n\n:::{solution} ex-2\n:class: dropdown\n\nBigger.\n\n```python\nX2 = 2 * X\n```\n:::"),
    md("## References\n\nAfter {cite:t}`v17`."),
]


def test_the_student_notebook_has_the_exercises_and_no_solutions():
    student, _ = build(*EXERCISES)
    code = [c.source for c in student.cells if c.cell_type == "code"]
    assert code == ["scores = ...\nsa.check_scores(scores)", "# Your answer here"]
    text = text_of(student)
    assert "**Exercise 3.** Write the line." in text and "**Exercise 4.** Guess first." in text
    assert "Solution" not in text and "0.768" not in text and "Bigger" not in text
    assert "The solutions are in `a-solutions.ipynb`." in text
    assert text.endswith("**Works cited**\n\n- Vaswani, A. et al. (2017). Attention. NeurIPS.")


def test_the_solutions_notebook_has_each_solution_after_its_exercise():
    _, solutions = build(*EXERCISES)
    code = [c.source for c in solutions.cells if c.cell_type == "code"]
    assert code == ["scores = X @ X.T / np.sqrt(2)\nsa.check_scores(scores)", "X2 = 2 * X"]
    text = text_of(solutions)
    assert text.index("**Exercise 3.**") < text.index("**Solution to Exercise 3.**") < text.index("It is 0.768.")
    assert text.index("**Exercise 4.**") < text.index("**Solution to Exercise 4.**") < text.index("Bigger.")
    assert "```python\nscores = ...\nsa.check_scores(scores)\n```" in text   # the starter, shown


def test_notebooks_are_the_same_on_every_build():
    a, b = build(*EXERCISES), build(*EXERCISES)
    assert nbformat.writes(a[0]) == nbformat.writes(b[0]) and nbformat.writes(a[1]) == nbformat.writes(b[1])
    nbformat.validate(a[0])
    nbformat.validate(a[1])


def first_cell_install_lines(nb):
    block = re.search(r"```console\n(.*?)\n```", nb.cells[0].source, re.S)
    return block.group(1).splitlines() if block else []


def test_the_first_cell_gives_the_install_lines_the_code_needs():
    plain, _ = build(cell("import selfattention as sa\nsa.three_words()"))
    assert first_cell_install_lines(plain) == ["pip install ."]
    model, _ = build(cell("from selfattention import minilm\nminilm.encode('The cat sat.')"))
    assert first_cell_install_lines(model) == ["pip install .", *MODEL_INSTALL]
    hidden_model, _ = build(cell("d = sa.minilm.load_config().head_size", tags=["remove-cell"]),
                            cell("import numpy as np\nnp.ones(2)"))
    assert first_cell_install_lines(hidden_model) == ["pip install ."]   # the hidden cell is not in it
    nothing, _ = build(md("Only prose."))
    assert first_cell_install_lines(nothing) == [] and "no code to run" in nothing.cells[0].source
    assert install_lines(["import safetensors"]) == ["pip install .", *MODEL_INSTALL, READERS_INSTALL]


def test_the_model_readers_are_pinned_as_in_requirements():
    pins = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    readers = READERS_INSTALL.removeprefix("pip install ").split()
    assert readers == [f"{name}=={pins[name]}" for name in ("safetensors", "tokenizers")]


def test_substitutions_directives_and_doc_links_become_text(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('def f(x):\n    """Doc."""\n    y = x + 1\n    return y\n\n\ndef g():\n    pass\n')
    student, _ = chapter_notebooks(page(
        md("# A page\n\nVersion {{ version }}.\n\n{{ listing }}\n\n"
           "```{literalinclude} m.py\n:language: python\n:pyobject: f\n:start-at: y = x\n:end-at: return y\n"
           ":lineno-match:\n```\n\n```{toctree}\n:hidden:\n\nweighted-average\n```\n\n"
           "```{toctree}\n\nweighted-average\n```")), REFS, title="A page", stem="a", book_dir=tmp_path)
    text = text_of(student)
    assert "Version 0.1.0." in text and "- “A weighted average”\n\n```python\n    y = x + 1\n    return y\n```" in text
    assert text.rstrip().endswith("- “A weighted average”")
    assert not re.search(r"\{\{|\{[a-z:-]+\}|:pyobject:|:hidden:", text)
    with pytest.raises(NotebookExportError, match="has no value"):
        substitute("{{ nope }}", {})
    with pytest.raises(NotebookExportError, match="does not know the directive"):
        build(md("```{margin}\nx\n```"))
