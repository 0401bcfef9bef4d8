"""One-way layering of the three packages, read from the sources' imports (``ast``).

The rules:

* ``booksite`` (the site's machinery) may import ``booktools`` and ``selfattention``;
* ``booktools`` (what a page cell calls) may import ``selfattention``;
* ``selfattention`` (the library) imports neither;
* no import circle between modules, at module level or inside functions;
* a project import inside a function says why in a comment on its line.

A module's package is the first part of its name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PROJECT = ("selfattention", "booktools", "booksite")

#: Which package may import which (a package may always import itself).
ALLOWED = {
    "booksite": {"booktools", "selfattention"},
    "booktools": {"selfattention"},
    "selfattention": set(),
}

def module_name(path: Path, src: Path = SRC) -> str:
    """``src/booktools/figures/base.py`` -> ``booktools.figures.base``; a package is its folder."""
    parts = path.relative_to(src).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(module: str) -> str:
    """The layer a module belongs to: the first part of its name.

    >>> package_of("booktools.figures.base"), package_of("booksite.sphinxext"), package_of("selfattention")
    ('booktools', 'booksite', 'selfattention')
    """
    return module.split(".")[0]


def project_imports(source: str, module: str, is_package: bool, known: set[str]):
    """Every project import in ``source``: ``(target module, line, function or None, comment)``.

    ``from pkg import name`` counts as an import of ``pkg.name`` when that is a
    module, else of ``pkg``. ``function`` is the innermost function the import sits in.

    >>> src = "from .b import f\\ndef g():\\n    import booktools.c  # lazy: c is slow\\n"
    >>> known = {"booktools", "booktools.b", "booktools.c", "booktools.x"}
    >>> project_imports(src, "booktools.x", False, known)
    [('booktools.b', 1, None, ''), ('booktools.c', 3, 'g', 'lazy: c is slow')]
    """
    lines = source.splitlines()
    here = module.split(".") if is_package else module.split(".")[:-1]
    found = []

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, getattr(child, "name", "<lambda>"))
                continue
            targets = []
            if isinstance(child, ast.Import):
                targets = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = here[: len(here) - child.level + 1]
                    pkg = ".".join(base + ([child.module] if child.module else []))
                else:
                    pkg = child.module or ""
                targets = [f"{pkg}.{a.name}" if f"{pkg}.{a.name}" in known else pkg for a in child.names]
            for target in targets:
                if target.split(".")[0] not in PROJECT:
                    continue
                resolved = resolve(target) or target
                if resolved == module:
                    continue
                text = " ".join(lines[child.lineno - 1: child.end_lineno])
                comment = text.partition("#")[2].strip() if "#" in text else ""
                found.append((resolved, child.lineno, function, comment))
            visit(child, function)

    visit(ast.parse(source), None)
    return found


def read_sources(src: Path = SRC) -> dict[str, tuple[Path, list]]:
    """Every project module under ``src`` with its project imports."""
    paths = {module_name(p, src): p for p in sorted(src.rglob("*.py"))
             if p.relative_to(src).parts[0] in PROJECT}
    known = set(paths)
    return {m: (p, project_imports(p.read_text(encoding="utf-8"), m, p.name == "__init__.py", known))
            for m, p in paths.items()}


@pytest.fixture(scope="module")
def sources():
    found = read_sources()
    assert {"selfattention", "booktools", "selfattention.attention", "booktools.figures.base"} <= set(found)
    return found


def test_imports_go_one_way(sources):
    wrong = [f"{path.relative_to(SRC)}:{line}: {module} ({package_of(module)}) imports {target} "
             f"({package_of(target)})"
             for module, (path, imports) in sources.items()
             for target, line, _function, _comment in imports
             if package_of(target) != package_of(module)
             and package_of(target) not in ALLOWED[package_of(module)]]
    assert wrong == [], "\n".join(wrong)


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``edges``: each strongly connected group of two or more modules.

    >>> circles({"a": {"b"}, "b": {"a", "c"}, "c": set()})
    [['a', 'b']]
    """
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return groups


def test_no_import_circle(sources):
    edges = {m: {t for t, *_ in imports} for m, (_p, imports) in sources.items()}
    assert circles(edges) == []


def test_a_project_import_inside_a_function_says_why(sources):
    silent = []
    for path, imports in sources.values():
        for target, line, function, comment in imports:
            if function is None:
                continue
            reason = comment.replace("noqa", "").strip(" :#")
            if len(reason) < 8:
                silent.append(f"{path.relative_to(SRC)}:{line}: {function}() imports {target} "
                              f"without saying why")
    assert silent == [], "\n".join(silent)


def test_the_rules_catch_what_they_forbid():
    known = {"selfattention", "selfattention.a", "booktools", "booktools.b"}
    imports = project_imports("def f():\n    from booktools import b\n", "selfattention.a", False, known)
    assert imports == [("booktools.b", 2, "f", "")]
    assert "booktools" not in ALLOWED[package_of("selfattention.a")]
    assert package_of("booksite.runtime") == "booksite" and "booksite" not in ALLOWED["booktools"]
    assert circles({"x": {"y"}, "y": {"z"}, "z": {"x"}}) == [["x", "y", "z"]]


def test_the_package_imports_its_submodules_when_first_used():
    """``import selfattention`` imports no submodule but softmax (whose function shares its name); each
    name then comes from its submodule, and every name of ``__all__`` is the submodule's object."""
    import importlib
    import subprocess
    import sys

    code = ("import sys, selfattention as sa; "
            "print(sorted(m for m in sys.modules if m.startswith('selfattention.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['selfattention.softmax']"
    sa = importlib.import_module("selfattention")
    for name in sa.__all__:
        value = getattr(sa, name)
        module = sa._WHERE.get(name)
        if module:
            assert value is getattr(importlib.import_module(f"selfattention.{module}"), name), name
    assert callable(sa.softmax) and sa.softmax.__module__ == "selfattention.softmax"
    assert set(sa.__all__) <= set(dir(sa))
