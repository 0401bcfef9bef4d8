"""The book's pages, taken from the sources (the build makes one HTML per page)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

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


def site_html_files(html: Path) -> list[Path]:
    """Every HTML file the build writes that a reader can open, sorted: the pages of the sources,
    the index, search, redirect and 404 pages, and viewcode's source pages under ``_modules/``.
    Only the theme's template fragments in ``_static/`` are left out."""
    return sorted(p for p in html.rglob("*.html") if p.relative_to(html).parts[0] != "_static")


_ADDRESS = re.compile(r'\b(?:href|src)="([^"]*)"')
_ANCHOR = re.compile(r'\b(?:id|name)="([^"]*)"')


def missing_targets(html: Path, *, anchors: bool = True) -> list[str]:
    """``page: address`` for each local address of every page that names no file of the site, or,
    with ``anchors``, a ``#fragment`` that no element of the page it names carries."""
    pages = site_html_files(html)
    ids: dict[Path, set[str]] = {}
    missing = []
    for page in pages:
        rel = page.relative_to(html)
        for address in _ADDRESS.findall(page.read_text(encoding="utf-8")):
            parts = urlsplit(address)
            if parts.scheme or parts.netloc:
                continue  # another site, mailto:, data:
            if not parts.path:
                target = page  # a link within the page
            elif parts.path.startswith("/"):   # 404.html's addresses start at the site's root
                target = html / unquote(parts.path).lstrip("/")
            else:
                target = page.parent / unquote(parts.path)
            target = target.resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                missing.append(f"{rel}: {address}")
            elif anchors and parts.fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = set(_ANCHOR.findall(target.read_text(encoding="utf-8")))
                if unquote(parts.fragment) not in ids[target] and parts.fragment != "top":
                    missing.append(f"{rel}: {address}")
    return missing
