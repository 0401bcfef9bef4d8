"""The whole book builds with warnings as errors, and every page is there."""

from __future__ import annotations

import pytest

from tests.book.pages import built_pages


@pytest.mark.book
def test_book_builds_without_warnings(built_book):
    missing = [p for p in built_pages() if not (built_book / p).exists()]
    assert missing == []


@pytest.mark.book
def test_mathjax_is_served_locally(built_book):
    html = (built_book / "weighted-average.html").read_text(encoding="utf-8")
    assert "_static/vendor/mathjax/tex-mml-chtml.js" in html
    assert "cdn.jsdelivr" not in html
    assert (built_book / "_static/vendor/mathjax/tex-mml-chtml.js").exists()
