"""What every figure shares: its start, its finish, its smallest text, and its PNG.

Every ``plot_...`` function starts with :func:`subplots` (the book's style,
then :func:`matplotlib.pyplot.subplots`) and ends with :func:`finish`. The PNG that a page
shows, with its smallest text recorded in it, comes from :mod:`booktools.pngfile`:
:func:`~booktools.pngfile.png`, :func:`~booktools.pngfile.save_png`, :func:`~booktools.pngfile.smallest_text_pt`,
:func:`~booktools.pngfile.cut_texts` and the two PNG keys are that module's, named here too so that a
figure module needs one import.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ..pngfile import CUT_TEXT_KEY, SMALLEST_TEXT_KEY, cut_texts, png, save_png, smallest_text_pt
from ..style import use_book_style

__all__ = ["CUT_TEXT_KEY", "SMALLEST_TEXT_KEY", "cut_texts", "finish", "png", "save_png", "smallest_text_pt",
           "subplots"]


def subplots(*args, **kwargs):
    """:func:`matplotlib.pyplot.subplots` in the book's style.

    Applies :func:`booktools.style.use_book_style` first, so a figure looks
    the same in a page, a doctest and the command line.

    Examples
    --------
    >>> fig, ax = subplots(figsize=(2, 2))
    >>> fig.get_facecolor()
    (1.0, 1.0, 1.0, 1.0)
    >>> plt.close(fig)
    """
    use_book_style()
    return plt.subplots(*args, **kwargs)


def finish(fig: Figure, *, rect=None) -> Figure:
    """Lay out and close ``fig``: the page shows it once, as the cell's result.

    Figures made with ``layout="constrained"`` keep their own layout; the
    others get :meth:`~matplotlib.figure.Figure.tight_layout`.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The finished drawing.
    rect : tuple of 4 floats, optional, keyword-only
        The part of the figure the axes may use, as ``tight_layout`` takes
        it (room kept for a legend below, for example).

    Returns
    -------
    matplotlib.figure.Figure
        ``fig`` itself, closed (pyplot no longer tracks it).

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> finish(fig) is fig, plt.fignum_exists(fig.number)
    (True, False)
    """
    if fig.get_layout_engine() is None:
        fig.tight_layout(rect=rect) if rect is not None else fig.tight_layout()
    plt.close(fig)
    return fig
