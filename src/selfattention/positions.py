"""Where each word stands: the position schemes of chapter "Where each word stands".

Bare attention cannot see order: permute the rows of ``X`` and the weights
and outputs are permuted the same way (:func:`~selfattention.positions.permutation_gap` measures it).
Models add position information in one of two places.

* **Added to the word** (absolute positions):
  :func:`~selfattention.sinusoidal_positions` (Vaswani et al. 2017), whose shift by ``k``
  steps is one linear map for every position (:func:`~selfattention.sinusoidal_shift`),
  and :func:`~selfattention.learned_positions`, the learned table of all-MiniLM-L6-v2.
* **Inside the score** (relative positions): :func:`~selfattention.rope` rotates each pair
  of a query's or key's numbers by an angle proportional to the position
  (Su et al. 2021), and :func:`~selfattention.alibi_bias` adds ``-slope * distance`` to
  the scores, with the slopes of :func:`~selfattention.alibi_slopes` (Press et al. 2022).

RoPE's convention
-----------------
:func:`~selfattention.rope` implements the paper's layout: the pairs are *interleaved*,
numbers ``(2i, 2i + 1)`` rotate together by ``m * theta_i`` with
``theta_i = base ** (-2i / d)``. GPT-NeoX, and Llama as implemented in
Hugging Face transformers, pair number ``i`` with number ``i + d/2``
instead ("rotate half"); :func:`~selfattention.rope_rotate_half` computes that layout.
The two differ only by a fixed permutation of the numbers,
:func:`~selfattention.rope_pair_order`::

    rope(x)[..., p] == rope_rotate_half(x[..., p])   with p = rope_pair_order(d)

Examples
--------
Move a query and a key by the same amount: the RoPE score does not change.

>>> import numpy as np
>>> q, k = np.array([1.0, 0.0, 0.5, 0.5]), np.array([0.0, 1.0, 1.0, 0.0])
>>> s = [rope(q, [m + 3]) @ rope(k, [n + 3]).T for m, n in [(2, 0), (12, 10)]]
>>> bool(np.allclose(s[0], s[1]))
True
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from . import minilm
from ._validate import as_float_array, check_positive_int
from .bert import bert_forward

#: The base of the geometric frequencies, in Vaswani et al. (2017) and Su et al. (2021).
BASE = 10_000.0


def _check_even(d, name: str) -> int:
    d = check_positive_int(d, name)
    if d % 2:
        raise ValueError(f"{name}={d} is odd: the numbers are rotated in pairs, so {name} must be even")
    return d


def _check_base(base) -> float:
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise TypeError(f"base must be a real number, got {type(base).__name__}")
    if not np.isfinite(base) or base <= 1:
        raise ValueError(f"base must be a finite number above 1, got {base}")
    return float(base)


def _check_positions(positions, n: int | None = None, *, limit: int | None = None) -> np.ndarray:
    """``positions`` as an int64 array of whole numbers >= 0 (and < ``limit``)."""
    arr = np.asarray(positions)
    if arr.dtype == object or arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"positions must be whole numbers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"positions must be real whole numbers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"positions must be one position per row, shape (L,); got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
        raise ValueError(f"positions must be whole numbers, got {arr.tolist()}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"positions must be 0 or more, got {int(arr.min())}: the first word is at position 0")
    if limit is not None and arr.size and arr.max() >= limit:
        raise ValueError(f"position {int(arr.max())} is over the table's length: it has {limit} positions, "
                         f"0 to {limit - 1}")
    if n is not None and arr.size != n:
        raise ValueError(f"positions has {arr.size} entries but x has {n} rows: give one position per row")
    return arr.astype(np.int64)


def frequencies(d, *, base=BASE) -> np.ndarray:
    """The ``d/2`` angular frequencies ``theta_i = base ** (-2i / d)``, largest first.

    Pair ``i`` of a sinusoidal position or of a RoPE rotation turns by
    ``theta_i`` radians per step of position.

    Parameters
    ----------
    d : int
        The number of numbers per vector; even.
    base : float, default 10000, keyword-only
        The base of the geometric sequence; above 1.

    Returns
    -------
    numpy.ndarray, shape (d/2,)

    Raises
    ------
    TypeError
        If ``d`` is not an integer or ``base`` not a real number.
    ValueError
        If ``d`` is odd or below 1, or ``base`` is not above 1.

    Examples
    --------
    >>> frequencies(4)
    array([1.  , 0.01])
    >>> frequencies(3)
    Traceback (most recent call last):
    ...
    ValueError: d=3 is odd: the numbers are rotated in pairs, so d must be even
    """
    d = _check_even(d, "d")
    base = _check_base(base)
    return base ** (-np.arange(0, d, 2) / d)  # (d/2,)


def sinusoidal_positions(L, d_model, *, base=BASE, start=0) -> np.ndarray:
    """The sinusoidal position vectors of Vaswani et al. (2017), one row per position.

    ``PE[m, 2i] = sin(m * theta_i)`` and ``PE[m, 2i + 1] = cos(m * theta_i)``
    with ``theta_i = base ** (-2i / d_model)``: each pair is a point on a
    circle that turns at its own speed as the position grows.

    Parameters
    ----------
    L : int
        The number of positions, ``start`` to ``start + L - 1``.
    d_model : int
        The number of numbers per vector; even.
    base : float, default 10000, keyword-only
        The base of the geometric frequencies.
    start : int, default 0, keyword-only
        The first position. A position's vector is the same whatever comes
        before it, which is what a cache of keys and values needs.

    Returns
    -------
    numpy.ndarray, shape (L, d_model)

    Raises
    ------
    TypeError, ValueError
        If ``L`` or ``d_model`` is not a positive integer, ``d_model`` is
        odd, ``base`` is not above 1, or ``start`` is not an integer >= 0.

    Examples
    --------
    >>> sinusoidal_positions(3, 4).round(3)
    array([[ 0.   ,  1.   ,  0.   ,  1.   ],
           [ 0.841,  0.54 ,  0.01 ,  1.   ],
           [ 0.909, -0.416,  0.02 ,  1.   ]])
    >>> bool((sinusoidal_positions(1, 4, start=2) == sinusoidal_positions(3, 4)[2:]).all())
    True
    """
    L = check_positive_int(L, "L")
    if isinstance(start, bool) or not isinstance(start, numbers.Integral):
        raise TypeError(f"start must be an integer >= 0, got {start!r}")
    if start < 0:
        raise ValueError(f"start must be an integer >= 0, got {start}")
    theta = frequencies(_check_even(d_model, "d_model"), base=base)  # (d/2,)
    angles = np.arange(start, start + L)[:, None] * theta            # (L, d/2)
    pe = np.empty((L, theta.size * 2))                               # (L, d)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def sinusoidal_shift(k, d_model, *, base=BASE) -> np.ndarray:
    """The matrix ``M`` with ``PE[m + k] = PE[m] @ M`` for every position ``m``.

    ``M`` is block diagonal: one 2 x 2 rotation by ``k * theta_i`` per pair.
    It depends on ``k`` alone, not on ``m``: moving ``k`` steps is the same
    linear map wherever a word stands.

    Parameters
    ----------
    k : int
        The number of steps; may be negative.
    d_model : int
        The number of numbers per vector; even.
    base : float, default 10000, keyword-only
        The base of the geometric frequencies.

    Returns
    -------
    numpy.ndarray, shape (d_model, d_model)

    Raises
    ------
    TypeError, ValueError
        If ``k`` is not an integer, ``d_model`` is odd or not positive, or
        ``base`` is not above 1.

    Examples
    --------
    >>> import numpy as np
    >>> pe = sinusoidal_positions(20, 8)
    >>> M = sinusoidal_shift(5, 8)
    >>> bool(np.allclose(pe[:15] @ M, pe[5:]))
    True
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer number of steps, got {type(k).__name__}")
    theta = frequencies(_check_even(d_model, "d_model"), base=base)  # (d/2,)
    c, s = np.cos(k * theta), np.sin(k * theta)
    M = np.zeros((theta.size * 2, theta.size * 2))                   # (d, d)
    i = np.arange(theta.size) * 2
    # row vector [sin a, cos a] @ [[cos b, -sin b], [sin b, cos b]] = [sin(a + b), cos(a + b)]
    M[i, i], M[i, i + 1], M[i + 1, i], M[i + 1, i + 1] = c, -s, s, c
    return M


