"""Checker of the reader's function ``head(X, W_Q, W_K, W_V)`` (book/one-head-in-code.md)."""

from __future__ import annotations

import numpy as np

from ..head import attention_head
from ..softmax import softmax
from ._compare import EPS64, Diagnoses, Feedback, close, float32_sized, precision, two_numbers, worst

HEAD = Diagnoses("check_head", "Right: your head gives the right output, shape (L, d_v), on both test heads.", {
    "not-callable": "check_head takes your function itself, not its result: write check_head(head), without "
                    "brackets after head.",
    "tuple": "head returned a tuple of {n} things; return only the output, weights @ V.",
    "not-numbers": "head should return a NumPy array of numbers, got {type}.",
    "shape": "With {sizes}, head returned shape {got} but the output has shape (L, d_v) = {expected}.",
    "weights-shape": "With {sizes}, head returned shape {got} but the output has shape (L, d_v) = {expected}. "
                     "That is the shape of the weights: multiply them by V.",
    "X-shape": "With {sizes}, head returned shape {got} but the output has shape (L, d_v) = {expected}. "
               "That is the shape of X: mix the values V = X @ W_V, not the words.",
    "transposed-shape": "With {sizes}, head returned shape {got} but the output has shape (L, d_v) = "
                        "{expected}. Rows and columns are swapped: the output has one row per word.",
    "not-finite": "With {sizes}, head returned NaN or inf.",
    "Q@K": "You wrote Q @ K: K needs a transpose. Q @ K.T is (L, d_k) @ (d_k, L) -> (L, L), one row per word "
           "that looks, one column per word it looks at. Q @ K only runs when L = d_k, and then it multiplies "
           "the wrong numbers.",
    "Q*K.T": "You wrote Q * K.T: * multiplies element by element. A score is a dot product of a query and a "
             "key: use the matrix product, Q @ K.T.",
    "no-scale": "The weights are too sharp: did you forget to divide the scores by sqrt(d_k) = sqrt({d_k})?",
    "by-d_k": "You divided the scores by d_k = {d_k}; divide by its square root, sqrt({d_k}).",
    "by-sqrt-d_model": "You divided by sqrt({d_model}), the square root of d_model (the length of a word). "
                       "Divide by sqrt(d_k) = sqrt({d_k}), the length of a query: d_k = Q.shape[-1].",
    "by-sqrt-L": "You divided by sqrt({L}), the square root of the number of words L. Divide by sqrt(d_k) = "
                 "sqrt({d_k}), the length of a query: d_k = Q.shape[-1], not X.shape[0].",
    "axis-0": "Softmax ran down the columns (axis=0). Each row of weights must add up to 1: the word that "
              "looks shares out its attention. Use softmax(scores, axis=-1).",
    "whole-table": "Softmax ran over the whole table at once. Run it along each row, softmax(scores, axis=-1), "
                   "so that every row of weights adds up to 1.",
    "weights.T": "You used the weights transposed (weights.T @ V). Row i of the weights is what word i takes "
                 "from each word, so the output is weights @ V.",
    "K@Q.T": "Rows and columns of the scores are swapped: you wrote K @ Q.T. Row i must hold word i's query "
             "against every key: Q @ K.T.",
    "no-softmax": "You mixed the values with the scores. Turn them into weights with softmax first, so that "
                  "each row is positive and adds up to 1.",
    "raised": "With {sizes}, head raised {error}.",
    "raised-broadcast": "With {sizes}, head raised {error}. An element-by-element product (*) of (L, d_k) and "
                        "(d_k, L) fails: use @ for the scores.",
    "raised-matmul": "With {sizes}, head raised {error}. The inner sizes of a matrix product must match: "
                     "Q @ K.T is (L, d_k) @ (d_k, L); Q @ K is (L, d_k) @ (L, d_k).",
    "float32-inside": "With {sizes}, head returned float64 numbers that are right only to float32's "
                      "precision: part of it probably ran in float32 (a float32 array divided by np.sqrt(d_k), "
                      "a float64, gives float64). Keep every step in one dtype: all float64, or all float32.",
    "value": "With {sizes}, output[{i}, {j}] is {got} where {expected} was expected.",
}, generic=())


