"""The cost of full context: how many scores, how many bytes, how long.

Small helpers for the chapter "The cost of full context". The counting
functions are exact arithmetic; :func:`measure` times a function and
measures its peak extra memory with :mod:`tracemalloc` (NumPy reports its
array allocations to ``tracemalloc``), and :func:`loglog_slope` fits the
exponent ``p`` in ``cost ~ n**p``.
"""

from __future__ import annotations

import gc
import math
import numbers
import time
import tracemalloc
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ._validate import check_positive_int

#: Bytes per number for the dtypes the chapter talks about. ``bfloat16``
#: has no NumPy dtype, so it is known by name only.
DTYPE_BYTES = {
    "float64": 8,
    "fp64": 8,
    "float32": 4,
    "fp32": 4,
    "float16": 2,
    "fp16": 2,
    "bfloat16": 2,
    "bf16": 2,
    "int8": 1,
    "fp8": 1,
}


def score_count(n: int, m: int | None = None) -> int:
    """Number of attention scores: one per (query, key) pair, ``n * m``.

    Parameters
    ----------
    n : int
        Number of queries (the context length for self-attention).
    m : int, optional
        Number of keys; defaults to ``n``.

    Returns
    -------
    int
        ``n * m`` (``n**2`` for self-attention), as an exact Python int.

    Raises
    ------
    TypeError, ValueError
        If ``n`` or ``m`` is not a positive integer.

    Examples
    --------
    >>> score_count(3)
    9
    >>> score_count(128_000)
    16384000000
    >>> score_count(4, 6)
    24
    """
    n = check_positive_int(n, "n")
    m = n if m is None else check_positive_int(m, "m")
    return n * m


def dtype_bytes(dtype) -> int:
    """Bytes per number for a dtype name or NumPy dtype.

    Parameters
    ----------
    dtype : str or numpy.dtype or type
        A name from :data:`DTYPE_BYTES` (``"float32"``, ``"bf16"``, ...) or
        anything :class:`numpy.dtype` accepts.

    Returns
    -------
    int
        The item size in bytes.

    Raises
    ------
    TypeError
        If ``dtype`` is not a known name or NumPy dtype.

    Examples
    --------
    >>> dtype_bytes("float32"), dtype_bytes("bf16"), dtype_bytes("fp16")
    (4, 2, 2)
    >>> import numpy as np
    >>> dtype_bytes(np.float64)
    8
    """
    if isinstance(dtype, str) and dtype.lower() in DTYPE_BYTES:
        return DTYPE_BYTES[dtype.lower()]
    try:
        return int(np.dtype(dtype).itemsize)
    except TypeError:
        raise TypeError(
            f"dtype must be a NumPy dtype or one of {sorted(DTYPE_BYTES)}, got {dtype!r}"
        ) from None


def score_bytes(n: int, dtype="float32", *, heads: int = 1, layers: int = 1, m: int | None = None) -> int:
    """Bytes needed to hold the attention scores, all at once.

    One head of one layer holds ``n * m`` scores; a model with ``heads``
    heads and ``layers`` layers holds that many times more if every score
    matrix is kept (as in training, for the backward pass).

    Parameters
    ----------
    n : int
        Number of queries (the context length).
    dtype : str or numpy.dtype, default "float32"
        Number format; see :func:`dtype_bytes` (``"bf16"`` is 2 bytes).
    heads : int, default 1, keyword-only
        Attention heads per layer.
    layers : int, default 1, keyword-only
        Number of layers.
    m : int, optional, keyword-only
        Number of keys; defaults to ``n``.

    Returns
    -------
    int
        ``n * m * bytes_per_number * heads * layers``.

    Raises
    ------
    TypeError, ValueError
        If a count is not a positive integer or ``dtype`` is unknown.

    Examples
    --------
    One head, float32, 4096 words: 64 MiB.

    >>> score_bytes(4096) / 2**20
    64.0

    A model with 32 heads and 32 layers at 8192 words in bf16: 128 GiB.

    >>> score_bytes(8192, "bf16", heads=32, layers=32) / 2**30
    128.0
    """
    heads = check_positive_int(heads, "heads")
    layers = check_positive_int(layers, "layers")
    return score_count(n, m) * dtype_bytes(dtype) * heads * layers


