"""Checkers for the book's code exercises: they say what is right or wrong."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_float_array, check_positive_int
from .attention import attention_scores
from .examples import three_words


@dataclass(frozen=True)
class Feedback:
    """The verdict of a checker: ``ok`` and a message written for the reader.

    Examples
    --------
    >>> verdict = Feedback(False, "scores has shape (2, 2) but should be (3, 3).")
    >>> bool(verdict), str(verdict)
    (False, '✗ scores has shape (2, 2) but should be (3, 3).')
    """

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return ("✓ " if self.ok else "✗ ") + self.message

    def _repr_markdown_(self) -> str:
        return str(self)


def check_scores(scores, x=None) -> Feedback:
    """Check the reader's line ``scores = ...`` for the words ``x``.

    The right answer is ``x @ x.T / sqrt(d_k)``: one row and one column per
    word, scaled by the square root of the number of numbers per word.

    Parameters
    ----------
    scores : array_like
        What the reader computed.
    x : array_like, shape (n, d_k), optional
        The words; defaults to the running example (cat, dog, car).

    Returns
    -------
    Feedback
        ``ok`` is True if ``scores`` is right to 1e-9; the message says what
        is wrong otherwise (shape, a missing scale, a transposed product...).

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 2-D array of finite real numbers (a wrong
        ``scores`` is not an error: the feedback says what is wrong).

    Examples
    --------
    >>> import numpy as np
    >>> X = three_words()
    >>> print(check_scores(X @ X.T / np.sqrt(2)))
    ✓ Right: scores has shape (3, 3) and every value matches.
    >>> print(check_scores(X @ X.T))
    ✗ The values are too large by a factor of 1.41: did you forget to divide by sqrt(d_k) = sqrt(2)?
    >>> print(check_scores(X.T @ X / np.sqrt(2)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ scores has shape (2, 2) but should be (3, 3): one row and one column per word.
    Did you write X.T @ X instead of X @ X.T?
    """
    x = three_words() if x is None else as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n, d_k), got {x.shape}")
    n, d_k = x.shape
    expected = attention_scores(x, x)  # (n, n)
    try:
        got = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"scores should be a NumPy array of numbers, got {type(scores).__name__}.")
    if got.shape != expected.shape:
        tip = ""
        if got.shape == (d_k, d_k):
            tip = " Did you write X.T @ X instead of X @ X.T?"
        elif got.shape == x.shape:
            tip = " Did you write X * X (element by element) instead of X @ X.T?"
        return Feedback(False, f"scores has shape {got.shape} but should be {expected.shape}: "
                               f"one row and one column per word.{tip}")
    if not np.all(np.isfinite(got)):
        return Feedback(False, "scores contains NaN or inf.")
    if np.allclose(got, expected, rtol=0, atol=1e-9):
        return Feedback(True, f"Right: scores has shape {got.shape} and every value matches.")
    ratio = np.sqrt(d_k)
    if np.allclose(got, expected * ratio, atol=1e-9):
        return Feedback(False, f"The values are too large by a factor of {ratio:.2f}: "
                               f"did you forget to divide by sqrt(d_k) = sqrt({d_k})?")
    if np.allclose(got, expected / d_k * ratio, atol=1e-9):
        return Feedback(False, f"You divided by d_k = {d_k}; divide by its square root instead.")
    i, j = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
    return Feedback(False, f"Wrong value at row {i}, column {j}: {got[i, j]:.4g} "
                           f"where {expected[i, j]:.4g} was expected.")


def check_blend(output, word: int = 2, x=None) -> Feedback:
    """Check the reader's three moves (look, score, blend) for one word of ``x``.

    The right answer is the word's output: the scores of ``x[word]`` with
    every word, ``x @ x[word] / sqrt(d_k)``, turned into shares by softmax,
    then the blend ``shares @ x``.

    Parameters
    ----------
    output : array_like
        What the reader computed: one vector of ``d_k`` numbers.
    word : int, default 2
        The row of ``x`` that looks (2 is car in the running example).
    x : array_like, shape (n, d_k), optional
        The words; defaults to the running example (cat, dog, car).

    Returns
    -------
    Feedback
        ``ok`` is True if ``output`` is right to 1e-9; the message names the
        likely mistake otherwise (the shares instead of the blend, a plain
        average, the scores used as shares, no scaling, another word).

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 2-D array of finite real numbers or ``word`` is
        not one of its rows (a wrong ``output`` is not an error).

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import softmax
    >>> X = three_words()
    >>> car = X[2]
    >>> shares = softmax(X @ car / np.sqrt(2))
    >>> print(check_blend(shares @ X))
    ✓ Right: car's blend matches, to 1e-9.
    >>> print(check_blend(X.mean(axis=0)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ That is the plain average of the words: every word got the same share.
    Use the shares softmax gives to car's scores.
    """
    from .softmax import softmax

    names = dict(enumerate(("cat", "dog", "car"))) if x is None else {}
    x = three_words() if x is None else as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n, d_k), got {x.shape}")
    n, d_k = x.shape
    if isinstance(word, bool) or not isinstance(word, (int, np.integer)) or not 0 <= word < n:
        raise ValueError(f"word must be a row of x, from 0 to {n - 1}, got {word!r}")
    name = names.get(int(word), f"word {word}")
    scores = attention_scores(x[word:word + 1], x)[0]          # (n,)
    shares = softmax(scores)                                  # (n,)
    expected = shares @ x                                     # (d_k,)
    try:
        got = np.asarray(output, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"output should be a NumPy array of numbers, got {type(output).__name__}.")
    if got.shape == (n,) and n != d_k and np.allclose(got, shares, atol=1e-9):
        return Feedback(False, f"Those are {name}'s shares, one per word. Blend the words with them: "
                               "shares @ X.")
    if got.shape != expected.shape:
        return Feedback(False, f"output has shape {got.shape} but should be {expected.shape}: "
                               f"one vector of {d_k} numbers, like a word.")
    if not np.all(np.isfinite(got)):
        return Feedback(False, "output contains NaN or inf.")
    if np.allclose(got, expected, rtol=0, atol=1e-9):
        return Feedback(True, f"Right: {name}'s blend matches, to 1e-9.")
    if np.allclose(got, x.mean(axis=0), atol=1e-9):
        return Feedback(False, "That is the plain average of the words: every word got the same share. "
                               f"Use the shares softmax gives to {name}'s scores.")
    if np.allclose(got, x[word], atol=1e-9):
        return Feedback(False, f"That is {name} itself: the blend mixes in every word, by its share.")
    if np.allclose(got, scores @ x, atol=1e-9):
        return Feedback(False, "You blended with the scores. Turn them into shares with softmax first, "
                               "so that they are positive and add up to 1.")
    if np.allclose(got, softmax(scores * np.sqrt(d_k)) @ x, atol=1e-9):
        return Feedback(False, f"The blend is too sharp: did you forget to divide the scores by "
                               f"sqrt(d_k) = sqrt({d_k})?")
    for other in range(n):
        if other != word and np.allclose(got, softmax(attention_scores(x[other:other + 1], x)[0]) @ x,
                                         atol=1e-9):
            return Feedback(False, f"That is {names.get(other, f'word {other}')}'s blend: "
                                   f"score with {name}'s vector, row {word} of X.")
    return Feedback(False, f"Not yet: got [{', '.join(f'{v:.4g}' for v in got)}] where "
                           f"[{', '.join(f'{v:.4g}' for v in expected)}] was expected.")


def check_head_scores(scores, x=None, w_q=None, w_k=None) -> Feedback:
    """Check the reader's line ``scores = ...`` of one head: queries against keys.

    The right answer is ``Q @ K.T / sqrt(d_k)`` with ``Q = x @ w_q`` and
    ``K = x @ w_k``: row ``a``, column ``b`` is ``a``'s query · ``b``'s key.

    Parameters
    ----------
    scores : array_like
        What the reader computed.
    x : array_like, shape (n, d_model), optional
        The words; defaults to the running example (cat, dog, car).
    w_q, w_k : array_like, shape (d_model, d_k), optional
        Query and key matrices; default to ``W_Q = I`` and the "one-way
        keys" ``W_K = [[0, 0], [1, 0]]`` of the chapter.

    Returns
    -------
    Feedback
        ``ok`` is True if ``scores`` is right to 1e-9; otherwise the
        message names the likely slip: the shape, keys against queries
        (``K @ Q.T``), a query or key used twice, the raw words instead of
        the projections, or a missing scale.

    Raises
    ------
    TypeError, ValueError
        If ``x``, ``w_q`` or ``w_k`` is malformed (as in
        :func:`~selfattention.project_qkv`); a wrong ``scores`` is not
        an error.

    Examples
    --------
    >>> import numpy as np
    >>> X = three_words()
    >>> Q, K = X @ np.eye(2), X @ np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> print(check_head_scores(Q @ K.T / np.sqrt(2)))
    ✓ Right: scores has shape (3, 3) and every value matches.
    >>> print(check_head_scores(K @ Q.T / np.sqrt(2)))
    ✗ Rows and columns are swapped: you wrote K @ Q.T. Row a must hold a's query against every key: Q @ K.T.
    """
    from .head import project_qkv

    x = three_words() if x is None else as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n, d_model), got {x.shape}")
    d_model = x.shape[1]
    w_q = np.eye(d_model) if w_q is None else w_q
    w_k = [[0.0, 0.0], [1.0, 0.0]] if w_k is None else w_k  # "one-way keys": key = [y, 0]
    q, k, _ = project_qkv(x, w_q, w_k, w_q)  # (n, d_k) each
    d_k = q.shape[1]
    expected = q @ k.T / np.sqrt(d_k)  # (n, n)
    try:
        got = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"scores should be a NumPy array of numbers, got {type(scores).__name__}.")
    if got.shape != expected.shape:
        tip = " Did you write Q.T @ K instead of Q @ K.T?" if got.shape == (d_k, d_k) else ""
        return Feedback(False, f"scores has shape {got.shape} but should be {expected.shape}: "
                               f"one row per query, one column per key.{tip}")
    if not np.all(np.isfinite(got)):
        return Feedback(False, "scores contains NaN or inf.")

    def same(a):
        return np.allclose(got, a, rtol=0, atol=1e-9)

    if same(expected):
        return Feedback(True, f"Right: scores has shape {got.shape} and every value matches.")
    root = np.sqrt(d_k)
    slips = [
        (expected * root, f"The values are too large by a factor of {root:.2f}: "
                          f"did you forget to divide by sqrt(d_k) = sqrt({d_k})?"),
        (expected.T, "Rows and columns are swapped: you wrote K @ Q.T. Row a must hold a's query "
                     "against every key: Q @ K.T."),
        (q @ q.T / root, "You compared queries with queries (Q @ Q.T): a score is a query against a key."),
        (k @ k.T / root, "You compared keys with keys (K @ K.T): a score is a query against a key."),
        (x @ x.T / np.sqrt(d_model), "These are the scores of the raw words, X @ X.T: "
                                     "project them first, Q = X @ W_Q and K = X @ W_K."),
        (expected / root, f"You divided by d_k = {d_k}; divide by its square root instead."),
    ]
    for value, message in slips:
        if same(value):
            return Feedback(False, message)
    i, j = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
    return Feedback(False, f"Wrong value at row {i}, column {j}: {got[i, j]:.4g} "
                           f"where {expected[i, j]:.4g} was expected.")


def check_cross_weights(weights, x_q=None, x_kv=None, w_q=None, w_k=None) -> Feedback:
    """Check the reader's cross-attention weights: queries from ``x_q``, keys from ``x_kv``.

    The right answer is ``softmax(Q @ K.T / sqrt(d_k))`` with ``Q = x_q @ w_q``
    and ``K = x_kv @ w_k``, softmax along each row: shape ``(L_q, L_kv)``.

    Parameters
    ----------
    weights : array_like
        What the reader computed.
    x_q : array_like, shape (L_q, d_q), optional
        The sequence that looks; defaults to the decoder of
        :func:`~selfattention.cat_is_sleeping` (die, Katze, schläft).
    x_kv : array_like, shape (L_kv, d_kv), optional
        The sequence looked at; defaults to its encoder (the, cat, is, sleeping).
    w_q : array_like, shape (d_q, d_k), optional
        Query matrix; defaults to the example's.
    w_k : array_like, shape (d_kv, d_k), optional
        Key matrix; defaults to the example's.

    Returns
    -------
    Feedback
        ``ok`` is True if ``weights`` is right to 1e-9; otherwise the message
        names the likely slip: the table transposed (``K @ Q.T``), one
        sequence used for both sides, softmax down the columns, the scores
        instead of the weights, no query matrix, or a missing scale.

    Raises
    ------
    TypeError, ValueError
        If ``x_q``, ``x_kv``, ``w_q`` or ``w_k`` is malformed (as in
        :func:`~selfattention.cross_attention`); a wrong ``weights``
        is not an error.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import softmax
    >>> from selfattention.cross import cat_is_sleeping
    >>> x_q, x_kv, w_q, w_k, _ = cat_is_sleeping()
    >>> Q, K = x_q @ w_q, x_kv @ w_k
    >>> print(check_cross_weights(softmax(Q @ K.T / np.sqrt(2))))
    ✓ Right: weights has shape (3, 4), one row per query and one column per key, and every value matches.
    >>> print(check_cross_weights(softmax(K @ Q.T / np.sqrt(2))))  # doctest: +NORMALIZE_WHITESPACE
    ✗ weights has shape (4, 3) but should be (3, 4): one row per word of the sequence that looks
    (3), one column per word it reads (4). Did you write K @ Q.T instead of Q @ K.T?
    """
    from .cross import cat_is_sleeping, cross_attention
    from .softmax import softmax

    ex_q, ex_kv, ex_wq, ex_wk, _ = cat_is_sleeping()
    x_q = ex_q if x_q is None else as_float_array(x_q, "x_q")
    x_kv = ex_kv if x_kv is None else as_float_array(x_kv, "x_kv")
    w_q = ex_wq if w_q is None else as_float_array(w_q, "w_q")
    w_k = ex_wk if w_k is None else as_float_array(w_k, "w_k")
    for name, x in (("x_q", x_q), ("x_kv", x_kv)):
        if x.ndim != 2:
            raise ValueError(f"{name} must have shape (L, d), one row per word; got {x.shape}")
    _, expected = cross_attention(x_q, x_kv, w_q, w_k, w_k, return_weights=True)  # (L_q, L_kv)
    L_q, L_kv = expected.shape
    q, k = x_q @ w_q, x_kv @ w_k  # (L_q, d_k), (L_kv, d_k)
    root = np.sqrt(q.shape[1])
    try:
        got = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"weights should be a NumPy array of numbers, got {type(weights).__name__}.")
    if got.shape != expected.shape:
        tip = ""
        if got.shape == (L_kv, L_q):
            tip = " Did you write K @ Q.T instead of Q @ K.T?"
        elif got.shape == (L_q, L_q):
            tip = " That is the sequence that looks attending to itself: the keys come from x_kv."
        elif got.shape == (L_kv, L_kv):
            tip = " That is the sequence looked at attending to itself: the queries come from x_q."
        return Feedback(False, f"weights has shape {got.shape} but should be {expected.shape}: one row per "
                               f"word of the sequence that looks ({L_q}), one column per word it reads "
                               f"({L_kv}).{tip}")
    if not np.all(np.isfinite(got)):
        return Feedback(False, "weights contains NaN or inf.")

    def same(a):
        return np.allclose(got, a, rtol=0, atol=1e-9)

    if same(expected):
        return Feedback(True, f"Right: weights has shape {got.shape}, one row per query and one column "
                              f"per key, and every value matches.")
    scores = q @ k.T / root  # (L_q, L_kv)
    slips = [
        (softmax(scores, axis=0), "Each column adds up to 1, not each row: apply softmax along the rows "
                                  "(axis=-1). Each word that looks shares out its own attention."),
        (scores, "These are the scores: turn each row into weights with softmax."),
        (softmax(scores * root), f"The weights are too sharp: did you forget to divide the scores by "
                                 f"sqrt(d_k) = sqrt({q.shape[1]})?"),
        (softmax(x_q @ k.T / root) if x_q.shape[1] == k.shape[1] else None,
         "You used x_q itself as the queries: project it first, Q = x_q @ W_Q."),
    ]
    for value, message in slips:
        if value is not None and same(value):
            return Feedback(False, message)
    i, j = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
    return Feedback(False, f"Wrong value at row {i}, column {j}: {got[i, j]:.4g} "
                           f"where {expected[i, j]:.4g} was expected.")


def scaling_example(d_k: int = 64, n_keys: int = 4, seed: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """The query and keys of the exercise "scale a row of scores" (chapter "Why divide by √d_k").

    Parameters
    ----------
    d_k : int, default 64
        Numbers per query and key.
    n_keys : int, default 4
        How many keys the query looks at.
    seed : int, default 6
        Seed of the random generator: the same seed gives the same vectors.

    Returns
    -------
    q : numpy.ndarray, shape (d_k,)
        One query, with standard normal entries.
    k : numpy.ndarray, shape (n_keys, d_k)
        One key per row, with standard normal entries.

    Raises
    ------
    TypeError, ValueError
        If a size or the seed is not a positive integer (the seed may be 0).

    Examples
    --------
    >>> q, K = scaling_example()
    >>> q.shape, K.shape
    ((64,), (4, 64))
    """
    d_k = check_positive_int(d_k, "d_k")
    n_keys = check_positive_int(n_keys, "n_keys")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int >= 0, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed}")
    rng = np.random.default_rng(int(seed))
    q = rng.standard_normal(d_k)             # (d_k,)
    k = rng.standard_normal((n_keys, d_k))   # (n_keys, d_k)
    return q, k


def check_scaled_row(row, q=None, k=None) -> Feedback:
    """Check the reader's row of scaled scores: one query against every key.

    The right answer is ``k @ q / sqrt(d_k)``: one score per key, each the
    dot product divided by the square root of the number of numbers per
    query, ``d_k``.

    Parameters
    ----------
    row : array_like
        What the reader computed.
    q : array_like, shape (d_k,), optional
        The query; with ``k``, defaults to :func:`scaling_example`.
    k : array_like, shape (n, d_k), optional
        The keys, one per row.

    Returns
    -------
    Feedback
        ``ok`` is True if ``row`` is right to 1e-9; otherwise the message
        names the likely slip: no division, a division by ``d_k``, a
        multiplication by ``sqrt(d_k)``, a division by the square root of
        the number of keys, the weights instead of the scores, or the shape.

    Raises
    ------
    TypeError, ValueError
        If ``q`` or ``k`` is malformed (only one of them given, wrong
        shapes, not finite real numbers); a wrong ``row`` is not an error.

    Examples
    --------
    >>> import numpy as np
    >>> q, K = scaling_example()
    >>> print(check_scaled_row(K @ q / np.sqrt(64)))
    ✓ Right: one scaled score per key, and every value matches.
    >>> print(check_scaled_row(K @ q))
    ✗ The scores are 8 times too large: you forgot to divide by sqrt(d_k) = sqrt(64) = 8.
    """
    from .softmax import softmax

    if (q is None) != (k is None):
        raise ValueError("give both q and k, or neither (then the exercise's own are used)")
    if q is None:
        q, k = scaling_example()
    q = as_float_array(q, "q")
    k = as_float_array(k, "k")
    if q.ndim != 1:
        raise ValueError(f"q must be one query, shape (d_k,), got {q.shape}")
    if k.ndim != 2 or k.shape[1] != q.shape[0]:
        raise ValueError(f"k must have shape (n, d_k) with d_k = {q.shape[0]} like q, got {k.shape}")
    n, d_k = k.shape
    root = np.sqrt(d_k)
    raw = k @ q                      # (n,)
    expected = raw / root            # (n,)
    try:
        got = np.asarray(row, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"row should be a NumPy array of numbers, got {type(row).__name__}.")
    if got.shape != expected.shape:
        return Feedback(False, f"row has shape {got.shape} but should be {expected.shape}: "
                               "one score per key, k @ q.")
    if not np.all(np.isfinite(got)):
        return Feedback(False, "row contains NaN or inf.")

    def same(a):
        return np.allclose(got, a, rtol=0, atol=1e-9)

    if same(expected):
        return Feedback(True, "Right: one scaled score per key, and every value matches.")
    slips = [
        (raw, f"The scores are {root:g} times too large: you forgot to divide by "
              f"sqrt(d_k) = sqrt({d_k}) = {root:g}."),
        (raw / d_k, f"You divided by d_k = {d_k}; divide by its square root, {root:g}. "
                    f"The scores are now {root:g} times too small."),
        (raw * root, f"You multiplied by sqrt(d_k) = {root:g}; divide by it instead."),
        (raw / np.sqrt(n), f"You divided by the square root of the number of keys, {n}; "
                           f"divide by the square root of d_k = {d_k}, the numbers per key."),
        (softmax(expected), "Those are the weights, softmax of the scaled scores: the exercise asks "
                            "for the scores before softmax."),
        (softmax(raw), "Those are the weights of the unscaled scores: divide by sqrt(d_k) and stop "
                       "before softmax."),
    ]
    for value, message in slips:
        if same(value):
            return Feedback(False, message)
    i = int(np.argmax(np.abs(got - expected)))
    return Feedback(False, f"Wrong value at position {i}: {got[i]:.4g} where {expected[i]:.4g} was expected.")


# --- what-comes-next: splitting queries into heads --------------------------------------------


def check_split_heads(q_heads, q=None, h: int = 2) -> Feedback:
    """Check the reader's line ``q_heads = ...``: the queries cut into ``h`` heads.

    The right answer gives head ``i`` the columns ``i * d_head`` to
    ``(i + 1) * d_head`` of every row, with ``d_head = d_model / h``, stacked
    head first: shape ``(h, L, d_head)``. In NumPy,
    ``q.reshape(L, h, d_head).transpose(1, 0, 2)``.

    Parameters
    ----------
    q_heads : array_like
        What the reader computed.
    q : array_like, shape (L, d_model), optional
        The queries; defaults to ``np.arange(12.0).reshape(3, 4)``: 3 words,
        ``d_model = 4``, whose numbers say where they came from.
    h : int, default 2
        Number of heads; must divide ``d_model``.

    Returns
    -------
    Feedback
        ``ok`` is True if ``q_heads`` is exactly right; the message names the
        likely mistake otherwise (heads last, a reshape without the
        transpose, columns dealt out in turn, the rows cut instead of the
        columns).

    Raises
    ------
    TypeError, ValueError
        If ``q`` is not a 2-D array of finite real numbers, or ``h`` does not
        divide its width (a wrong ``q_heads`` is not an error).

    Examples
    --------
    >>> import numpy as np
    >>> Q = np.arange(12.0).reshape(3, 4)
    >>> print(check_split_heads(Q.reshape(3, 2, 2).transpose(1, 0, 2)))
    ✓ Right: q_heads has shape (2, 3, 2) and head 1 holds columns 2 to 3 of every word.
    >>> print(check_split_heads(Q.reshape(2, 3, 2)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ The shape (2, 3, 2) is right but the numbers are not: a plain reshape to (h, L, d_head) cuts
    across the words. Reshape to (L, h, d_head) first, then move the heads to the front.
    """
    from .multihead import split_heads

    q = np.arange(12.0).reshape(3, 4) if q is None else as_float_array(q, "q")
    if q.ndim != 2:
        raise ValueError(f"q must have shape (L, d_model), got {q.shape}")
    expected = split_heads(q, h)  # (h, L, d_head); checks that h divides d_model
    L, d_model = q.shape
    d_head = d_model // h
    try:
        got = np.asarray(q_heads, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"q_heads should be a NumPy array of numbers, got {type(q_heads).__name__}.")
    if got.shape == q.shape and np.array_equal(got, q):
        return Feedback(False, f"That is Q itself, shape {q.shape}: cut each row into h = {h} slices of "
                               f"d_head = {d_head} numbers.")
    if got.shape == (L, h, d_head) and np.array_equal(got, q.reshape(L, h, d_head)):
        return Feedback(False, f"Right numbers, but the heads are in the middle: shape {got.shape}. "
                               f"Move them to the front, to {expected.shape}, with .transpose(1, 0, 2).")
    if got.shape != expected.shape:
        return Feedback(False, f"q_heads has shape {got.shape} but should be {expected.shape}: "
                               "(h, L, d_head), one block per head.")
    if np.array_equal(got, expected):
        return Feedback(True, f"Right: q_heads has shape {got.shape} and head {h - 1} holds columns "
                              f"{(h - 1) * d_head} to {h * d_head - 1} of every word.")
    if np.array_equal(got, q.reshape(h, L, d_head)):
        return Feedback(False, f"The shape {got.shape} is right but the numbers are not: a plain reshape "
                               "to (h, L, d_head) cuts across the words. Reshape to (L, h, d_head) first, "
                               "then move the heads to the front.")
    if np.array_equal(got, q.reshape(L, d_head, h).transpose(2, 0, 1)):
        return Feedback(False, "The columns were dealt out in turn (head 0 got columns 0, h, 2h, ...). "
                               "Each head takes a block of d_head columns side by side.")
    for i in range(h):
        if not np.array_equal(got[i], expected[i]):
            return Feedback(False, f"Head {i} is wrong: it should hold columns {i * d_head} to "
                                   f"{(i + 1) * d_head - 1} of every word.")
    return Feedback(False, "Not yet: compare your array with the expected one head by head.")


def check_causal_mask(mask, n: int = 4) -> Feedback:
    """Check the reader's causal mask for ``n`` tokens (chapter "Causal masking").

    The right answer is a boolean ``(n, n)`` array, ``True`` on and below
    the diagonal: token ``i`` may read tokens ``0 .. i``, itself included,
    as :func:`~selfattention.attention.causal_mask` gives.

    Parameters
    ----------
    mask : array_like
        What the reader built.
    n : int, default 4
        The number of tokens.

    Returns
    -------
    Feedback
        ``ok`` is True if ``mask`` is right; otherwise the message names the
        likely slip: the shape, 0/1 numbers instead of booleans, the upper
        triangle (the future), a missing diagonal, or ``True`` meaning
        "blocked".

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not a positive integer (a wrong ``mask`` is not an
        error: the feedback says what is wrong).

    Examples
    --------
    >>> import numpy as np
    >>> print(check_causal_mask(np.tril(np.ones((4, 4), dtype=bool))))
    ✓ Right: token i reads tokens 0 to i, itself included.
    >>> print(check_causal_mask(np.tril(np.ones((4, 4), dtype=bool), k=-1)))
    ✗ The diagonal is blocked: a token may read itself (use k=0, not k=-1).
    >>> print(check_causal_mask(np.tril(np.ones((4, 4)))))  # doctest: +NORMALIZE_WHITESPACE
    ✗ The pattern is right but the mask holds float64 numbers: make it boolean (dtype=bool).
    A float mask would be added to the scores instead of blocking them.
    """
    from ._validate import check_positive_int
    from .attention import causal_mask

    n = check_positive_int(n, "n")
    expected = causal_mask(n)  # (n, n)
    m = np.asarray(mask)
    if m.dtype == object or not (m.dtype == np.bool_ or np.issubdtype(m.dtype, np.number)):
        return Feedback(False, f"mask should be a NumPy array of booleans, got {type(mask).__name__}.")
    if m.shape != expected.shape:
        return Feedback(False, f"mask has shape {m.shape} but should be {expected.shape}: "
                               f"one row per query, one column per key.")
    if m.dtype != np.bool_:
        if np.array_equal(m, expected):
            why = ("A float mask would be added to the scores instead of blocking them." if m.dtype.kind == "f"
                   else "The package refuses an integer mask, which would be added instead of blocking.")
            return Feedback(False, f"The pattern is right but the mask holds {m.dtype} numbers: make it "
                                   f"boolean (dtype=bool). {why}")
        return Feedback(False, f"mask holds {m.dtype} numbers: build it with dtype=bool (True = may read).")
    if np.array_equal(m, expected):
        return Feedback(True, "Right: token i reads tokens 0 to i, itself included.")
    slips = [
        (np.tri(n, k=-1, dtype=bool), "The diagonal is blocked: a token may read itself (use k=0, not k=-1)."),
        (expected.T, "That is the upper triangle: token 0 would read every later token, the future. "
                     "Keep the lower triangle (np.tril)."),
        (~expected, "True and False are swapped: in the package True means \"may read\", not \"blocked\"."),
    ]
    for value, message in slips:
        if np.array_equal(m, value):
            return Feedback(False, message)
    i, j = np.argwhere(m != expected)[0]
    verb = "may not" if m[i, j] else "may"
    return Feedback(False, f"Row {i}, column {j} is wrong: token {i} {verb} read token {j}.")


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
    """The typical wrong heads on one case: a list of ``(output, message)``.

    A slip whose shapes do not fit on this case is left out (it raises an
    error there instead).
    """
    from .softmax import softmax

    q, k, v = x @ w_q, x @ w_k, x @ w_v                  # (L, d_k), (L, d_k), (L, d_v)
    L, d_model = x.shape
    d_k = q.shape[1]
    root = np.sqrt(d_k)
    scores = q @ k.T / root                              # (L, L)
    weights = softmax(scores)                            # (L, L)
    slips = [
        (lambda: softmax(q @ k / root) @ v,
         "You wrote Q @ K: K needs a transpose. Q @ K.T is (L, d_k) @ (d_k, L) -> (L, L), one row per "
         "word that looks, one column per word it looks at. Q @ K only runs when L = d_k, and then it "
         "multiplies the wrong numbers."),
        (lambda: softmax(q * k.T / root) @ v,
         "You wrote Q * K.T: * multiplies element by element. A score is a dot product of a query and "
         "a key: use the matrix product, Q @ K.T."),
        (lambda: softmax(q @ k.T) @ v,
         f"The weights are too sharp: did you forget to divide the scores by sqrt(d_k) = sqrt({d_k})?"),
        (lambda: softmax(q @ k.T / d_k) @ v,
         f"You divided the scores by d_k = {d_k}; divide by its square root, sqrt({d_k})."),
        (lambda: softmax(q @ k.T / np.sqrt(d_model)) @ v,
         f"You divided by sqrt({d_model}), the square root of d_model (the size of a word). Divide by "
         f"sqrt(d_k) = sqrt({d_k}), the size of a query: d_k = Q.shape[-1]."),
        (lambda: softmax(scores, axis=0) @ v,
         "Softmax ran down the columns (axis=0). Each row of weights must add up to 1: the word that "
         "looks shares out its attention. Use softmax(scores, axis=-1)."),
        (lambda: softmax(scores.ravel()).reshape(scores.shape) @ v,
         "Softmax ran over the whole table at once. Run it along each row, softmax(scores, axis=-1), "
         "so that every row of weights adds up to 1."),
        (lambda: weights.T @ v,
         "You used the weights transposed (weights.T @ V). Row i of the weights is what word i takes "
         "from each word, so the output is weights @ V."),
        (lambda: softmax(k @ q.T / root) @ v,
         "Rows and columns of the scores are swapped: you wrote K @ Q.T. Row i must hold word i's "
         "query against every key: Q @ K.T."),
        (lambda: scores @ v,
         "You mixed the values with the scores. Turn them into weights with softmax first, so that "
         "each row is positive and adds up to 1."),
    ]
    out = []
    with np.errstate(all="ignore"):
        for make, message in slips:
            try:
                out.append((make(), message))
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
        ``ok`` is True if ``head`` gives the right output (to 1e-9) on both
        heads; otherwise the message names the likely mistake: ``Q @ K``,
        ``Q * K.T``, a missing or wrong scale, softmax over the wrong axis,
        the weights transposed, ``K @ Q.T``, no softmax, the words instead
        of the values, the weights instead of the output, or an error.

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
    from .head import attention_head

    if not callable(head):
        return Feedback(False, "check_head takes your function itself, not its result: write "
                               "check_head(head), without brackets after head.")
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
            return Feedback(False, f"head returned a tuple of {len(got)} things; return only the output, "
                                   "weights @ V.")
        try:
            got = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            return Feedback(False, f"head should return a NumPy array of numbers, got {type(got).__name__}.")
        if got.shape != expected.shape:
            tip = ""
            if got.shape == (L, L):
                tip = " That is the shape of the weights: multiply them by V."
            elif got.shape == (L, d_model):
                tip = " That is the shape of X: mix the values V = X @ W_V, not the words."
            elif got.shape == (d_v, L):
                tip = " Rows and columns are swapped: the output has one row per word."
            return Feedback(False, f"With {sizes}, head returned shape {got.shape} but the output has "
                                   f"shape (L, d_v) = {expected.shape}.{tip}")
        if not np.all(np.isfinite(got)):
            return Feedback(False, f"With {sizes}, head returned NaN or inf.")
        if np.allclose(got, expected, rtol=0, atol=1e-9):
            continue
        for value, message in _head_slips(x, w_q, w_k, w_v):
            if value.shape == got.shape and np.allclose(got, value, rtol=0, atol=1e-9):
                return Feedback(False, message)
        if errors:  # no known slip runs here and fails on the other head: report the error
            break
        i, j = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
        return Feedback(False, f"With {sizes}, output[{i}, {j}] is {got[i, j]:.4g} where {expected[i, j]:.4g} "
                               "was expected.")
    if errors:
        sizes, err = errors[0]
        text = _first_line(err)
        tip = ""
        if "broadcast" in text:
            tip = " An element-by-element product (*) of (L, d_k) and (d_k, L) fails: use @ for the scores."
        elif "matmul" in text or "mismatch" in text or "aligned" in text:
            tip = (" The inner sizes of a matrix product must match: Q @ K.T is (L, d_k) @ (d_k, L); "
                   "Q @ K is (L, d_k) @ (L, d_k).")
        return Feedback(False, f"With {sizes}, head raised {text}.{tip}")
    return Feedback(True, "Right: your head gives the right output, shape (L, d_v), on both test heads.")
