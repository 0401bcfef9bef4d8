"""Sparse attention masks: a sliding window and a strided pattern.

Full attention lets every query read every key: ``L * S`` scores. These
masks keep only some of them. Both return a boolean ``(L, S)`` array with
``True`` where a query may attend, so they can be passed as ``mask=`` to
:func:`~selfattention.scaled_dot_product_attention` (or to
:func:`~selfattention.fast.blockwise_attention`). A blocked score gets
weight exactly 0.

* :func:`~selfattention.sliding_window_mask`: each query reads itself and the ``window``
  keys just before it (and, without ``causal``, the ``window`` keys just
  after it). About ``n * (window + 1)`` scores: linear in ``n``.
* :func:`~selfattention.strided_mask`: each query reads the ``stride`` keys ending at
  itself, plus every ``stride``-th key before that, as in the "strided"
  pattern of the Sparse Transformer, its two parts merged into one mask.
  About ``n * stride + n**2 / (2 * stride)`` scores, and ``1.5 * n * sqrt(n)``
  for ``stride = sqrt(n)``.

Both are dense ``(L, S)`` arrays: a mask only says which scores to drop.
Plain attention still computes every score, and the mask itself takes
``L * S`` bytes; only code that skips what the mask blocks, such as
:func:`~selfattention.fast.blockwise_attention` (which skips key blocks
that the mask blocks whole), turns the smaller count into less work.

Positions are aligned to the top-left corner, as in
:func:`~selfattention.causal_mask`: query ``i`` sits at key
position ``i``.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validate import check_positive_int


def _offsets(L: int, S: int | None) -> np.ndarray:
    """``i - j`` for every query ``i`` and key ``j``: how far back key ``j`` lies."""
    L = check_positive_int(L, "L")
    S = L if S is None else check_positive_int(S, "S")
    return np.arange(L)[:, None] - np.arange(S)[None, :]  # (L, S)


def _check_flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def sliding_window_mask(L: int, window: int, S: int | None = None, *, causal: bool = True) -> np.ndarray:
    """Boolean mask of a sliding window: query ``i`` reads keys ``i - window`` .. ``i``.

    With ``causal=False`` the window reaches ``window`` keys to each side:
    keys ``i - window`` .. ``i + window``. Key ``i - window - 1`` (and
    anything further back) is out of reach: its weight is exactly 0.

    Parameters
    ----------
    L : int
        Number of queries (rows).
    window : int
        The look-back: how many keys before the query it may read, besides
        itself (0 means only itself), so ``window + 1`` keys in all.
        Longformer's window size counts the whole window instead.
    S : int, optional
        Number of keys (columns); defaults to ``L``.
    causal : bool, default True, keyword-only
        Block the keys after the query.

    Returns
    -------
    numpy.ndarray
        Boolean array of shape ``(L, S)``, ``True`` = may attend.

    Raises
    ------
    TypeError
        If ``L``, ``S`` or ``window`` is not an integer, or ``causal`` is not
        a bool.
    ValueError
        If ``L`` or ``S`` is not positive, or ``window`` is negative.

    Examples
    --------
    Each of 5 tokens reads itself and the 2 tokens before it:

    >>> sliding_window_mask(5, 2).astype(int)
    array([[1, 0, 0, 0, 0],
           [1, 1, 0, 0, 0],
           [1, 1, 1, 0, 0],
           [0, 1, 1, 1, 0],
           [0, 0, 1, 1, 1]])
    >>> sliding_window_mask(4, 1, causal=False).astype(int)
    array([[1, 1, 0, 0],
           [1, 1, 1, 0],
           [0, 1, 1, 1],
           [0, 0, 1, 1]])

    It is a mask like any other:

    >>> from selfattention.attention import scaled_dot_product_attention
    >>> x = [[2, 0], [1, 1], [0, 2]]
    >>> _, w = scaled_dot_product_attention(x, x, x, mask=sliding_window_mask(3, 1),
    ...                                      return_weights=True)
    >>> float(w[2, 0])   # car can no longer read cat
    0.0
    """
    if isinstance(window, bool) or not isinstance(window, numbers.Integral):
        raise TypeError(f"window must be an integer >= 0, got {window!r}")
    if window < 0:
        raise ValueError(f"window must be an integer >= 0, got {window}")
    causal = _check_flag(causal, "causal")
    back = _offsets(L, S)  # (L, S): how far key j lies before query i
    if causal:
        return (back >= 0) & (back <= window)  # (L, S)
    return np.abs(back) <= window  # (L, S)


def strided_mask(L: int, stride: int, S: int | None = None, *, causal: bool = True) -> np.ndarray:
    """Boolean mask of the strided pattern: a local band plus every ``stride``-th key.

    Query ``i`` reads key ``j`` if ``j`` is one of the ``stride`` keys that
    end at ``i`` (``0 <= i - j < stride``), or if ``i - j`` is a multiple of
    ``stride``. With ``causal=False`` both rules hold in both directions
    (``|i - j| < stride`` or ``i - j`` a multiple of ``stride``).

    Parameters
    ----------
    L : int
        Number of queries (rows).
    stride : int
        Width of the local band and distance between the far keys read.
    S : int, optional
        Number of keys (columns); defaults to ``L``.
    causal : bool, default True, keyword-only
        Block the keys after the query.

    Returns
    -------
    numpy.ndarray
        Boolean array of shape ``(L, S)``, ``True`` = may attend.

    Raises
    ------
    TypeError
        If ``L``, ``S`` or ``stride`` is not an integer, or ``causal`` is not
        a bool.
    ValueError
        If ``L``, ``S`` or ``stride`` is not positive.

    Examples
    --------
    With stride 3, token 7 reads tokens 5, 6, 7 (its band) and 4, 1 (every
    third token back):

    >>> strided_mask(8, 3)[7].astype(int)
    array([0, 1, 0, 0, 1, 1, 1, 1])
    >>> strided_mask(5, 2).astype(int)
    array([[1, 0, 0, 0, 0],
           [1, 1, 0, 0, 0],
           [1, 1, 1, 0, 0],
           [0, 1, 1, 1, 0],
           [1, 0, 1, 1, 1]])
    >>> strided_mask(4, 2, causal=False).astype(int)
    array([[1, 1, 1, 0],
           [1, 1, 1, 1],
           [1, 1, 1, 1],
           [0, 1, 1, 1]])
    """
    stride = check_positive_int(stride, "stride")
    causal = _check_flag(causal, "causal")
    back = _offsets(L, S)  # (L, S)
    if causal:
        local = (back >= 0) & (back < stride)  # (L, S) the band ending at the query
        far = (back >= 0) & (back % stride == 0)  # (L, S) every stride-th key back
    else:
        local = np.abs(back) < stride
        far = back % stride == 0
    return local | far  # (L, S)


__all__ = ["sliding_window_mask", "strided_mask"]