def learned_positions(positions, *, model_dir=None) -> np.ndarray:
    """Rows of all-MiniLM-L6-v2's learned position table.

    The model adds row ``m`` of ``embeddings.position_embeddings.weight``
    (512 rows of 384 numbers) to the word at position ``m``, then
    normalises the sum (see :func:`selfattention.bert.bert_embeddings`).

    Parameters
    ----------
    positions : int or array_like of int
        An int ``L`` for positions ``0`` to ``L - 1``, or the positions
        themselves, shape ``(L,)``.
    model_dir : str or os.PathLike, optional, keyword-only
        Folder with the model files; defaults to the installed package
        (see :func:`selfattention.minilm.find_model_dir`).

    Returns
    -------
    numpy.ndarray, shape (L, 384)
        float32, a copy.

    Raises
    ------
    TypeError
        If the positions are not whole numbers.
    ValueError
        If a position is negative or over the table's 512.
    ModelNotFoundError, ChecksumError, ImportError
        As in :func:`selfattention.minilm.load_weights`.

    Examples
    --------
    >>> learned_positions(64).shape
    (64, 384)
    >>> learned_positions([512])
    Traceback (most recent call last):
    ...
    ValueError: position 512 is over the table's length: it has 512 positions, 0 to 511
    """
    weights = minilm.load_weights(model_dir)
    table = weights["embeddings.position_embeddings.weight"]        # (512, 384)
    if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
        if positions > table.shape[0]:
            raise ValueError(f"L={positions} is over the table's length: it has {table.shape[0]} positions")
        positions = np.arange(check_positive_int(positions, "L"))
    pos = _check_positions(positions, limit=table.shape[0])         # (L,)
    return table[pos].copy()                                         # (L, 384)


