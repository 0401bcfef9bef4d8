"""Shared fixtures: one book build per test session, served on loopback."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from booksite.serve import serve

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"


def build_book(outdir: Path) -> subprocess.CompletedProcess:
    """Build the whole book with warnings as errors into ``outdir``."""
    cmd = [sys.executable, "-m", "sphinx", "-n", "-W", "--keep-going", "-j", "2",
           "-c", str(ROOT), str(BOOK), str(outdir / "html"), "-d", str(outdir / "doctrees")]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="session")
def built_book(tmp_path_factory, worker_id) -> Path:   # worker_id: pytest-xdist's fixture
    """The HTML of a fresh build in a temporary folder (the build must pass).

    The book is built once per test run. Under pytest-xdist (``make test`` runs two workers) the
    first worker that asks builds it in the run's shared folder, holding a lock; the others wait
    for the lock and read the same build, or the same failure.

    ``SA_BUILT_BOOK=path/to/html`` tests an existing build instead, while a page or a lab is being
    written (never in CI: there every run builds the book itself).
    """
    if os.environ.get("SA_BUILT_BOOK") and not in_ci():
        return Path(os.environ["SA_BUILT_BOOK"])
    base = tmp_path_factory.getbasetemp()
    if worker_id != "master":   # each worker's folder sits in the run's folder
        base = base.parent
    out, failed = base / "book", base / "book-failed.txt"
    with open(base / "book.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # released when the file closes
        if not failed.exists() and not (base / "book-built").exists():
            result = build_book(out)
            if result.returncode == 0:
                (base / "book-built").touch()
            else:
                failed.write_text(f"{result.stdout[-5000:]}\n{result.stderr[-5000:]}", encoding="utf-8")
    if failed.exists():
        pytest.fail(f"sphinx-build failed:\n{failed.read_text(encoding='utf-8')}")
    return out / "html"


@pytest.fixture(scope="session")
def site_url(built_book) -> str:
    """Serve the built book on 127.0.0.1 at a free port; yield its base URL."""
    with serve(built_book) as base:
        yield base


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


# ---------------------------------------------------------------------------
# Two workers (pytest-xdist): what runs where, and in which order
# ---------------------------------------------------------------------------

#: Markers of the tests that cost most (a build, a browser, a fresh install).
HEAVY = ("book", "browser", "library")
#: The module that starts first: the first test that needs the book builds it. While it builds (the
#: build keeps about one and a half of two cores busy), the other worker runs the light modules.
FIRST = "tests/book/test_build.py"
#: Modules whose tests go to whichever worker is free, one by one: the page crawl's shards, which
#: open no module-scoped fixture. They run last and fill the gaps, so both workers finish together.
SPREAD = ("tests/browser/test_site.py", "tests/browser/test_every_run_button.py")


def module(nodeid: str) -> str:
    """The file of a test's node id.

    Examples
    --------
    >>> module("tests/browser/test_site.py::test_every_page_as_a_reader_sees_it[light-1of4]")
    'tests/browser/test_site.py'
    """
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Each module on one worker, so that its module-scoped fixtures (an open lab page, the PDF, the
    fresh venvs) are made once; the tests of :data:`SPREAD` one by one."""
    from xdist.scheduler import LoadFileScheduling

    class ModuleScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if module(nodeid) in SPREAD else module(nodeid)

    return ModuleScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Order the run (the workers take modules in this order): the build's module; beside the build, the
    light modules, then the heavy ones that need no book (a fresh venv, the runtime's files), so that the
    other worker is not left waiting for the book; then the modules that need the book, then
    :data:`SPREAD`."""
    def heavy(item):
        return "built_book" in item.fixturenames or any(item.get_closest_marker(m) for m in HEAVY)

    heavy_modules = {module(item.nodeid) for item in items if heavy(item)}
    book_modules = {module(item.nodeid) for item in items if "built_book" in item.fixturenames}
    for item in items:   # a test that reads the build is a book test, marked or not (make test-fast leaves it out)
        if "built_book" in item.fixturenames and not item.get_closest_marker("book"):
            item.add_marker(pytest.mark.book)

    def rank(item):
        name = module(item.nodeid)
        if name == FIRST:
            return 0
        if name in SPREAD:
            return 4
        if name in book_modules:
            return 3
        return 2 if name in heavy_modules else 1

    items.sort(key=rank)   # stable: each module keeps its own order
