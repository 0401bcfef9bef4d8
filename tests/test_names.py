"""Names that say one thing: no two modules of the project define the same public name.

Two exceptions, each by design: the entry points every extension or command
has (``setup``, ``main``), and the fast layer (:mod:`selfattention.fast`),
whose functions carry the names of the reference functions they are tested
equal to.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
ENTRY_POINTS = {"setup", "main"}


def public_definitions() -> dict[str, list[str]]:
    """Each public function or class name -> the modules (as paths) that define it."""
    where = defaultdict(list)
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if path.name in ("__init__.py", "conftest.py") or rel.parts[:2] == ("selfattention", "fast"):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                where[node.name].append(rel.as_posix())
    return where


def test_no_public_name_is_defined_twice():
    twice = {name: paths for name, paths in public_definitions().items()
             if len(paths) > 1 and name not in ENTRY_POINTS}
    assert twice == {}

