"""The book's pages, taken from the sources (the build makes one HTML per page)."""

from __future__ import annotations

from pathlib import Path

BOOK = Path(__file__).resolve().parents[2] / "book"


def source_pages() -> list[Path]:
    """Every MyST page of the book, sorted."""
    return sorted(p for p in BOOK.rglob("*.md") if "_build" not in p.parts and not p.name.startswith("_"))


def notebook_pages() -> list[Path]:
    """The pages that hold code cells (MyST-NB notebooks)."""
    return [p for p in source_pages() if "kernelspec:" in p.read_text(encoding="utf-8")[:600]]


def built_pages() -> list[str]:
    """The HTML path of each page, relative to the site root, plus search and index."""
    pages = [str(p.relative_to(BOOK).with_suffix(".html")) for p in source_pages()]
    return pages + ["genindex.html", "search.html"]
