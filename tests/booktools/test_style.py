"""The one figure style, and how a page shows a figure."""

import io

import matplotlib as mpl
import pytest
from matplotlib.figure import Figure
from PIL import Image

from booktools.figures.base import SMALLEST_TEXT_KEY, png
from booktools.style import MAX_WIDTH_IN, PHONE_COLUMN_PX, SMALLEST_TEXT_PT, STYLE, use_book_style


def test_no_text_setting_is_below_the_smallest_text():
    sizes = {k: v for k, v in STYLE.items() if k.endswith(("size", "fontsize")) and k != "figure.figsize"}
    assert sizes and min(sizes.values()) >= SMALLEST_TEXT_PT


def test_the_two_limits_give_11_px_on_a_phone():
    px = SMALLEST_TEXT_PT * STYLE["savefig.dpi"] / 72
    png_width = (MAX_WIDTH_IN + 0.2) * STYLE["savefig.dpi"]  # bbox "tight" pads 0.1 inch each side
    assert px * PHONE_COLUMN_PX / png_width >= 11


def test_figures_stay_opaque_for_the_dark_theme():
    use_book_style()
    assert mpl.rcParams["savefig.transparent"] is False
    assert mpl.rcParams["figure.facecolor"] == "white" == mpl.rcParams["savefig.facecolor"]


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    yield sh
    InteractiveShell.clear_instance()


def test_in_ipython_a_figure_displays_as_the_books_png(shell):
    use_book_style()
    printers = shell.display_formatter.formatters["image/png"]
    assert printers.type_printers[Figure] is png
    use_book_style()  # twice does no harm
    assert printers.type_printers[Figure] is png
    fig = Figure(figsize=(2, 2))
    fig.add_subplot().set_title("t")
    data = printers(fig)
    with Image.open(io.BytesIO(data)) as im:
        assert float(im.text[SMALLEST_TEXT_KEY]) == pytest.approx(SMALLEST_TEXT_PT * 110 / 72, abs=0.01)
