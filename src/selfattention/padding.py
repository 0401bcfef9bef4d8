"""Padding masks: a batch of sentences of different lengths, padded to one length.

Sentences in a batch are stacked into one array, so the shorter ones are
filled up with padding tokens to the length ``S`` of the longest. A padding
token is not a word: no query may read it. :func:`~selfattention.padding_mask` blocks the
padded keys of each sentence. Its result has shape ``(batch, 1, S)``: one
row per sentence, the same for every query (the axis of length 1 broadcasts
over the ``L`` queries), so it can be passed as ``mask=`` to
:func:`~selfattention.scaled_dot_product_attention` for scores of
shape ``(batch, L, S)``, alone or with ``causal=True``.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validate import check_positive_int


def padding_mask(lengths, S: int | None = None, *, side: str = "right") -> np.ndarray:
    """Boolean mask that blocks the padded keys of each sentence of a batch.

    ``True`` means "may attend", as in
    :func:`~selfattention.causal_mask`. Sentence ``b`` has
    ``lengths[b]`` real tokens; the other ``S - lengths[b]`` are padding.
    With ``side="right"`` the padding comes after the words (keys
    ``lengths[b]`` and later are blocked); with ``side="left"`` it comes
    before them (keys ``0 .. S - lengths[b] - 1`` are blocked).

    Parameters
    ----------
    lengths : sequence of int, shape (batch,)
        The number of real tokens of each sentence, each in ``0 .. S``.
    S : int, optional
        The padded length (number of keys); defaults to ``max(lengths)``.
    side : {"right", "left"}, default "right", keyword-only
        Where the padding sits.

    Returns
    -------
    numpy.ndarray
        Boolean array of shape ``(batch, 1, S)``: it broadcasts over the
        queries of scores of shape ``(batch, L, S)``. For scores with a
        head axis, ``(batch, heads, L, S)``, use ``mask[:, None]``.

    Raises
    ------
    TypeError
        If ``lengths`` does not hold integers, ``S`` is not an integer or
        ``side`` is not a string.
    ValueError
        If ``lengths`` is not 1-D or is empty, a length is negative or
        larger than ``S``, ``S`` is not positive, or ``side`` is neither
        ``"right"`` nor ``"left"``.

    Examples
    --------
    Two sentences padded to 4 tokens: the first has 4 words, the second 2.

    >>> m = padding_mask([4, 2])
    >>> m.shape
    (2, 1, 4)
    >>> m.astype(int)
    array([[[1, 1, 1, 1]],
    <BLANKLINE>
           [[1, 1, 0, 0]]])

    Padded on the left, the words end at the same place:

    >>> padding_mask([4, 2], side="left")[:, 0].astype(int)
    array([[1, 1, 1, 1],
           [0, 0, 1, 1]])

    With a causal mask, every query of the second sentence reads only its
    own words, never a padding token:

    >>> import selfattention as sa
    >>> q = k = v = np.ones((2, 4, 2))
    >>> w = sa.scaled_dot_product_attention(q, k, v, mask=m, causal=True, return_weights=True)[1]
    >>> w[1].round(2)
    array([[1. , 0. , 0. , 0. ],
           [0.5, 0.5, 0. , 0. ],
           [0.5, 0.5, 0. , 0. ],
           [0.5, 0.5, 0. , 0. ]])
    """
    arr = np.asarray(lengths)
    if arr.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-D sequence, one length per sentence; got shape {arr.shape}")
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"lengths must hold integers (a count of tokens per sentence), got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-D sequence, one length per sentence; got shape {arr.shape}")
    if (arr < 0).any():
        raise ValueError(f"lengths must not be negative, got {arr.tolist()}")
    S = max(int(arr.max()), 1) if S is None else check_positive_int(S, "S")
    if (arr > S).any():
        raise ValueError(f"a sentence is longer than the padded length S={S}: lengths {arr.tolist()}")
    if not isinstance(side, str) or isinstance(side, numbers.Number):
        raise TypeError(f"side must be 'right' or 'left', got {side!r}")
    if side not in ("right", "left"):
        raise ValueError(f"side must be 'right' or 'left', got {side!r}")
    position = np.arange(S)  # (S,) the key positions
    if side == "right":
        keep = position[None, :] < arr[:, None]  # (batch, S): the first lengths[b] keys are words
    else:
        keep = position[None, :] >= (S - arr)[:, None]  # (batch, S): the last lengths[b] keys are words
    return keep[:, None, :]  # (batch, 1, S): the same row for every query


__all__ = ["padding_mask"]
