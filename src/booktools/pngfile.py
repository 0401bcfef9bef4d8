"""A figure as the PNG that a page shows, with its smallest text recorded inside it.

The PNG that a page shows is written by :func:`png` (the book's style makes
IPython use it, see :func:`booktools.style.use_book_style`), and the
command line writes its file with :func:`save_png`. Both record the
figure's smallest text in the PNG itself, as the text chunk
:data:`SMALLEST_TEXT_KEY` (in pixels of the PNG), so the browser test can
check that every figure's text is at least 11 px high as the reader sees
it, whatever the screen width. They also record the texts that are cut at
the figure's edge or crowd each other (:func:`cut_texts`, :data:`CUT_TEXT_KEY`).

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

#: PNG text chunk holding the texts of the figure that are cut or crowded (see :func:`cut_texts`),
#: one per line; empty when every text shows whole.
CUT_TEXT_KEY = "sa-cut-texts"


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


def cut_texts(fig: Figure) -> list[str]:
    """The texts of ``fig`` that a reader would not see whole, each described in words.

    A text is cut if any part of it lies outside the figure's canvas, or
    outside its clipping box when it is clipped (an annotation inside the
    axes). Two tick labels of one axis crowd each other if their boxes
    overlap ("." over "[SEP]"). Measured as the figure is drawn, in pixels
    of the canvas, after its layout.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    list of str
        One line per problem; empty if every text shows whole.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(2, 2), layout="constrained")
    >>> _ = ax.set_title("inside")
    >>> cut_texts(fig)
    []
    >>> _ = fig.text(0.9, 0.5, "off the edge")
    >>> cut_texts(fig)
    ["'off the edge' runs past the right edge of the figure"]
    >>> plt.close(fig)
    """
    fig.draw_without_rendering()
    renderer = fig._get_renderer()  # any canvas: a closed figure keeps only the base one
    canvas = fig.bbox
    tol = 0.5  # half a pixel: rounding of the text's box
    problems = []
    hidden = set()  # labels of ticks outside the axis's range: matplotlib makes them but never draws them
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = (high - low) * 1e-9
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - span <= tick.get_loc() <= high + span:
                    hidden.update((id(tick.label1), id(tick.label2)))
    for text in fig.findobj(Text):
        if id(text) in hidden or not (text.get_visible() and text.get_text().strip()):
            continue
        box = text.get_window_extent(renderer)
        for side, out in (("left", box.x0 < canvas.x0 - tol), ("right", box.x1 > canvas.x1 + tol),
                          ("bottom", box.y0 < canvas.y0 - tol), ("top", box.y1 > canvas.y1 + tol)):
            if out:
                problems.append(f"{text.get_text()!r} runs past the {side} edge of the figure")
        clip = text.get_clip_box()
        if text.get_clip_on() and clip is not None and not (
                box.x0 >= clip.x0 - tol and box.x1 <= clip.x1 + tol
                and box.y0 >= clip.y0 - tol and box.y1 <= clip.y1 + tol):
            problems.append(f"{text.get_text()!r} is clipped by its axes")
    for ax in fig.axes:
        for axis, labels in (("x", ax.get_xticklabels()), ("y", ax.get_yticklabels())):
            shown = [(t.get_text(), t.get_window_extent(renderer)) for t in labels
                     if id(t) not in hidden and t.get_visible() and t.get_text().strip()]
            for (a, box_a), (b, box_b) in zip(shown, shown[1:]):
                if box_a.overlaps(box_b):
                    problems.append(f"{axis} tick labels {a!r} and {b!r} overlap")
    return problems


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
        text chunks :data:`SMALLEST_TEXT_KEY` (the smallest font size in
        pixels of this PNG) and :data:`CUT_TEXT_KEY` (the texts that
        :func:`cut_texts` finds cut or crowded, none for a good figure).

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
                metadata={SMALLEST_TEXT_KEY: f"{px:.2f}", CUT_TEXT_KEY: "\n".join(cut_texts(fig))})

