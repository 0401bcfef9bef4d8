"""Reading the attention of a model: which token looks at which, in every layer and head.

The helpers of the chapter "Attention in a real model": find a token,
take the weights from one token to others, and find the heads whose
favourite of two tokens swaps between two sentences.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from .._validate import as_float_array


def token_index(tokens: Sequence[str], token) -> int:
    """Position of ``token`` in ``tokens``; it must occur exactly once.

    Parameters
    ----------
    tokens : sequence of str
        The sentence's tokens, e.g. ``["[CLS]", "the", "animal", ...]``.
    token : str or int
        A token that occurs once, or a position (negative counts from the
        end).

    Returns
    -------
    int
        The position, from 0.

    Raises
    ------
    TypeError
        If ``token`` is neither a string nor an integer.
    ValueError
        If the string does not occur, occurs more than once (pass the
        position instead), or the position is out of range.

    Examples
    --------
    >>> toks = ["[CLS]", "the", "cat", "saw", "the", "dog", "[SEP]"]
    >>> token_index(toks, "cat"), token_index(toks, -2)
    (2, 5)
    >>> token_index(toks, "the")
    Traceback (most recent call last):
    ...
    ValueError: token 'the' occurs at positions [1, 4]; pass a position instead
    """
    n = len(tokens)
    if isinstance(token, str):
        where = [i for i, t in enumerate(tokens) if t == token]
        if not where:
            raise ValueError(f"token {token!r} is not among the {n} tokens {list(tokens)}")
        if len(where) > 1:
            raise ValueError(
                f"token {token!r} occurs at positions {where}; pass a position instead"
            )
        return where[0]
    if isinstance(token, bool) or not isinstance(token, numbers.Integral):
        raise TypeError(f"token must be a string or an integer position, got {token!r}")
    if not -n <= token < n:
        raise ValueError(f"position {token} is out of range for {n} tokens")
    return int(token) % n


def attention_from_to(attentions, tokens: Sequence[str], source, targets) -> np.ndarray:
    """How much ``source`` attends to each of ``targets``, in every layer and head.

    Parameters
    ----------
    attentions : array_like, shape (..., L, L)
        Attention weights, e.g. ``(layers, heads, L, L)`` from
        :func:`~selfattention.bert_forward`; row = query (the token that looks).
    tokens : sequence of str
        The ``L`` tokens.
    source : str or int
        The token that looks (see :func:`token_index`).
    targets : sequence of (str or int)
        The tokens looked at.

    Returns
    -------
    numpy.ndarray, shape (..., len(targets))
        ``[..., j]`` is the weight from ``source`` to ``targets[j]``.

    Raises
    ------
    TypeError, ValueError
        If ``attentions`` is not ``(..., L, L)`` with ``L = len(tokens)``,
        or a token cannot be found (see :func:`token_index`).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[[0.1, 0.6, 0.3], [0.2, 0.2, 0.6], [0.5, 0.4, 0.1]]])  # (1, 3, 3)
    >>> attention_from_to(a, ["it", "cat", "mat"], "it", ["cat", "mat"])
    array([[0.6, 0.3]])
    """
    a = as_float_array(attentions, "attentions")
    L = len(tokens)
    if a.ndim < 2 or a.shape[-2:] != (L, L):
        raise ValueError(f"attentions must have shape (..., L, L) with L={L} tokens, got {a.shape}")
    if isinstance(targets, (str, bytes)) or not isinstance(targets, Sequence):
        raise TypeError(f"targets must be a sequence of tokens or positions, got {targets!r}")
    i = token_index(tokens, source)
    cols = [token_index(tokens, t) for t in targets]
    return a[..., i, cols]  # (..., len(targets))


def preference_flips(first, second, *, min_weight: float = 0.0, min_margin: float = 0.0) -> np.ndarray:
    """Heads whose favourite of two targets swaps from the first sentence to the second.

    Parameters
    ----------
    first, second : array_like, shape (..., 2)
        Weights to targets ``(a, b)`` from :func:`attention_from_to`, for
        two sentences, e.g. ``(layers, heads, 2)``.
    min_weight : float, default 0.0, keyword-only
        Ignore heads that barely look at either target: the favourite must
        get at least this weight in both sentences.
    min_margin : float, default 0.0, keyword-only
        Ignore preferences too close to call: in both sentences the
        favourite must get at least this much more weight than the other
        target. A margin of a few thousandths is noise (rounding, and one
        sentence pair), not a preference.

    Returns
    -------
    numpy.ndarray of bool, shape (...)
        ``True`` where ``first`` gives ``a`` more weight than ``b``,
        ``second`` gives ``b`` more weight than ``a``, both favourites
        reach ``min_weight``, and both margins reach ``min_margin``.

    Raises
    ------
    TypeError
        If an input is not numeric.
    ValueError
        If the shapes differ, the last axis is not 2, or ``min_weight`` or
        ``min_margin`` is not a number in [0, 1].

    Examples
    --------
    >>> first = [[0.6, 0.1], [0.5, 0.2], [0.03, 0.01]]
    >>> second = [[0.2, 0.3], [0.5, 0.4], [0.01, 0.02]]
    >>> preference_flips(first, second)
    array([ True, False,  True])
    >>> preference_flips(first, second, min_weight=0.05)
    array([ True, False, False])
    >>> preference_flips(first, second, min_margin=0.05)   # margins 0.5 and 0.1; 0.02 and 0.01
    array([ True, False, False])
    """
    f = as_float_array(first, "first")
    s = as_float_array(second, "second")
    if f.shape != s.shape or f.ndim < 1 or f.shape[-1] != 2:
        raise ValueError(
            f"first and second must both have shape (..., 2), got {f.shape} and {s.shape}"
        )
    for name, value in (("min_weight", min_weight), ("min_margin", min_margin)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
            raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    looked_at = (f[..., 0] >= min_weight) & (s[..., 1] >= min_weight)
    clear = (f[..., 0] - f[..., 1] >= min_margin) & (s[..., 1] - s[..., 0] >= min_margin)
    return (f[..., 0] > f[..., 1]) & (s[..., 1] > s[..., 0]) & looked_at & clear


__all__ = ["attention_from_to", "preference_flips", "token_index"]
