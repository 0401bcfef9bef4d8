"""Notebook execution: the cache of executed pages, kept per version of the code the pages run.

jupyter-cache keys a page on its own cells only. :func:`cache_path` keys the
cache folder on the code that the pages' cells import as well, so no page
can show the output of an older package: ``selfattention``, ``booktools``
and :mod:`booksite.runtime` (the front page asks it for the runtime's size),
and :mod:`booksite.modelweights` (the real-model chapter asks it for the model files' sizes).
The rest of ``booksite`` writes the site around the outputs and never
changes them, so editing it re-executes nothing.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: What the pages' code cells run, relative to ``src/``: a change here re-executes every page.
CELL_CODE = ("selfattention", "booktools", "booksite/runtime.py", "booksite/modelweights.py")


def source_digest(src: Path, parts: tuple[str, ...] = CELL_CODE) -> str:
    """Hash of the ``.py`` files of ``parts`` (folders or files under ``src``), by path and contents.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> src = pathlib.Path(tempfile.mkdtemp())
    >>> (src / "pkg").mkdir()
    >>> _ = (src / "pkg" / "a.py").write_text("x = 1\\n")
    >>> before = source_digest(src, ("pkg",))
    >>> _ = (src / "pkg" / "a.py").write_text("x = 2\\n")
    >>> len(before), before == source_digest(src, ("pkg",))
    (12, False)
    """
    h = hashlib.sha256()
    files = set()
    for part in parts:
        path = src / part
        files.update(path.rglob("*.py") if path.is_dir() else [path] if path.exists() else [])
    for path in sorted(files):
        h.update(path.relative_to(src).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


def cache_path(root: Path) -> str:
    """The execution cache of this version of the code: ``SA_JUPYTER_CACHE`` or ``_build/.jupyter_cache``.

    It lives beside the HTML output, not inside it, so ``make clean`` keeps it.

    Examples
    --------
    >>> import pathlib
    >>> len(pathlib.Path(cache_path(pathlib.Path("/nowhere"))).name)  # the digest of the code
    12
    """
    base = Path(os.environ.get("SA_JUPYTER_CACHE", root / "_build" / ".jupyter_cache"))
    return str(base / source_digest(root / "src"))


def _create_cache_db(app, config) -> None:
    """Create the cache database here, in the main process, before the build starts.

    With ``-j 2`` Sphinx reads pages in two worker processes; if the database
    did not exist yet, both would try to create its tables and one would fail
    with "table settings already exists".
    """
    path = Path(config.nb_execution_cache_path or ".")
    if config.nb_execution_mode != "cache" or (path / "global.db").exists():
        return
    # Here, not at the top: jupyter-cache imports SQLAlchemy, a second of every build's start-up,
    # and only the first build of a version of the code needs the database made.
    from jupyter_cache.cache.db import create_db

    path.mkdir(parents=True, exist_ok=True)
    create_db(path).dispose()


def setup_execution(app) -> None:
    """Create the execution cache's database as soon as the configuration is read.

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def connect(self, event, handler): self.event = event
    >>> app = App()
    >>> setup_execution(app)
    >>> app.event
    'config-inited'
    """
    app.connect("config-inited", _create_cache_db)
