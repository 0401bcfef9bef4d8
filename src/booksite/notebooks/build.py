"""The two notebooks of a chapter: one to work in, one with the solutions.

:func:`chapter_notebooks` reads the executed page cell by cell, with the
helpers of :mod:`booksite.notebooks.markdown` (Markdown and directives),
:mod:`booksite.notebooks.roles` (inline roles) and
:mod:`booksite.notebooks.cells` (imports and installs).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from booktools.labs.contract import LAB_CLASS

from .cells import _tags, _text, install_text, needs_book_tools, setup_imports
from .markdown import _parse, _Writer, substitute
from .roles import References


def _output_pieces(cell, writer: _Writer) -> None:
    """What a hidden-input cell showed on the page, as Markdown."""
    meta = cell.get("metadata", {}).get("mystnb", {})
    figure = meta.get("figure", {})
    alt = meta.get("image", {}).get("alt", "").replace("\n", " ").strip()
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if out.get("output_type") == "stream":
            writer.md(f"```\n{_text(out.get('text', '')).rstrip()}\n```")
        elif "image/png" in data:
            label = figure.get("name")
            number = writer.refs.numbers.get(label, "Figure") if label else "Figure"
            caption = writer.inline(" ".join(figure.get("caption", "").split()))
            name = f"{label or 'figure'}.png"
            text = f"![{writer.inline(alt)}](attachment:{name})"
            if caption:
                text += f"\n\n*{number}: {caption}*"
            writer.md(text, {name: {"image/png": _text(data["image/png"]).replace("\n", "")}})
        elif "text/markdown" in data:
            writer.render(_parse(_text(data["text/markdown"]).splitlines()))
        elif f'class="{LAB_CLASS}"' in _text(data.get("text/html", "")):
            writer.md("*The book's web page has an interactive lab here: open the chapter in a browser "
                      "to use it.*")


def _build(executed, refs: References, solutions: bool, note: str, book_dir: Path | None):
    writer = _Writer(refs, solutions, book_dir)
    hidden, visible = [], []
    for cell in executed.cells:
        source = _text(cell.source)
        if cell.cell_type == "markdown":
            writer.render(_parse(substitute(source, refs.substitutions).splitlines()))
            continue
        tags = _tags(cell)
        if "remove-cell" in tags:
            hidden.append(source)
        elif "remove-input" in tags:
            hidden.append(source)
            if "remove-output" not in tags:
                _output_pieces(cell, writer)
        elif needs_book_tools(source):
            tools = ", ".join(f"`{m}`" for m in needs_book_tools(source))
            writer.md(f"This cell uses the book's own tools ({tools}), which a notebook with only "
                      f"`selfattention` does not have. It is shown here, not run:\n\n```python\n{source}\n```")
        else:
            writer.code(source)

    # Keep or drop solutions; gather the code that will run.
    pieces, in_solution = [], False
    for piece in writer.pieces:
        if piece[0] == "start":
            in_solution = True
            if solutions:
                label = piece[1]
                name = refs.numbers.get(label, "the exercise above")
                pieces.append(("md", f"**Solution to {name}.**", {}))
            continue
        if piece[0] == "end":
            in_solution = False
            continue
        if in_solution and not solutions:
            continue
        pieces.append(piece)
    for piece in pieces:
        if piece[0] == "code":
            visible.append(piece[1])
    setup = setup_imports(hidden, visible)

    cells = []
    for piece in pieces:
        if piece[0] == "code":
            cells.append(nbformat.v4.new_code_cell(piece[1].rstrip("\n")))
            continue
        text, attachments = piece[1].strip("\n"), piece[2]
        if not text.strip():
            continue
        if cells and cells[-1].cell_type == "markdown" and not attachments and not cells[-1].get("attachments"):
            cells[-1].source += "\n\n" + text
        else:
            cell = nbformat.v4.new_markdown_cell(text)
            if attachments:
                cell["attachments"] = attachments
            cells.append(cell)
    # The first cell: the title, the note and what to install; then the imports.
    first = nbformat.v4.new_markdown_cell(note + "\n\n" + install_text(visible + [setup]))
    if cells and cells[0].cell_type == "markdown" and cells[0].source.startswith("# "):
        title, _, rest = cells[0].source.partition("\n")
        first.source = title + "\n\n" + first.source
        cells[0:1] = [nbformat.v4.new_markdown_cell(rest.strip("\n"))] if rest.strip() else []
    cells[0:0] = [first] + ([nbformat.v4.new_code_cell(setup)] if setup else [])
    if writer.cited:
        entries = "\n".join(f"- {refs.citations[k][2]}" for k in writer.cited)
        cells.append(nbformat.v4.new_markdown_cell(f"**Works cited**\n\n{entries}"))

    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    for i, cell in enumerate(nb.cells):   # stable ids: reproducible files
        cell["id"] = f"cell-{i}"
    nb.metadata = {
        "kernelspec": dict(executed.metadata.get("kernelspec", {"name": "python3", "display_name": "Python 3"})),
        "language_info": {"name": "python"},
    }
    return nb


def has_solutions(executed) -> bool:
    """Whether a page holds solutions (and so gets a solutions notebook)."""
    return any(c.cell_type == "markdown" and re.search(r"^:{3,}\{solution", _text(c.source), re.M)
               for c in executed.cells)


def chapter_notebooks(executed, refs: References, *, title: str, stem: str, book_dir: Path | None = None):
    """The student notebook and, if the page has solutions, the solutions notebook.

    Parameters
    ----------
    executed : nbformat.NotebookNode
        The page as the book build executed it (cells, tags and outputs).
    refs : References
        Numbers, titles, citations and glued values from the book build.
    title : str
        The chapter's title.
    stem : str
        The file name of the student notebook without ``.ipynb``; the
        solutions notebook is ``<stem>-solutions.ipynb``.
    book_dir : Path, optional
        The book's source folder, for images of ``{figure}`` directives.

    Returns
    -------
    student, solutions : nbformat.NotebookNode, nbformat.NotebookNode or None

    Raises
    ------
    NotebookExportError
        If the page uses a role or directive that the export does not know.

    Examples
    --------
    >>> nb = nbformat.v4.new_notebook(cells=[
    ...     nbformat.v4.new_markdown_cell("# T"),
    ...     nbformat.v4.new_code_cell("import numpy as np\\nfrom booktools import fmt",
    ...                               metadata={"tags": ["remove-cell"]}),
    ...     nbformat.v4.new_code_cell("np.ones(2)"),
    ...     nbformat.v4.new_markdown_cell(":::{exercise}\\n:label: ex-1\\n\\nAdd one.\\n:::\\n\\n"
    ...                                   ":::{solution} ex-1\\n```python\\nnp.ones(2) + 1\\n```\\n:::")])
    >>> refs = References(numbers={"ex-1": "Exercise 1"})
    >>> student, solved = chapter_notebooks(nb, refs, title="T", stem="t")
    >>> print(student.cells[0].source.split("```")[1].strip())
    console
    pip install .
    >>> [c.source for c in student.cells if c.cell_type == "code"]
    ['import numpy as np', 'np.ones(2)', '# Your answer here']
    >>> solved.cells[-2].source.splitlines()[-1], solved.cells[-1].source
    ('**Solution to Exercise 1.**', 'np.ones(2) + 1')
    """
    solved = has_solutions(executed)
    book = "Self-Attention, Computed"
    note = (f"*This notebook is “{title}”, from the book* {book}." if title != book
            else f"*This notebook is the front page of the book* {book}.")
    student_note = note + (f" The solutions are in `{stem}-solutions.ipynb`." if solved else "")
    student = _build(executed, refs, False, student_note, book_dir)
    if not solved:
        return student, None
    solutions_note = note + " This copy holds the solutions, each after its exercise."
    return student, _build(executed, refs, True, solutions_note, book_dir)


__all__ = ["chapter_notebooks", "has_solutions"]
