"""Where the causal triangle sits when there are fewer queries than keys.

:func:`~selfattention.causal_mask` (and ``causal=True`` in
:func:`~selfattention.scaled_dot_product_attention`) aligns the
triangle to the **top-left** corner, as PyTorch's ``is_causal`` does: query
``i`` sees keys ``0..i``. That is right when query ``i`` and key ``i`` are
the same position of the text, which is always so when ``L == S``.

When the ``L`` queries are the **last** ``L`` positions of ``S``, as when a
model writes new words after ``S - L`` words it has kept (a KV cache), query
``i`` is position ``i + S - L`` and must see keys ``0..i + S - L``: the
triangle is aligned to the **bottom-right** corner. FlashAttention (since
version 2.1) and PyTorch's ``torch.nn.attention.bias.causal_lower_right``
use this alignment.
"""

from __future__ import annotations

import numpy as np

from ._validate import check_positive_int


def causal_mask_bottom_right(L: int, S: int | None = None) -> np.ndarray:
    """Causal mask for the last ``L`` of ``S`` positions: query ``i`` sees keys ``j <= i + S - L``.

    ``True`` means "may attend". The last query sees every key; the
    triangle is aligned to the bottom-right corner. With ``L == S`` this is
    :func:`~selfattention.causal_mask`. With ``L > S`` the first
    ``L - S`` rows are all ``False``: those queries see no key, and
    :func:`~selfattention.scaled_dot_product_attention` gives them
    weights 0 and output 0 (FlashAttention does the same).

    Parameters
    ----------
    L : int
        Number of queries (rows): the newest ``L`` positions.
    S : int, optional
        Number of keys (columns): every position so far; defaults to ``L``.

    Returns
    -------
    numpy.ndarray
        Boolean array of shape ``(L, S)``.

    Raises
    ------
    TypeError, ValueError
        If ``L`` or ``S`` is not a positive integer.

    Examples
    --------
    Three new words after two kept ones: five keys, three queries.

    >>> causal_mask_bottom_right(3, 5).astype(int)
    array([[1, 1, 1, 0, 0],
           [1, 1, 1, 1, 0],
           [1, 1, 1, 1, 1]])

    The default, top-left mask hides the kept words from the new ones:

    >>> from selfattention import causal_mask
    >>> causal_mask(3, 5).astype(int)
    array([[1, 0, 0, 0, 0],
           [1, 1, 0, 0, 0],
           [1, 1, 1, 0, 0]])

    One new word (the usual step of writing) sees everything:

    >>> causal_mask_bottom_right(1, 4).astype(int)
    array([[1, 1, 1, 1]])
    """
    L = check_positive_int(L, "L")
    S = L if S is None else check_positive_int(S, "S")
    return np.tri(L, S, k=S - L, dtype=bool)  # (L, S): key j allowed where j <= i + S - L


__all__ = ["causal_mask_bottom_right"]
