"""Notebook execution: the cache of executed pages, kept per version of the code the pages run.

jupyter-cache keys a page on its own cells only. :func:`cache_path` keys the
cache folder on the code that the pages' cells import as well, so no page
can show the output of an older package: ``selfattention``, ``booktools``
and :mod:`booksite.runtime` (the front page asks it for the runtime's size),
and :mod:`booksite.modelweights` (the real-model chapter asks it for the model files' sizes).
The rest of ``booksite`` writes the site around the outputs and never
changes them, so editing it re-executes nothing.

With ``-j 2`` two processes read pages and write to the one cache; two things of
jupyter-cache need help there: its database must exist before they start
(:func:`_create_cache_db`), and its choice of the records to drop when the cache is
full must not pick the record that the other process has just added
(:func:`oldest_records`).
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


def oldest_records(keep: int, db) -> list[int]:
    """The cache's records beyond the ``keep`` used last: the ones jupyter-cache drops when it is full.

    It replaces jupyter-cache's ``NbCacheRecord.records_to_delete``, which reads the records to
    keep and then, in a second query, every record not among them. Under ``-j 2`` the other process
    may add a record between the two queries: that record is then not "kept", and dropping it
    fails, since its notebook file is written after its record ("Notebook file does not exist for
    cache record"), which stopped a build. One query sees the records as they are at one moment.

    Examples
    --------
    >>> import datetime, tempfile
    >>> from jupyter_cache.cache.db import NbCacheRecord, create_db
    >>> db = create_db(tempfile.mkdtemp())
    >>> for day, name in enumerate(["old", "newer", "newest"], start=1):
    ...     _ = NbCacheRecord.create_record(f"{name}.ipynb", name, db, accessed=datetime.datetime(2026, 1, day))
    >>> [NbCacheRecord.record_from_pk(pk, db).uri for pk in oldest_records(2, db)]
    ['old.ipynb']
    >>> oldest_records(3, db), oldest_records(1000, db)
    ([], [])
    >>> oldest_records(-1, db)
    Traceback (most recent call last):
    ...
    ValueError: keep must be a whole number of records, at least 0; got -1
    >>> db.dispose()
    """
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
        raise ValueError(f"keep must be a whole number of records, at least 0; got {keep!r}")
    from jupyter_cache.cache.db import NbCacheRecord, session_context
    from sqlalchemy import desc

    with session_context(db) as session:
        query = session.query(NbCacheRecord.pk).order_by(desc(NbCacheRecord.accessed), desc(NbCacheRecord.pk))
        return [pk for (pk,) in query.offset(keep).all()]


def _use_oldest_records(app, env, docnames) -> None:
    """Before pages are read (and maybe executed, in processes forked from this one), make
    jupyter-cache choose the records to drop with :func:`oldest_records`. Not when no page is read:
    importing jupyter-cache (SQLAlchemy) costs about a second."""
    if docnames and app.config.nb_execution_mode == "cache":
        from jupyter_cache.cache.db import NbCacheRecord

        NbCacheRecord.records_to_delete = staticmethod(oldest_records)


def setup_execution(app) -> None:
    """Create the execution cache's database as soon as the configuration is read; before pages
    are read, make the cache's choice of records to drop safe for two processes.

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def __init__(self): self.events = []
    ...     def connect(self, event, handler): self.events.append(event)
    >>> app = App()
    >>> setup_execution(app)
    >>> app.events
    ['config-inited', 'env-before-read-docs']
    """
    app.connect("config-inited", _create_cache_db)
    app.connect("env-before-read-docs", _use_oldest_records)
