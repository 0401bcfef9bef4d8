"""Shared fixtures: one book build per test session, served on loopback."""

from __future__ import annotations

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
def built_book(tmp_path_factory) -> Path:
    """The HTML of a fresh build in a temporary folder (the build must pass).

    ``SA_BUILT_BOOK=path/to/html`` tests an existing build instead, while a page or a lab is being
    written (never in CI: there every session builds the book itself).
    """
    if os.environ.get("SA_BUILT_BOOK") and not in_ci():
        return Path(os.environ["SA_BUILT_BOOK"])
    out = tmp_path_factory.mktemp("book")
    result = build_book(out)
    if result.returncode != 0:
        pytest.fail(f"sphinx-build failed:\n{result.stdout[-5000:]}\n{result.stderr[-5000:]}")
    return out / "html"


@pytest.fixture(scope="session")
def site_url(built_book) -> str:
    """Serve the built book on 127.0.0.1 at a free port; yield its base URL."""
    with serve(built_book) as base:
        yield base


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")
