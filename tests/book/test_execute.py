"""Every notebook page executes from top to bottom without an error.

The build executes each page in a fresh kernel (myst-nb, ``nb_execution_mode = "cache"``) and stops
at the first failing cell (``nb_execution_raise_on_error``). It keeps a page's outputs in the
execution cache only when the whole page ran without an error, and the cache is kept per version of
the code the pages import (:func:`booksite.execution.cache_path`). So a page ran as written, with
this code, exactly when the cache holds its cells: this test asks the cache, after the session's
build, rather than running every page a second time. A page that the build always runs again
(``execution_mode: force``, the front page) is not cached: it runs here.
"""

from __future__ import annotations

import re

import pytest
from jupyter_cache import get_cache
from myst_nb.core.read import read_myst_markdown_notebook
from nbclient import NotebookClient

from booksite.execution import cache_path
from tests.book.pages import BOOK, notebook_pages
from tests.conftest import ROOT

FORCED = re.compile(r"^mystnb:\s*\n\s+execution_mode:\s*force\s*$", re.M)


def forced(text: str) -> bool:
    """The page's front matter asks myst-nb to run it on every build."""
    return FORCED.search(text.split("\n---", 1)[0]) is not None


@pytest.mark.book
@pytest.mark.parametrize("path", notebook_pages(), ids=lambda p: p.name)
def test_page_executes(built_book, path):
    text = path.read_text(encoding="utf-8")
    nb = read_myst_markdown_notebook(text)
    if forced(text):
        NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(BOOK)}}).execute()
    else:
        cache = get_cache(cache_path(ROOT))
        try:
            record = cache.match_cache_notebook(nb)
        except KeyError:
            pytest.fail(f"the build did not execute {path.name} with this code, or a cell of it failed")
        nb = cache.get_cache_bundle(record.pk).nb
    cells = [c for c in nb.cells if c.cell_type == "code"]
    assert cells and all(c.get("execution_count") for c in cells), "a code cell did not run"
    errors = [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