def cosine_similarity(rows) -> np.ndarray:
    """The cosine of the angle between every two rows: ``(L, L)``, 1 on the diagonal.

    Parameters
    ----------
    rows : array_like, shape (L, d)
        No row may be all zeros.

    Returns
    -------
    numpy.ndarray, shape (L, L)

    Raises
    ------
    TypeError, ValueError
        If ``rows`` is not a finite real ``(L, d)`` array, or a row is zero.

    Examples
    --------
    >>> cosine_similarity([[1.0, 0.0], [1.0, 1.0]]).round(3)
    array([[1.   , 0.707],
           [0.707, 1.   ]])
    """
    x = as_float_array(rows, "rows").astype(np.float64)
    if x.ndim != 2:
        raise ValueError(f"rows must have shape (L, d), got {x.shape}")
    norms = np.linalg.norm(x, axis=1)                                # (L,)
    if np.any(norms == 0):
        raise ValueError(f"row {int(np.argmin(norms))} is all zeros: it has no direction")
    unit = x / norms[:, None]                                        # (L, d)
    return np.clip(unit @ unit.T, -1.0, 1.0)                         # (L, L)


def _rope_input(x, positions, base):
    x = as_float_array(x, "x")
    if x.ndim == 1:
        x = x[None, :]
    d = _check_even(x.shape[-1], "d")
    L = x.shape[-2]
    pos = np.arange(L) if positions is None else _check_positions(positions, L)
    angles = pos[:, None] * frequencies(d, base=base)                # (L, d/2)
    return x, np.cos(angles), np.sin(angles)


