"""Why attention divides its scores by sqrt(d_k): spread, temperature and saturation.

* :func:`~selfattention.dot_product_std` measures the spread of ``q · k`` for random
  ``q`` and ``k`` whose entries have mean 0 and standard deviation 1: about
  ``sqrt(d_k)``, and about 1 after dividing by ``sqrt(d_k)``.
* :func:`~selfattention.softmax_with_temperature` is ``softmax(scores / T)``: a large
  ``T`` softens the weights, a small one sharpens them. Dividing by
  ``sqrt(d_k)`` is a temperature of ``sqrt(d_k)``.
* :func:`~selfattention.softmax_jacobian` is how much each weight moves when each score
  moves; it vanishes when softmax is nearly one-hot.
* :func:`~selfattention.saturation` measures, for growing ``d_k``, the largest weight of
  a row, the size of its Jacobian (the gradient with respect to the scores), the
  gradient with respect to the query, and how many keys get almost no weight, with or
  without the division.
* :func:`~selfattention.scaling_example` is the query and keys of the
  chapter's code exercise, checked by :func:`~selfattention.check_scaled_row`.

Random numbers come from a seeded :class:`numpy.random.Generator`: the same
seed gives the same measurement.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._validate import check_flag, check_positive_int
from .softmax import softmax

#: Random numbers drawn per chunk, so that a measurement never holds more than this many at once.
_CHUNK = 1_000_000


def _generator(rng) -> np.random.Generator:
    """``rng`` as a Generator: an int seeds a new one; a Generator is used as it is."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, bool) or not isinstance(rng, numbers.Integral):
        raise TypeError(f"rng must be a numpy.random.Generator or a seed (an int >= 0), got {rng!r}")
    if rng < 0:
        raise ValueError(f"rng: a seed must be >= 0, got {rng}")
    return np.random.default_rng(int(rng))


