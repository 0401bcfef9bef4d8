"""The whole book builds with warnings as errors, and every page is there."""

from __future__ import annotations

import pytest

from tests.book.pages import built_pages


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