def rope(x, positions=None, *, base=BASE) -> np.ndarray:
    """Rotary position embedding (Su et al. 2021), pairs interleaved as in the paper.

    Row ``m`` of ``x`` stands at position ``positions[m]``. Its numbers
    ``(2i, 2i + 1)`` are turned as a pair by the angle
    ``positions[m] * theta_i``, ``theta_i = base ** (-2i / d)``::

        y[2i]     = x[2i] cos(m theta_i) - x[2i + 1] sin(m theta_i)
        y[2i + 1] = x[2i] sin(m theta_i) + x[2i + 1] cos(m theta_i)

    Apply it to the queries and the keys (never the values); then the score
    of a query at ``m`` with a key at ``n`` depends on ``m - n`` only.

    Parameters
    ----------
    x : array_like, shape (..., L, d) or (d,)
        Queries or keys; ``d`` even. A single vector is one row.
    positions : array_like of int, shape (L,), optional
        The position of each row, 0 or more; defaults to ``0 .. L - 1``.
    base : float, default 10000, keyword-only
        The base of the geometric frequencies.

    Returns
    -------
    numpy.ndarray, shape (..., L, d)
        A single vector comes back as one row, ``(1, d)``.

    Raises
    ------
    TypeError
        If ``x`` is not real and numeric, or the positions not whole numbers.
    ValueError
        If ``d`` is odd, ``x`` holds NaN or inf, a position is negative, or
        there is not one position per row.

    Examples
    --------
    With ``d = 2`` there is one pair, and ``theta_0 = 1``: position ``m``
    turns it by ``m`` radians.

    >>> import numpy as np
    >>> rope([[1.0, 0.0], [1.0, 0.0]]).round(3)      # positions 0 and 1: turned by 0 and 1 radian
    array([[1.   , 0.   ],
           [0.54 , 0.841]])
    >>> rope([1.0, 2.0, 3.0])
    Traceback (most recent call last):
    ...
    ValueError: d=3 is odd: the numbers are rotated in pairs, so d must be even
    """
    x, cos, sin = _rope_input(x, positions, base)                    # (..., L, d), (L, d/2) twice
    even, odd = x[..., 0::2], x[..., 1::2]                           # (..., L, d/2) each
    y = np.empty_like(x)                                             # (..., L, d)
    y[..., 0::2] = even * cos - odd * sin
    y[..., 1::2] = even * sin + odd * cos
    return y


def rope_rotate_half(x, positions=None, *, base=BASE) -> np.ndarray:
    """RoPE in the "rotate half" layout of GPT-NeoX and of Llama in transformers.

    Number ``i`` is paired with number ``i + d/2`` (not ``i + 1``)::

        y = x * cos + rotate_half(x) * sin,   rotate_half(x) = [-x[d/2:], x[:d/2]]

    with the angles of :func:`~selfattention.rope` repeated for both halves. It is
    :func:`~selfattention.rope` with the numbers in another order:
    ``rope(x)[..., p] == rope_rotate_half(x[..., p])`` with
    ``p = rope_pair_order(d)``.

    Parameters
    ----------
    x : array_like, shape (..., L, d) or (d,)
        Queries or keys; ``d`` even.
    positions : array_like of int, shape (L,), optional
        The position of each row; defaults to ``0 .. L - 1``.
    base : float, default 10000, keyword-only
        The base of the geometric frequencies.

    Returns
    -------
    numpy.ndarray, shape (..., L, d)

    Raises
    ------
    TypeError, ValueError
        As in :func:`~selfattention.rope`.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(8.0).reshape(2, 4)
    >>> p = rope_pair_order(4)
    >>> bool(np.allclose(rope(x)[:, p], rope_rotate_half(x[:, p])))
    True
    """
    x, cos, sin = _rope_input(x, positions, base)                    # (..., L, d), (L, d/2) twice
    half = x.shape[-1] // 2
    cos, sin = np.concatenate([cos, cos], -1), np.concatenate([sin, sin], -1)  # (L, d)
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)         # (..., L, d)
    return x * cos + rotated * sin


def rope_pair_order(d) -> np.ndarray:
    """The permutation that turns the interleaved layout into the "rotate half" one.

    ``x[..., p]`` with ``p = rope_pair_order(d)`` puts the even-numbered
    numbers first and the odd-numbered after them, so that the paper's
    pair ``(2i, 2i + 1)`` lands at ``(i, i + d/2)``.

    Parameters
    ----------
    d : int
        The number of numbers per vector; even.

    Returns
    -------
    numpy.ndarray of int, shape (d,)

    Raises
    ------
    TypeError, ValueError
        If ``d`` is not a positive even integer.

    Examples
    --------
    >>> rope_pair_order(6)
    array([0, 2, 4, 1, 3, 5])
    """
    d = _check_even(d, "d")
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def alibi_slopes(h) -> np.ndarray:
    """ALiBi's slope for each of ``h`` heads (Press et al. 2022).

    For ``h`` a power of two the slopes are the geometric sequence
    ``2 ** (-8 i / h)`` for ``i = 1 .. h``, as in the paper. The paper trains
    only such models; for other ``h`` the authors' code (not the paper)
    takes the slopes of the largest power of two below ``h``, ``p``, and adds
    every other slope of ``2p`` heads (the 1st, 3rd, ...) until there are
    ``h``. Hugging Face's BLOOM does the same.

    Parameters
    ----------
    h : int
        The number of heads, 1 or more.

    Returns
    -------
    numpy.ndarray, shape (h,)
        Decreasing, every slope in ``(0, 1)``.

    Raises
    ------
    TypeError, ValueError
        If ``h`` is not a positive integer.

    Examples
    --------
    >>> alibi_slopes(8)
    array([0.5       , 0.25      , 0.125     , 0.0625    , 0.03125   ,
           0.015625  , 0.0078125 , 0.00390625])
    >>> alibi_slopes(6).round(4)
    array([0.25  , 0.0625, 0.0156, 0.0039, 0.5   , 0.125 ])
    """
    h = check_positive_int(h, "h")
    p = 1 << (h.bit_length() - 1)                                    # the largest power of two <= h
    first = 2.0 ** (-8.0 * np.arange(1, p + 1) / p)                  # (p,)
    if p == h:
        return first
    return np.concatenate([first, alibi_slopes(2 * p)[0::2][: h - p]])