def _random_dots(d_k: int, n: int, gen: np.random.Generator) -> np.ndarray:
    """``n`` dot products ``q · k`` of random vectors with standard normal entries, shape (n,)."""
    per_chunk = max(1, _CHUNK // (2 * d_k))
    parts = []
    for start in range(0, n, per_chunk):
        m = min(per_chunk, n - start)
        q = gen.standard_normal((m, d_k))        # (m, d_k)
        k = gen.standard_normal((m, d_k))        # (m, d_k)
        parts.append(np.einsum("md,md->m", q, k))  # (m,)
    return np.concatenate(parts)                 # (n,)


def _random_chunks(d_k: int, n_rows: int, n_keys: int, gen: np.random.Generator):
    """Random queries and keys, chunk by chunk: ``(q, k)`` of shapes (m, d_k) and (m, n_keys, d_k)."""
    per_chunk = max(1, _CHUNK // ((n_keys + 1) * d_k))
    for start in range(0, n_rows, per_chunk):
        m = min(per_chunk, n_rows - start)
        q = gen.standard_normal((m, d_k))              # (m, d_k)
        k = gen.standard_normal((m, n_keys, d_k))      # (m, n_keys, d_k)
        yield q, k


def _random_rows(d_k: int, n_rows: int, n_keys: int, gen: np.random.Generator) -> np.ndarray:
    """Rows of raw scores: one random query against ``n_keys`` random keys per row, shape (n_rows, n_keys)."""
    parts = [np.einsum("md,mnd->mn", q, k) for q, k in _random_chunks(d_k, n_rows, n_keys, gen)]  # (m, n_keys)
    return np.concatenate(parts)                       # (n_rows, n_keys)


def dot_product_std(d_k: int, n_samples: int = 10_000, *, scaled: bool = False, rng=0) -> float:
    """Measure the standard deviation of ``q · k`` for random ``q`` and ``k``.

    Every entry of ``q`` and ``k`` is drawn from a standard normal
    distribution (mean 0, standard deviation 1), independently. Each product
    ``q_i k_i`` then has mean 0 and variance 1, and the ``d_k`` products add
    up: ``q · k`` has variance ``d_k``, so its standard deviation is
    ``sqrt(d_k)``. Dividing by ``sqrt(d_k)`` brings it back to 1.

    Parameters
    ----------
    d_k : int
        Numbers per query and per key (>= 1).
    n_samples : int, default 10_000
        Pairs ``(q, k)`` drawn (>= 2).
    scaled : bool, default False, keyword-only
        Divide each dot product by ``sqrt(d_k)`` first.
    rng : numpy.random.Generator or int, default 0, keyword-only
        The random generator, or a seed for a new one.

    Returns
    -------
    float
        The sample standard deviation of the ``n_samples`` dot products.

    Raises
    ------
    TypeError
        If ``d_k`` or ``n_samples`` is not an integer, ``scaled`` not a bool,
        or ``rng`` neither a Generator nor a seed.
    ValueError
        If ``d_k < 1`` or ``n_samples < 2``.

    Examples
    --------
    >>> round(dot_product_std(64, rng=0), 1), round(dot_product_std(64, scaled=True, rng=0), 2)
    (8.0, 1.0)
    """
    d_k = check_positive_int(d_k, "d_k")
    n_samples = check_positive_int(n_samples, "n_samples")
    if n_samples < 2:
        raise ValueError(f"n_samples must be at least 2 to measure a spread, got {n_samples}")
    scaled = check_flag(scaled, "scaled")
    dots = _random_dots(d_k, n_samples, _generator(rng))   # (n_samples,)
    if scaled:
        dots = dots / np.sqrt(d_k)
    return float(dots.std())


def _check_scores(scores) -> np.ndarray:
    """``scores`` as float64 with at least one axis: real numbers or -inf (blocked)."""
    arr = np.asarray(scores)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise TypeError(f"scores must be numeric, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"scores must be real, got dtype {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("scores must have at least 1 dimension (a row), got a scalar")
    arr = arr.astype(np.float64)
    if np.isnan(arr).any() or np.isposinf(arr).any():
        raise ValueError(f"scores contains NaN or +inf; shape {arr.shape}")
    return arr


def softmax_with_temperature(scores, temperature: float = 1.0) -> np.ndarray:
    """Softmax of each row of scores divided by the temperature ``T``.

    ``T = 1`` is plain softmax. A larger ``T`` shrinks the gaps between the
    scores, so the weights move toward equal shares; a smaller ``T`` widens
    them, so the largest score takes almost everything. Dividing the scores
    by ``sqrt(d_k)``, as attention does, is softmax at ``T = sqrt(d_k)``.

    Parameters
    ----------
    scores : array_like, shape (..., n)
        Scores; the weights sum to 1 along the last axis. ``-inf`` is
        blocked and gets weight 0.
    temperature : float, default 1.0
        ``T``, a finite number > 0.

    Returns
    -------
    numpy.ndarray, shape (..., n)
        ``softmax(scores / T)``, float64.

    Raises
    ------
    TypeError
        If ``scores`` is not real and numeric, or ``temperature`` not a real number.
    ValueError
        If ``scores`` is a scalar or holds NaN or ``+inf``, or ``temperature``
        is not finite and positive.

    Examples
    --------
    Cat's raw scores from the book's three words, at three temperatures:

    >>> import numpy as np
    >>> softmax_with_temperature([4.0, 2.0, 0.0], 1.0).round(3)
    array([0.867, 0.117, 0.016])
    >>> softmax_with_temperature([4.0, 2.0, 0.0], np.sqrt(2)).round(3)   # scaled: T = sqrt(d_k)
    array([0.768, 0.187, 0.045])
    >>> softmax_with_temperature([4.0, 2.0, 0.0], 100.0).round(3)        # almost equal shares
    array([0.34 , 0.333, 0.327])
    """
    arr = _check_scores(scores)
    if isinstance(temperature, np.ndarray) and temperature.ndim == 0:
        temperature = temperature.item()
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real):
        raise TypeError(f"temperature must be a real number, got {type(temperature).__name__}")
    if not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be finite and > 0, got {temperature}")
    return softmax(arr / float(temperature))   # (..., n)


def softmax_jacobian(scores) -> np.ndarray:
    """How much each softmax weight moves when each score moves: ``d w_i / d s_j``.

    With ``w = softmax(s)``, the Jacobian is ``diag(w) - w wᵀ``. When one
    weight is close to 1 and the others close to 0 (softmax is *saturated*),
    every entry is close to 0: nudging a score barely changes any weight,
    so almost no signal from the loss gets back through this row to the scores.

    Parameters
    ----------
    scores : array_like, shape (..., n)
        Rows of scores (real numbers or ``-inf``).

    Returns
    -------
    numpy.ndarray, shape (..., n, n)
        Entry ``[..., i, j]`` is ``d w_i / d s_j``.

    Raises
    ------
    TypeError, ValueError
        If ``scores`` is not a real numeric array of at least one axis
        without NaN or ``+inf``.

    Examples
    --------
    Equal scores move the weights the most; a dominant score freezes them:

    >>> softmax_jacobian([0.0, 0.0]).round(3)
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    >>> bool(np.abs(softmax_jacobian([40.0, 0.0])).max() < 1e-15)
    True
    """
    w = softmax(_check_scores(scores))                 # (..., n)
    outer = w[..., :, None] * w[..., None, :]          # (..., n, n)
    return np.einsum("...i,ij->...ij", w, np.eye(w.shape[-1])) - outer   # (..., n, n)


def saturation(d_ks, n_keys: int = 10, n_rows: int = 2_000, *, scaled: bool = False, rng=0,
               faint: float = 0.01) -> dict:
    """How saturated softmax gets as ``d_k`` grows: largest weight and gradient sizes.

    For each ``d_k``, draw ``n_rows`` rows of attention: one random query
    against ``n_keys`` random keys, every entry standard normal. Score them
    (``q · k``, divided by ``sqrt(d_k)`` if ``scaled``), take softmax, and
    average over the rows:

    * the largest weight of the row;
    * the size of the row's :func:`~selfattention.softmax_jacobian` ``J``, the
      gradient of the weights with respect to the *scores* (its Frobenius norm,
      the square root of the sum of its squared entries);
    * the size of the gradient of the weights with respect to the *query*,
      ``J K / sqrt(d_k)`` (or ``J K`` without the division): the chain rule
      brings in ``d s / d q = K / sqrt(d_k)``;
    * the share of the keys that lose (all but the row's largest weight)
      whose weight is below ``faint``. Row ``j`` of ``J`` is
      ``w_j (e_j - w)``, so the signal that reaches score ``j`` is at most
      ``sqrt(2) w_j`` times the signal from above.

    A mean can hide how the rows differ, so the largest weight and the
    query's gradient are also returned row by row. Two calls with the same
    seed draw the same rows, with and without the division.

    Parameters
    ----------
    d_ks : sequence of int
        The sizes ``d_k`` to measure (each >= 1).
    n_keys : int, default 10
        Keys per row (>= 2): the words a query looks at.
    n_rows : int, default 2_000
        Rows averaged per ``d_k`` (>= 1).
    scaled : bool, default False, keyword-only
        Divide the scores by ``sqrt(d_k)``.
    rng : numpy.random.Generator or int, default 0, keyword-only
        The random generator, or a seed for a new one.
    faint : float, default 0.01, keyword-only
        A losing key whose weight is below this counts as faint; in (0, 1).

    Returns
    -------
    dict
        ``d_k`` (int array, shape (m,)), and float arrays of shape (m,), the
        means over the rows: ``largest_weight``, ``gradient_size`` (with
        respect to the scores), ``query_gradient_size`` (with respect to the
        query) and ``faint_share`` (the share of the losing keys below ``faint``);
        and, row by row, float arrays of shape (m, n_rows):
        ``largest_weight_rows`` and ``query_gradient_rows``.

    Raises
    ------
    TypeError
        If a size is not an integer, ``scaled`` not a bool, ``faint`` not a
        real number, or ``rng`` neither a Generator nor a seed.
    ValueError
        If ``d_ks`` is empty, a size is out of range, or ``faint`` is not in (0, 1).

    Examples
    --------
    Without the division, the largest weight grows toward 1 with ``d_k``;
    with it, it stays where it was at ``d_k = 1``:

    >>> raw = saturation([1, 256], n_rows=200, rng=0)
    >>> scaled = saturation([1, 256], n_rows=200, scaled=True, rng=0)
    >>> raw["largest_weight"].round(2), scaled["largest_weight"].round(2)
    (array([0.27, 0.94]), array([0.27, 0.32]))

    The gradient with respect to the scores fades without the division. The
    one with respect to the query is larger without it on average, since
    ``K`` is ``sqrt(d_k)`` times longer than ``K / sqrt(d_k)``, but that mean
    comes from a few rows whose two largest scores nearly tie: in the median
    row it is far smaller.

    >>> bool(raw["gradient_size"][1] < scaled["gradient_size"][1])
    True
    >>> bool(raw["query_gradient_size"][1] > scaled["query_gradient_size"][1])
    True
    >>> median = lambda result: np.median(result["query_gradient_rows"][1])
    >>> bool(median(raw) < median(scaled) / 2)
    True
    """
    sizes = list(np.atleast_1d(np.asarray(d_ks, dtype=object)))
    if not sizes:
        raise ValueError("d_ks must hold at least one size d_k, got none")
    sizes = [check_positive_int(d, "d_ks") for d in sizes]
    n_keys = check_positive_int(n_keys, "n_keys")
    if n_keys < 2:
        raise ValueError(f"n_keys must be at least 2 (one key leaves softmax nothing to choose), got {n_keys}")
    n_rows = check_positive_int(n_rows, "n_rows")
    scaled = check_flag(scaled, "scaled")
    if isinstance(faint, bool) or not isinstance(faint, numbers.Real):
        raise TypeError(f"faint must be a real number in (0, 1), got {faint!r}")
    if not 0 < faint < 1:
        raise ValueError(f"faint must be in (0, 1), got {faint}")
    gen = _generator(rng)
    largest, size, q_size, faint_share, largest_rows, q_rows = [], [], [], [], [], []
    for d_k in sizes:
        scale = np.sqrt(d_k) if scaled else 1.0
        top, jac_size, jq_size, n_faint = [], [], [], 0
        for q, k in _random_chunks(d_k, n_rows, n_keys, gen):
            s = np.einsum("md,mnd->mn", q, k) / scale                        # (m, n_keys)
            w = softmax(s)                                                   # (m, n_keys)
            jac = softmax_jacobian(s)                                        # (m, n_keys, n_keys)
            jq = jac @ k / scale                                             # (m, n_keys, d_k): d w / d q
            top.append(w.max(axis=-1))
            jac_size.append(np.sqrt((jac**2).sum(axis=(-2, -1))))
            jq_size.append(np.sqrt((jq**2).sum(axis=(-2, -1))))
            losers = np.sort(w, axis=-1)[:, :-1]                             # (m, n_keys - 1)
            n_faint += int((losers < faint).sum())
        largest_rows.append(np.concatenate(top))                             # (n_rows,)
        q_rows.append(np.concatenate(jq_size))                               # (n_rows,)
        largest.append(largest_rows[-1].mean())
        size.append(np.concatenate(jac_size).mean())
        q_size.append(q_rows[-1].mean())
        faint_share.append(n_faint / (n_rows * (n_keys - 1)))
    return {"d_k": np.array(sizes), "largest_weight": np.array(largest), "gradient_size": np.array(size),
            "query_gradient_size": np.array(q_size), "faint_share": np.array(faint_share),
            "largest_weight_rows": np.array(largest_rows), "query_gradient_rows": np.array(q_rows)}


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


__all__ = ["dot_product_std", "saturation", "scaling_example", "softmax_jacobian", "softmax_with_temperature"]
