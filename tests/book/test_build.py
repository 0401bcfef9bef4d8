"""The whole book builds with warnings as errors, every page is there, and every HTML file the
build writes is a page of the book whose links all resolve (viewcode's ``_modules/`` pages too)."""

from __future__ import annotations

import re

import pytest

import selfattention
from tests.book.pages import built_pages, missing_targets, site_html_files


@pytest.mark.book
def test_book_builds_without_warnings(built_book):
    missing = [p for p in built_pages() if not (built_book / p).exists()]
    assert missing == []


@pytest.mark.book
def test_math_is_mathml_written_at_build_time(built_book):
    html = (built_book / "weighted-average.html").read_text(encoding="utf-8")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML"' in html
    assert "mathjax" not in html.lower().replace("mathjax_ignore", "")
    assert not (built_book / "_static/vendor/mathjax").exists()
    assert (built_book / "_static/vendor/noto-sans-math/NotoSansMath-Regular-subset.woff2").exists()


@pytest.mark.book
def test_every_figure_is_opaque_so_it_survives_dark_mode(built_book):
    from PIL import Image

    images = sorted((built_book / "_images").glob("*.png"))
    assert images, "the book has no figures?"
    for path in images:
        with Image.open(path) as im:
            if "A" in im.getbands():
                assert im.getchannel("A").getextrema()[0] == 255, f"{path.name} has transparent pixels"


@pytest.mark.book
def test_every_html_file_is_a_page_of_the_book(built_book):
    """The book's frame on every file a reader can open: the CSP, the navigation and the footer."""
    files = site_html_files(built_book)
    assert any("_modules" in p.parts for p in files), "no viewcode pages?"
    footer = re.compile(rf"Version {re.escape(selfattention.__version__)}, built on \d{{4}}-\d\d-\d\d\.")
    problems = []
    for page in files:
        text = page.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' in text:   # a redirect page of _redirects.txt: nothing to read
            continue
        rel = page.relative_to(built_book)
        for what, ok in (("the CSP", 'http-equiv="Content-Security-Policy"' in text),
                         ("the book's navigation", 'class="bd-sidebar-primary' in text),
                         ("the footer line", footer.search(text) is not None),
                         ('<html lang="en"', '<html lang="en"' in text)):
            if not ok:
                problems.append(f"{rel}: no {what}")
    assert problems == [], "\n".join(problems)


@pytest.mark.book
def test_every_local_link_of_every_html_file_resolves(built_book):
    """Every ``href`` and ``src`` of every HTML file names a file of the site, and each ``#fragment``
    an element of that page: the footer of a ``_modules/`` page three folders down, too."""
    assert missing_targets(built_book) == []
