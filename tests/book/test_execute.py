"""Every notebook page executes from top to bottom without an error."""

from __future__ import annotations

import pytest
from myst_nb.core.read import read_myst_markdown_notebook
from nbclient import NotebookClient

from tests.book.pages import BOOK, notebook_pages


@pytest.mark.book
@pytest.mark.parametrize("path", notebook_pages(), ids=lambda p: p.name)
def test_page_executes(path):
    nb = read_myst_markdown_notebook(path.read_text(encoding="utf-8"))
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(BOOK)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [o for c in nb.cells if c.cell_type == "code"
              for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