def alibi_bias(L, h, *, causal: bool = True) -> np.ndarray:
    """ALiBi's float mask: ``-slope * (i - j)`` added to the score of query ``i`` with key ``j``.

    As in Press et al. (2022) the model is causal: a key after the query
    gets ``-inf`` (blocked). With ``causal=False`` the distance is
    ``|i - j|`` in both directions, a common extension for encoders that is
    not in the paper.

    Pass it as the ``mask`` of
    :func:`~selfattention.scaled_dot_product_attention`: a float mask is
    added to the scores.

    Parameters
    ----------
    L : int
        The number of tokens (queries = keys).
    h : int
        The number of heads; each gets its slope from :func:`~selfattention.alibi_slopes`.
    causal : bool, default True, keyword-only
        Block the keys after each query.

    Returns
    -------
    numpy.ndarray, shape (h, L, L)

    Raises
    ------
    TypeError, ValueError
        If ``L`` or ``h`` is not a positive integer, or ``causal`` not a bool.

    Examples
    --------
    Two heads have the slopes 1/16 and 1/256; the first head's bias:

    >>> alibi_bias(3, 2)[0]
    array([[ 0.    ,    -inf,    -inf],
           [-0.0625,  0.    ,    -inf],
           [-0.125 , -0.0625,  0.    ]])
    """
    L = check_positive_int(L, "L")
    if not isinstance(causal, (bool, np.bool_)):
        raise TypeError(f"causal must be True or False, got {causal!r}")
    i, j = np.arange(L)[:, None], np.arange(L)[None, :]
    distance = (i - j).astype(np.float64)                             # (L, L)
    bias = 0.0 - alibi_slopes(h)[:, None, None] * np.abs(distance)  # (h, L, L); 0.0 - keeps +0
    if causal:
        bias = np.where(distance < 0, -np.inf, bias)
    return bias


def permutation_gap(weights, shuffled_weights, order) -> float:
    """How far ``shuffled_weights`` is from ``weights`` permuted by ``order``: the largest difference.

    Bare attention is permutation equivariant: if the rows of ``X`` are put
    in the order ``order`` (``X[order]``), its weights are
    ``weights[..., order, :][..., :, order]``. This returns the largest
    ``|shuffled_weights - that|``: 0 to rounding for a model that cannot
    see order.

    Parameters
    ----------
    weights : array_like, shape (..., L, L)
        The weights for the sentence in its order.
    shuffled_weights : array_like, shape (..., L, L)
        The weights for the rows in ``order``.
    order : array_like of int, shape (L,)
        A permutation of ``0 .. L - 1``.

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        If the arrays are not real ``(..., L, L)`` of one shape, or
        ``order`` is not a permutation of ``0 .. L - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import scaled_dot_product_attention, three_words
    >>> X, order = three_words(), [2, 0, 1]
    >>> _, w = scaled_dot_product_attention(X, X, X, return_weights=True)
    >>> _, w_shuffled = scaled_dot_product_attention(X[order], X[order], X[order], return_weights=True)
    >>> permutation_gap(w, w_shuffled, order) < 1e-15
    True
    """
    w = as_float_array(weights, "weights").astype(np.float64)
    ws = as_float_array(shuffled_weights, "shuffled_weights").astype(np.float64)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2] or w.shape != ws.shape:
        raise ValueError(f"weights and shuffled_weights must both have shape (..., L, L); got {w.shape} "
                         f"and {ws.shape}")
    order = _check_positions(order)
    L = w.shape[-1]
    if sorted(order.tolist()) != list(range(L)):
        raise ValueError(f"order must be a permutation of 0 .. {L - 1}, got {order.tolist()}")
    moved = w[..., order, :][..., :, order]                          # (..., L, L)
    return float(np.abs(ws - moved).max())