def attention_flops(n: int, d: int, *, m: int | None = None, d_v: int | None = None) -> int:
    """Floating-point operations of one attention head: ``2*n*m*d + 2*n*m*d_v``.

    Counts the two matrix products (scores ``Q K^T`` and output ``W V``),
    each multiply-add as 2 operations; the softmax is not counted. For
    ``m = n`` and ``d_v = d`` this is the usual ``4 * n**2 * d``.

    Parameters
    ----------
    n : int
        Number of queries.
    d : int
        Width of queries and keys (``d_k``).
    m : int, optional, keyword-only
        Number of keys; defaults to ``n``.
    d_v : int, optional, keyword-only
        Width of the values; defaults to ``d``.

    Returns
    -------
    int
        The operation count.

    Raises
    ------
    TypeError, ValueError
        If a size is not a positive integer.

    Examples
    --------
    >>> attention_flops(1024, 64)
    268435456
    >>> attention_flops(1024, 64) == 4 * 1024**2 * 64
    True
    """
    d = check_positive_int(d, "d")
    d_v = d if d_v is None else check_positive_int(d_v, "d_v")
    return 2 * score_count(n, m) * (d + d_v)


def format_bytes(n_bytes) -> str:
    """A byte count in binary units, e.g. ``"64.0 MiB"``.

    Parameters
    ----------
    n_bytes : int or float
        A non-negative number of bytes.

    Returns
    -------
    str
        The count with one decimal and the largest unit that keeps the
        number at least 1 (``B``, ``KiB``, ``MiB``, ``GiB``, ``TiB``, ``PiB``).

    Raises
    ------
    TypeError
        If ``n_bytes`` is not a real number.
    ValueError
        If ``n_bytes`` is negative or not finite.

    Examples
    --------
    >>> format_bytes(512)
    '512 B'
    >>> format_bytes(score_bytes(4096))
    '64.0 MiB'
    >>> format_bytes(score_bytes(8192, "bf16", heads=32, layers=32))
    '128.0 GiB'
    """
    if isinstance(n_bytes, bool) or not isinstance(n_bytes, numbers.Real):
        raise TypeError(f"n_bytes must be a real number, got {type(n_bytes).__name__}")
    if not math.isfinite(n_bytes) or n_bytes < 0:
        raise ValueError(f"n_bytes must be a finite number >= 0, got {n_bytes}")
    if n_bytes < 1024:
        return f"{int(n_bytes)} B"
    value = float(n_bytes)
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB"):
        value /= 1024
        if value < 1024 or unit == "PiB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


class Measurement(NamedTuple):
    """One row of :func:`measure`.

    ``n`` is the size passed to ``setup``; ``seconds`` the best wall-clock
    time of one call; ``peak_bytes`` the peak memory allocated during one
    call, above what was allocated before it.
    """

    n: int
    seconds: float
    peak_bytes: int


