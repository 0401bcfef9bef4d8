"""Multi-head self-attention: several heads side by side, joined by one matrix.

The reference layer's preview of what the chapter "What comes next" shows:
project every word to queries, keys and values of width ``d_model``, cut
each of the three into ``h`` slices of ``d_head = d_model / h`` numbers,
let every slice attend on its own with
:func:`~selfattention.scaled_dot_product_attention`, put the
``h`` outputs side by side again and mix them with ``W_O``::

    head_i = softmax(Q_i K_i^T / sqrt(d_head)) V_i
    MultiHead(X) = concat(head_1, ..., head_h) W_O

Matrices multiply from the right (``x @ w_q``), as in the rest of the
package; PyTorch stores the transpose (``x @ W.T``).
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validate import as_float_array, check_ndim
from .attention import scaled_dot_product_attention


def split_heads(x, h):
    """Cut each row of ``x`` into ``h`` slices, one per head.

    Head ``i`` gets columns ``i * d_head`` to ``(i + 1) * d_head``, with
    ``d_head = d_model / h``.

    Parameters
    ----------
    x : array_like, shape (..., L, d_model)
        One row per word.
    h : int
        Number of heads; must divide ``d_model``.

    Returns
    -------
    numpy.ndarray, shape (..., h, L, d_head)

    Raises
    ------
    TypeError
        If ``x`` is not numeric or ``h`` is not an integer.
    ValueError
        If ``x`` has fewer than 2 dimensions, or ``h`` is not positive or
        does not divide ``d_model``.

    Examples
    --------
    Two words of four numbers, two heads of two numbers each:

    >>> import numpy as np
    >>> split_heads(np.arange(8.0).reshape(2, 4), 2)
    array([[[0., 1.],
            [4., 5.]],
    <BLANKLINE>
           [[2., 3.],
            [6., 7.]]])
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 2, "(..., L, d_model)")
    h = _check_heads(h, x.shape[-1], f"x {x.shape}")
    *lead, L, d_model = x.shape
    sliced = x.reshape(*lead, L, h, d_model // h)  # (..., L, h, d_head)
    return np.swapaxes(sliced, -3, -2)  # (..., h, L, d_head)


def concat_heads(x):
    """Put the heads' outputs side by side again: undo :func:`~selfattention.split_heads`.

    Parameters
    ----------
    x : array_like, shape (..., h, L, d_head)
        One block per head.

    Returns
    -------
    numpy.ndarray, shape (..., L, h * d_head)
        Row ``i`` is word ``i``'s output of head 0, then of head 1, and so on.

    Raises
    ------
    TypeError
        If ``x`` is not numeric.
    ValueError
        If ``x`` has fewer than 3 dimensions.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(8.0).reshape(2, 4)
    >>> bool((concat_heads(split_heads(x, 2)) == x).all())
    True
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 3, "(..., h, L, d_head)")
    *lead, h, L, d_head = x.shape
    return np.swapaxes(x, -3, -2).reshape(*lead, L, h * d_head)  # (..., L, h * d_head)


def multi_head_attention(x, w_q, w_k, w_v, w_o, h, *, b_q=None, b_k=None, b_v=None, b_o=None,
                         mask=None, causal=False, return_weights=False):
    """Multi-head self-attention of the words ``x`` with ``h`` heads.

    ``Q = X W_Q`` (and likewise ``K``, ``V``) is cut into ``h`` slices of
    ``d_head = d_model / h`` numbers; each slice attends on its own,
    ``softmax(Q_i K_i^T / sqrt(d_head)) V_i``; the ``h`` outputs are put
    side by side and multiplied by ``W_O``.

    Parameters
    ----------
    x : array_like, shape (..., L, d_model)
        One row per word.
    w_q, w_k, w_v : array_like, shape (d_model, d_model)
        Query, key and value matrices of all the heads together: head ``i``
        uses columns ``i * d_head`` to ``(i + 1) * d_head``.
    w_o : array_like, shape (d_model, d_model)
        Output matrix: mixes the concatenated heads.
    h : int
        Number of heads; must divide ``d_model``.
    b_q, b_k, b_v, b_o : array_like, shape (d_model,), optional, keyword-only
        Biases added after each matrix, as in real models; none by default.
    mask, causal
        As in :func:`~selfattention.scaled_dot_product_attention`
        on the heads: the mask broadcasts to ``(..., h, L, L)``, so an
        ``(L, L)`` mask applies to every head and an ``(h, L, L)`` one (as
        :func:`~selfattention.alibi_bias`) gives each head its own.
    return_weights : bool, default False, keyword-only
        Also return every head's table of weights.

    Returns
    -------
    out : numpy.ndarray, shape (..., L, d_model)
        One new row per word.
    weights : numpy.ndarray, shape (..., h, L, L)
        Only if ``return_weights``: head ``i``'s weights are
        ``weights[..., i, :, :]``, each row summing to 1.

    Raises
    ------
    TypeError
        If an input is not numeric or ``h`` is not an integer.
    ValueError
        If ``x`` is not at least 2-D, a matrix is not
        ``(d_model, d_model)``, a bias is not ``(d_model,)``, ``h`` is not
        positive or does not divide ``d_model``, or as in
        :func:`~selfattention.scaled_dot_product_attention`.

    Examples
    --------
    Cat, dog and car with ``d_model = 4`` numbers each and ``h = 2`` heads,
    all matrices the identity. Head 0 looks with the first two numbers of
    every word (the plane of the book's three words), head 1 with the last
    two, where cat and car agree:

    >>> import numpy as np
    >>> x = np.array([[2., 0., 0., 2.], [1., 1., 2., 0.], [0., 2., 0., 2.]])
    >>> eye = np.eye(4)
    >>> out, weights = multi_head_attention(x, eye, eye, eye, eye, 2, return_weights=True)
    >>> out.shape, weights.shape          # (L, d_model), (h, L, L)
    ((3, 4), (2, 3, 3))
    >>> weights.round(3)
    array([[[0.768, 0.187, 0.045],
            [0.333, 0.333, 0.333],
            [0.045, 0.187, 0.768]],
    <BLANKLINE>
           [[0.486, 0.029, 0.486],
            [0.053, 0.894, 0.053],
            [0.486, 0.029, 0.486]]])

    With one head and identity matrices it is plain self-attention:

    >>> x3 = [[2., 0.], [1., 1.], [0., 2.]]
    >>> multi_head_attention(x3, np.eye(2), np.eye(2), np.eye(2), np.eye(2), 1).round(2)
    array([[1.72, 0.28],
           [1.  , 1.  ],
           [0.28, 1.72]])

    ``h`` must divide ``d_model``:

    >>> multi_head_attention(x, eye, eye, eye, eye, 3)
    Traceback (most recent call last):
    ...
    ValueError: h=3 heads must divide d_model=4 of x (3, 4): each head gets d_model / h numbers
    """
    x = as_float_array(x, "x")
    check_ndim(x, "x", 2, "(..., L, d_model)")
    d_model = x.shape[-1]
    h = _check_heads(h, d_model, f"x {x.shape}")
    w_q, w_k, w_v, w_o = (_matrix(w, name, d_model, x) for w, name in
                          ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v"), (w_o, "w_o")))
    b_q, b_k, b_v, b_o = (_bias(b, name, d_model) for b, name in
                          ((b_q, "b_q"), (b_k, "b_k"), (b_v, "b_v"), (b_o, "b_o")))

    q = x @ w_q + b_q  # (..., L, d_model)
    k = x @ w_k + b_k  # (..., L, d_model)
    v = x @ w_v + b_v  # (..., L, d_model)
    q_heads = split_heads(q, h)  # (..., h, L, d_head)
    k_heads = split_heads(k, h)  # (..., h, L, d_head)
    v_heads = split_heads(v, h)  # (..., h, L, d_head)
    heads, weights = scaled_dot_product_attention(  # each head on its own, scale 1/sqrt(d_head)
        q_heads, k_heads, v_heads, mask=mask, causal=causal, return_weights=True
    )  # (..., h, L, d_head), (..., h, L, L)
    joined = concat_heads(heads)  # (..., L, d_model)
    out = joined @ w_o + b_o  # (..., L, d_model) @ (d_model, d_model) -> (..., L, d_model)
    return (out, weights) if return_weights else out


def _check_heads(h, d_model: int, where: str) -> int:
    """``h`` as an int that divides ``d_model``, or a clear error."""
    if isinstance(h, bool) or not isinstance(h, numbers.Integral):
        raise TypeError(f"h (the number of heads) must be an integer, got {h!r}")
    h = int(h)
    if h < 1:
        raise ValueError(f"h (the number of heads) must be at least 1, got {h}")
    if d_model % h:
        raise ValueError(f"h={h} heads must divide d_model={d_model} of {where}: "
                         f"each head gets d_model / h numbers")
    return h


def _matrix(w, name: str, d_model: int, x: np.ndarray) -> np.ndarray:
    """A ``(d_model, d_model)`` matrix in the dtype of ``x``, or a clear error."""
    w = as_float_array(w, name)
    if w.shape != (d_model, d_model):
        raise ValueError(f"{name} must have shape (d_model, d_model) = ({d_model}, {d_model}) "
                         f"to match x {x.shape}, got {w.shape}")
    return w.astype(np.result_type(x, w), copy=False)


def _bias(b, name: str, d_model: int):
    """A ``(d_model,)`` bias, or 0.0 when there is none."""
    if b is None:
        return 0.0
    b = as_float_array(b, name)
    if b.shape != (d_model,):
        raise ValueError(f"{name} must have shape (d_model,) = ({d_model},), got {b.shape}")
    return b


__all__ = ["concat_heads", "multi_head_attention", "split_heads"]