def encode_in_order(sentence: str, words: Sequence[int], *, with_positions: bool = True, model_dir=None):
    """Run all-MiniLM-L6-v2 on a sentence's tokens, with the words in the order ``words``.

    The tokens between ``[CLS]`` and ``[SEP]`` are put in the order
    ``words`` (see :func:`~selfattention.positions.shuffle_tokens`) and the model runs on them. With
    ``with_positions=False`` every token gets the position vector of
    position 0, so the model cannot see where a word stands.

    Parameters
    ----------
    sentence : str
        The text; see :func:`selfattention.minilm.tokenize`.
    words : sequence of int
        A permutation of ``1 .. L - 2``, ``L`` the number of tokens.
    with_positions : bool, default True, keyword-only
        Keep the model's learned positions.
    model_dir : str or os.PathLike, optional, keyword-only
        Folder with the model files.

    Returns
    -------
    tokens : tuple of str
        The tokens in their new order.
    attentions : numpy.ndarray, shape (6, 12, L, L)
        Every layer's and head's weights.

    Raises
    ------
    TypeError, ValueError, ModelNotFoundError, ChecksumError, ImportError
        As in :func:`selfattention.minilm.encode`, and if ``words`` is not a
        permutation of the words.

    Examples
    --------
    >>> tokens, a = encode_in_order("dog bites man", [3, 2, 1])
    >>> tokens, a.shape
    (('[CLS]', 'man', 'bites', 'dog', '[SEP]'), (6, 12, 5, 5))
    """
    if not isinstance(with_positions, (bool, np.bool_)):
        raise TypeError(f"with_positions must be True or False, got {with_positions!r}")
    tokens, ids = minilm.tokenize(sentence, model_dir=model_dir)                    # (L,)
    order = shuffle_tokens(len(tokens), words)                                      # (L,)
    weights = dict(minilm.load_weights(model_dir))
    if not with_positions:
        table = weights["embeddings.position_embeddings.weight"]                    # (512, 384)
        weights["embeddings.position_embeddings.weight"] = np.broadcast_to(table[:1], table.shape)
    out = bert_forward(ids[order], weights, minilm.load_config(model_dir))
    return tuple(tokens[i] for i in order), out.attentions                          # (6, 12, L, L)


def shuffle_tokens(n_tokens: int, words: Sequence[int]) -> np.ndarray:
    """The order of a sentence's tokens with its words in the order ``words``, ``[CLS]`` and ``[SEP]`` kept.

    Parameters
    ----------
    n_tokens : int
        The number of tokens, ``[CLS]`` and ``[SEP]`` included.
    words : sequence of int
        A permutation of ``1 .. n_tokens - 2``: the new order of the tokens
        between ``[CLS]`` and ``[SEP]``.

    Returns
    -------
    numpy.ndarray of int, shape (n_tokens,)

    Raises
    ------
    ValueError
        If ``words`` is not a permutation of ``1 .. n_tokens - 2``.

    Examples
    --------
    >>> shuffle_tokens(5, [3, 2, 1])    # [CLS] dog bites man [SEP] -> [CLS] man bites dog [SEP]
    array([0, 3, 2, 1, 4])
    """
    n = check_positive_int(n_tokens, "n_tokens")
    inner = _check_positions(words)
    if sorted(inner.tolist()) != list(range(1, n - 1)):
        raise ValueError(f"words must be a permutation of 1 .. {n - 2}, got {inner.tolist()}")
    return np.concatenate([[0], inner, [n - 1]]).astype(np.int64)


__all__ = [
    "BASE",
    "alibi_bias",
    "alibi_slopes",
    "cosine_similarity",
    "encode_in_order",
    "frequencies",
    "learned_positions",
    "permutation_gap",
    "rope",
    "rope_pair_order",
    "rope_rotate_half",
    "shuffle_tokens",
    "sinusoidal_positions",
    "sinusoidal_shift",
]