def _head_cases():
    """Two heads the checker runs: one where every size differs, one where L = d_k.

    Returns a list of ``(x, w_q, w_k, w_v)``. In the first, L = 4,
    d_model = 5, d_k = 3 and d_v = 2, so a slip with the shapes raises an
    error or gives a wrong shape. In the second, L = d_k = 3 (d_model = 4,
    d_v = 2), so ``Q @ K`` and ``Q * K.T`` run and give wrong numbers.
    """
    rng = np.random.default_rng(7)
    cases = []
    for L, d_model, d_k, d_v in ((4, 5, 3, 2), (3, 4, 3, 2)):   # every size differs; L = d_k
        x = rng.normal(size=(L, d_model)).round(1)           # (L, d_model)
        w_q = rng.normal(size=(d_model, d_k)).round(1)       # (d_model, d_k)
        w_k = rng.normal(size=(d_model, d_k)).round(1)       # (d_model, d_k)
        w_v = rng.normal(size=(d_model, d_v)).round(1)       # (d_model, d_v)
        cases.append((x, w_q, w_k, w_v))
    return cases


def _head_slips(x, w_q, w_k, w_v):
    """The typical wrong heads on one case: a list of ``(output, id, fields)``.

    A slip whose shapes do not fit on this case is left out (it raises an
    error there instead).
    """
    q, k, v = x @ w_q, x @ w_k, x @ w_v                  # (L, d_k), (L, d_k), (L, d_v)
    L, d_model = x.shape
    d_k = q.shape[1]
    root = np.sqrt(d_k)
    scores = q @ k.T / root                              # (L, L)
    weights = softmax(scores)                            # (L, L)
    sizes = {"d_k": d_k, "d_model": d_model, "L": L}
    slips = [
        (lambda: softmax(q @ k / root) @ v, "Q@K"),
        (lambda: softmax(q * k.T / root) @ v, "Q*K.T"),
        (lambda: softmax(q @ k.T) @ v, "no-scale"),
        (lambda: softmax(q @ k.T / d_k) @ v, "by-d_k"),
        (lambda: softmax(q @ k.T / np.sqrt(d_model)) @ v, "by-sqrt-d_model"),
        (lambda: softmax(q @ k.T / np.sqrt(L)) @ v, "by-sqrt-L"),
        (lambda: softmax(scores, axis=0) @ v, "axis-0"),
        (lambda: softmax(scores.ravel()).reshape(scores.shape) @ v, "whole-table"),
        (lambda: weights.T @ v, "weights.T"),
        (lambda: softmax(k @ q.T / root) @ v, "K@Q.T"),
        (lambda: scores @ v, "no-softmax"),
    ]
    out = []
    with np.errstate(all="ignore"):
        for make, slip in slips:
            try:
                out.append((make(), slip, sizes))
            except ValueError:  # the shapes of this slip do not fit this case
                continue
    return out


def _first_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}".rstrip(": ")


