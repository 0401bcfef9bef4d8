"""A figure as the PNG that a page shows, with its smallest text recorded inside it.

The PNG that a page shows is written by :func:`png` (the book's style makes
IPython use it, see :func:`booktools.style.use_book_style`), and the
command line writes its file with :func:`save_png`. Both record the
figure's smallest text in the PNG itself, as the text chunk
:data:`SMALLEST_TEXT_KEY` (in pixels of the PNG), so the browser test can
check that every figure's text is at least 11 px high as the reader sees
it, whatever the screen width.

This module needs only matplotlib: :mod:`booktools.style` and
:mod:`booktools.figures.base` both import it, and it imports neither.
"""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.text import Text

#: PNG text chunk holding the smallest font size of the figure, in pixels of the PNG.
SMALLEST_TEXT_KEY = "sa-smallest-text-px"


def smallest_text_pt(fig: Figure) -> float:
    """The smallest font size, in points, of any visible text in ``fig``.

    Every text counts: titles, axis labels, tick labels, legends,
    annotations and colour-bar labels.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    float
        Points (1/72 inch). A figure without text gives ``inf``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_title("a", fontsize=14); _ = ax.text(0, 0, "b", fontsize=12.5)
    >>> _ = ax.tick_params(labelsize=13)
    >>> smallest_text_pt(fig)
    12.5
    >>> plt.close(fig)
    """
    fig.draw_without_rendering()  # make the ticks and legends exist as they will be drawn
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return float(min(sizes, default=float("inf")))


def png(fig: Figure, *, dpi: float | None = None) -> bytes:
    """``fig`` as PNG bytes, at the style's resolution, with its smallest text recorded.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    dpi : float, optional, keyword-only
        Pixels per inch; by default the style's ``savefig.dpi``.

    Returns
    -------
    bytes
        A PNG cropped to the drawing (``bbox_inches="tight"``), with the
        text chunk :data:`SMALLEST_TEXT_KEY`: the smallest font size in
        pixels of this PNG.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from PIL import Image
    >>> fig, ax = plt.subplots(figsize=(2, 2))
    >>> _ = ax.set_title("hi", fontsize=18)
    >>> _ = ax.tick_params(labelsize=14.4)
    >>> Image.open(io.BytesIO(png(fig, dpi=100))).text[SMALLEST_TEXT_KEY]   # 14.4 pt at 100 dpi
    '20.00'
    >>> plt.close(fig)
    """
    buf = io.BytesIO()
    _save(fig, buf, dpi)
    return buf.getvalue()


def save_png(fig: Figure, path) -> Path:
    """Write :func:`png` of ``fig`` to ``path`` (folders are created).

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(2, 2))
    >>> with tempfile.TemporaryDirectory() as d:
    ...     save_png(fig, Path(d) / "sub" / "a.png").read_bytes()[:4]
    b'\\x89PNG'
    >>> plt.close(fig)
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        _save(fig, f, None)
    return path


def _save(fig: Figure, target, dpi: float | None) -> None:
    if dpi is None:
        dpi = fig.dpi if mpl.rcParams["savefig.dpi"] == "figure" else float(mpl.rcParams["savefig.dpi"])
    px = smallest_text_pt(fig) * dpi / 72
    fig.savefig(target, format="png", dpi=dpi, bbox_inches="tight",
                metadata={SMALLEST_TEXT_KEY: f"{px:.2f}"})

