"""Softmax saturation against d_k (chapter "Why divide by √d_k"). Returns a Figure.

* :func:`plot_saturation`: the largest softmax weight of a row and the size
  of softmax's gradient with respect to the scores, against ``d_k`` on a log scale, with and without the
  division by ``sqrt(d_k)`` (from :func:`selfattention.saturation`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from ..style import OKABE_ITO
from .base import finish, subplots

_KEYS = ("d_k", "largest_weight", "gradient_size")


def _check(run: Mapping, name: str) -> dict:
    if not isinstance(run, Mapping) or any(k not in run for k in _KEYS):
        raise ValueError(f"{name} must be a dict with keys {list(_KEYS)}, as selfattention.saturation returns")
    out = {k: np.asarray(run[k], dtype=float) for k in _KEYS}
    m = out["d_k"].shape
    if len(m) != 1 or m[0] < 2 or any(out[k].shape != m for k in _KEYS):
        raise ValueError(f"{name}: d_k, largest_weight and gradient_size must be 1-D of one length >= 2, "
                         f"got {[out[k].shape for k in _KEYS]}")
    return out


def plot_saturation(raw: Mapping, scaled: Mapping) -> Figure:
    """The largest weight and the gradient size against ``d_k``, with and without scaling.

    Two panels share the ``d_k`` axis (log base 2). Top: the mean largest
    weight of a row. Bottom: the mean size of softmax's gradient with respect
    to the scores (the Frobenius norm of its Jacobian).

    Parameters
    ----------
    raw, scaled : dict
        :func:`selfattention.saturation` without and with the division, over
        the same sizes ``d_k``.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If a run is not such a dict, or the two runs measure different sizes.

    Examples
    --------
    >>> import selfattention as sa
    >>> d = [1, 4, 16]
    >>> fig = plot_saturation(sa.saturation(d, n_rows=20), sa.saturation(d, n_rows=20, scaled=True))
    >>> [len(ax.lines) for ax in fig.axes]
    [2, 2]
    """
    raw, scaled = _check(raw, "raw"), _check(scaled, "scaled")
    if not np.array_equal(raw["d_k"], scaled["d_k"]):
        raise ValueError(f"raw and scaled must measure the same sizes d_k, got {raw['d_k']} and {scaled['d_k']}")
    d_k = raw["d_k"]
    fig, (top, bottom) = subplots(2, 1, figsize=(4.9, 6.0), sharex=True)
    styles = ((raw, "without: $q \\cdot k$", OKABE_ITO[5], "o", "--"),
              (scaled, "with: $q \\cdot k / \\sqrt{d_k}$", OKABE_ITO[0], "s", "-"))
    for run, label, colour, marker, line in styles:
        top.plot(d_k, run["largest_weight"], line, marker=marker, color=colour, lw=2.2, ms=5, label=label)
        bottom.plot(d_k, run["gradient_size"], line, marker=marker, color=colour, lw=2.2, ms=5, label=label)
    top.set_ylabel("largest weight")
    top.set_ylim(0, 1.02)
    bottom.set_ylabel("gradient to the scores")
    bottom.set_ylim(0, None)
    bottom.set_xscale("log", base=2)
    bottom.set_xticks(d_k)
    last = len(d_k) - 1   # every other size labelled, the last one included
    bottom.set_xticklabels([f"{int(v)}" if (last - i) % 2 == 0 else "" for i, v in enumerate(d_k)])
    bottom.set_xlabel("$d_k$, numbers per query and key")
    for ax in (top, bottom):
        ax.grid(True, color="0.9", lw=0.6)
    bottom.legend(title="division by $\\sqrt{d_k}$", loc="lower left", frameon=False)   # the empty corner
    return finish(fig)


__all__ = ["plot_saturation"]