def check_head(head) -> Feedback:
    """Check the reader's function ``head(X, W_Q, W_K, W_V)``: one attention head.

    The right answer returns ``softmax(Q @ K.T / sqrt(d_k)) @ V``, with
    ``Q = X @ W_Q``, ``K = X @ W_K``, ``V = X @ W_V`` and softmax along each
    row. The checker calls ``head`` on two small heads: one where every size
    differs (L = 4 words, d_model = 5, d_k = 3, d_v = 2), and one where
    L = d_k = 3, on which a missing transpose runs without an error.

    Parameters
    ----------
    head : callable
        The reader's function: takes ``X`` (L, d_model), ``W_Q`` and ``W_K``
        (d_model, d_k), ``W_V`` (d_model, d_v), and returns the output,
        shape (L, d_v).

    Returns
    -------
    Feedback
        ``ok`` is True if ``head`` gives the right output on both heads;
        otherwise the message names the likely mistake: ``Q @ K``, ``Q * K.T``, a
        missing or wrong scale (``d_k``, ``sqrt(d_model)``, ``sqrt(L)``), softmax
        over the wrong axis, the weights transposed, ``K @ Q.T``, no softmax, the
        words instead of the values, the weights instead of the output, float64
        numbers right only to float32's precision (float32 inside), or an
        error. A value counts as right within 100 eps (abs(expected) + the
        largest abs(expected)), eps being the machine epsilon of the answer:
        float32's for float32 arrays (as torch's .numpy() gives), float64's
        otherwise; a float16 answer is judged with float16's rounding (10 of its
        eps), and an expected inf only by the same inf.

    Notes
    -----
    It never raises: a wrong ``head``, even one that raises, gets feedback,
    not an error.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import softmax
    >>> def head(X, W_Q, W_K, W_V):
    ...     Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    ...     weights = softmax(Q @ K.T / np.sqrt(Q.shape[-1]), axis=-1)
    ...     return weights @ V
    >>> print(check_head(head))
    ✓ Right: your head gives the right output, shape (L, d_v), on both test heads.
    >>> def no_scale(X, W_Q, W_K, W_V):
    ...     Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    ...     return softmax(Q @ K.T) @ V
    >>> print(check_head(no_scale))
    ✗ The weights are too sharp: did you forget to divide the scores by sqrt(d_k) = sqrt(3)?
    """
    if not callable(head):
        return HEAD.wrong("not-callable")
    errors = []
    for x, w_q, w_k, w_v in _head_cases():
        L, d_model = x.shape
        d_k, d_v = w_q.shape[1], w_v.shape[1]
        sizes = f"L = {L}, d_model = {d_model}, d_k = {d_k}, d_v = {d_v}"
        expected = attention_head(x, w_q, w_k, w_v)  # (L, d_v)
        try:
            with np.errstate(all="ignore"):
                got = head(x.copy(), w_q.copy(), w_k.copy(), w_v.copy())
        except Exception as err:  # noqa: BLE001 - any error of the reader's code is feedback
            errors.append((sizes, err))
            continue
        if isinstance(got, tuple):
            return HEAD.wrong("tuple", n=len(got))
        raw, got = got, np.asarray(got)
        if got.dtype == object or got.dtype.kind not in "biuf":
            return HEAD.wrong("not-numbers", type=type(raw).__name__)
        eps = precision(got)
        got = got.astype(np.float64)
        if got.shape != expected.shape:
            tip = {(L, L): "weights-shape", (L, d_model): "X-shape", (d_v, L): "transposed-shape"}
            return HEAD.wrong(tip.get(got.shape, "shape"), sizes=sizes, got=got.shape, expected=expected.shape)
        if not np.all(np.isfinite(got)):
            return HEAD.wrong("not-finite", sizes=sizes)
        if close(got, expected, eps):
            continue
        for value, slip, values in _head_slips(x, w_q, w_k, w_v):
            if close(got, value, eps):
                return HEAD.wrong(slip, **values)
        if errors:  # no known slip runs here and fails on the other head: report the error
            break
        if eps == EPS64 and float32_sized(got, expected):
            return HEAD.wrong("float32-inside", sizes=sizes)
        i, j = worst(got, expected, eps)
        shown, wanted = two_numbers(got[i, j], expected[i, j])
        return HEAD.wrong("value", sizes=sizes, i=i, j=j, got=shown, expected=wanted)
    if errors:
        sizes, err = errors[0]
        text = _first_line(err)
        slip = "raised"
        if "broadcast" in text:
            slip = "raised-broadcast"
        elif "matmul" in text or "mismatch" in text or "aligned" in text:
            slip = "raised-matmul"
        return HEAD.wrong(slip, sizes=sizes, error=text)
    return HEAD.right()
