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
# Two workers (pytest-xdist, ``--dist loadgroup``): what runs where, and in which order
# ---------------------------------------------------------------------------

#: Markers of the tests that cost most (a build, a browser, a fresh install): they start first.
HEAVY = ("book", "browser", "library")


def pytest_configure(config):
    config.addinivalue_line("markers", "spread: may run on any worker, apart from the rest of its module "
                                       "(it opens no module-scoped fixture)")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Keep each module on one worker, so that its module-scoped fixtures (an open lab page, the PDF,
    the fresh venvs) are made once; let the tests marked ``spread`` (the page crawl's shards) go to
    whichever worker is free. Order the run: heavy modules first, then the rest, then the shards,
    which fill the last gaps so that both workers finish together."""
    def rank(item):
        if item.get_closest_marker("spread"):
            return 2
        return 0 if any(item.get_closest_marker(m) for m in HEAVY) else 1

    for item in items:
        if not item.get_closest_marker("spread"):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    items.sort(key=rank)   # stable: each module keeps its own order