def attention_inputs(n: int, d: int = 64, *, dtype=np.float32, seed: int = 0):
    """Random queries, keys and values of shape ``(n, d)``: the default ``setup``.

    Parameters
    ----------
    n : int
        Number of words.
    d : int, default 64
        Width of each vector.
    dtype : numpy dtype, default numpy.float32, keyword-only
        Floating dtype of the arrays.
    seed : int, default 0, keyword-only
        Seed of the random generator, so runs are repeatable.

    Returns
    -------
    tuple of numpy.ndarray
        ``(q, k, v)``, each of shape ``(n, d)``, standard normal.

    Raises
    ------
    TypeError, ValueError
        If ``n`` or ``d`` is not a positive integer.

    Examples
    --------
    >>> q, k, v = attention_inputs(5, 3)
    >>> q.shape, k.dtype
    ((5, 3), dtype('float32'))
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((n, d)).astype(dtype) for _ in range(3))


def peak_memory(fn: Callable, *args, **kwargs) -> int:
    """Peak bytes that ``fn(*args, **kwargs)`` allocates beyond what was live before.

    Uses :mod:`tracemalloc`, which sees every NumPy array allocation (and
    Python objects), but not memory a BLAS library keeps for itself. The
    result of ``fn`` counts too, since it is allocated during the call.

    Parameters
    ----------
    fn : callable
        The function to run once.
    *args, **kwargs
        Passed to ``fn``.

    Returns
    -------
    int
        Peak traced memory during the call minus traced memory before it.

    Raises
    ------
    TypeError
        If ``fn`` is not callable.

    Examples
    --------
    A 1000 x 1000 float64 array is 8 MB:

    >>> import numpy as np
    >>> peak_memory(np.ones, (1000, 1000)) >= 8_000_000
    True
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    gc.collect()
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        result = fn(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
        del result
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return max(0, peak - before)


def best_time(fn: Callable, *args, repeat: int = 3, **kwargs) -> float:
    """Best wall-clock time of ``repeat`` calls ``fn(*args, **kwargs)``, in seconds.

    The best (not the mean) is the least disturbed by other programs.

    Parameters
    ----------
    fn : callable
        The function to time.
    *args, **kwargs
        Passed to ``fn``.
    repeat : int, default 3, keyword-only
        Number of calls.

    Returns
    -------
    float
        The shortest time of one call.

    Raises
    ------
    TypeError, ValueError
        If ``fn`` is not callable or ``repeat`` is not a positive integer.

    Examples
    --------
    >>> best_time(sum, range(1000)) < 1.0
    True
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    repeat = check_positive_int(repeat, "repeat")
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best


def measure(fn: Callable, sizes: Sequence[int], *, setup: Callable | None = None, repeat: int = 3) -> list[Measurement]:
    """Time ``fn`` and measure its peak extra memory for growing sizes ``n``.

    For each ``n`` in ``sizes``: ``args = setup(n)`` builds the inputs
    (outside the measurement), then ``fn(*args)`` runs once under
    :mod:`tracemalloc` for the peak memory, and ``repeat`` more times
    for the best wall-clock time.

    Parameters
    ----------
    fn : callable
        The function to measure, called as ``fn(*setup(n))``.
    sizes : sequence of int
        The sizes ``n``, e.g. ``[256, 512, 1024, 2048]``.
    setup : callable, optional, keyword-only
        ``setup(n)`` returns the tuple of arguments for ``fn``. Defaults to
        :func:`attention_inputs`: random float32 ``q, k, v`` of shape
        ``(n, 64)``.
    repeat : int, default 3, keyword-only
        Timed calls per size; the best is kept.

    Returns
    -------
    list of Measurement
        One ``Measurement(n, seconds, peak_bytes)`` per size, in order.

    Raises
    ------
    TypeError, ValueError
        If ``fn`` or ``setup`` is not callable, ``sizes`` is empty or holds
        something that is not a positive integer, or ``repeat`` is not a
        positive integer.

    Examples
    --------
    The scores of plain attention take ``n * n`` float32 numbers:

    >>> rows = measure(lambda q, k, v: q @ k.T, [64, 128], repeat=1)
    >>> [row.n for row in rows]
    [64, 128]
    >>> rows[1].peak_bytes >= 128 * 128 * 4
    True
    >>> loglog_slope([r.n for r in rows], [r.peak_bytes for r in rows]) > 1.5
    True
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    if setup is None:
        setup = attention_inputs
    elif not callable(setup):
        raise TypeError(f"setup must be callable, got {type(setup).__name__}")
    sizes = [check_positive_int(n, "each of sizes") for n in sizes]
    if not sizes:
        raise ValueError("sizes must hold at least one size")
    repeat = check_positive_int(repeat, "repeat")
    rows = []
    for n in sizes:
        args = setup(n)
        if not isinstance(args, tuple):
            args = (args,)
        peak = peak_memory(fn, *args)
        seconds = best_time(fn, *args, repeat=repeat)
        rows.append(Measurement(n, seconds, peak))
        del args
    return rows


def loglog_slope(sizes, values) -> float:
    """Slope of the least-squares line through ``(log n, log value)``.

    If ``value ~ c * n**p`` the slope is ``p``: 2 for the scores of full
    attention, 1 for memory that grows like ``n``.

    Parameters
    ----------
    sizes : sequence of float
        The sizes ``n``, all positive; at least two different ones.
    values : sequence of float
        The measured costs, all positive, one per size.

    Returns
    -------
    float
        The fitted exponent ``p``.

    Raises
    ------
    ValueError
        If the lengths differ, there are fewer than two distinct sizes, or
        a size or value is not positive and finite.

    Examples
    --------
    >>> round(loglog_slope([256, 512, 1024], [1.0, 4.0, 16.0]), 6)
    2.0
    >>> round(loglog_slope([1, 10, 100], [5, 50, 500]), 6)
    1.0
    """
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(
            f"sizes and values must be 1-D and of the same length, got shapes {x.shape} and {y.shape}"
        )
    for name, arr in (("sizes", x), ("values", y)):
        if not np.all(np.isfinite(arr) & (arr > 0)):
            raise ValueError(f"{name} must all be positive and finite, got {arr.tolist()}")
    if np.unique(x).size < 2:
        raise ValueError(f"need at least two different sizes, got {x.tolist()}")
    lx, ly = np.log(x), np.log(y)
    lx0 = lx - lx.mean()
    return float(np.dot(lx0, ly - ly.mean()) / np.dot(lx0, lx0))


__all__ = [
    "DTYPE_BYTES",
    "Measurement",
    "attention_flops",
    "attention_inputs",
    "best_time",
    "dtype_bytes",
    "format_bytes",
    "loglog_slope",
    "measure",
    "peak_memory",
    "score_bytes",
    "score_count",
]
