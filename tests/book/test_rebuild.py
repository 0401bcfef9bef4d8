"""A rebuild never breaks a page: every local address resolves after each build.

A second build with nothing changed once deleted the stylesheet bundle of the
pages with Run buttons (``_static/sa/site-<hash>.css``) without rewriting
them, so ten pages linked a file that was gone. Here a copy of the session's
build is built again with nothing changed, then again after one page is
touched; after each build every local ``href`` and ``src`` of every HTML file
(viewcode's ``_modules/`` pages too) must name a file of the site, and each
``#fragment`` an element of the page it names.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from tests.book.pages import missing_targets
from tests.conftest import BOOK, build_book

pytestmark = pytest.mark.book

#: A page with Run buttons: it links the stylesheet bundle that a rebuild once deleted.
TOUCHED = "weighted-average"


def rebuild(out: Path) -> str:
    result = build_book(out)
    assert result.returncode == 0, f"{result.stdout[-5000:]}\n{result.stderr[-5000:]}"
    return result.stdout


def test_every_local_address_resolves_after_each_rebuild(built_book, tmp_path):
    out = tmp_path / "book"  # a copy: the other tests read the session's build as it was made
    shutil.copytree(built_book.parent, out, symlinks=True)
    assert missing_targets(out / "html") == []

    log = rebuild(out)
    assert "no targets are out of date" in log, log[-3000:]
    assert missing_targets(out / "html") == []

    page, written = BOOK / f"{TOUCHED}.md", out / "html" / f"{TOUCHED}.html"
    before, written_before = page.stat(), written.stat().st_mtime_ns
    try:
        os.utime(page, ns=(before.st_atime_ns, time.time_ns()))
        rebuild(out)
    finally:  # the checkout's own build need not read the page again
        os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert written.stat().st_mtime_ns > written_before  # the touched page was written again
    assert missing_targets(out / "html") == []
