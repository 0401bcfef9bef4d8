"""Blockwise attention: exact softmax attention that never holds all n*n scores.

Plain attention builds the whole ``(L, S)`` score matrix, then takes its
softmax. Here the keys and values are walked in blocks of ``block_size``.
Each query keeps three running numbers while it reads the blocks: the
largest score seen so far (``run_max``), the sum of ``exp(score - run_max)``
(``run_sum``) and the matching weighted sum of values (``acc``). When a
block brings a larger score, the old sums are multiplied by
``exp(old_max - new_max)``, so they stay exactly what they would have been
with the new maximum. At the end ``acc / run_sum`` is the softmax-weighted
average: the same numbers as plain attention, up to rounding. This is the
"online softmax" of FlashAttention.

Memory: one tile of ``query_block_size * block_size`` scores per thread,
plus the ``(L, d_v)`` output -- it grows like ``n * block``, not ``n**2``.

Speed: query blocks are independent, so they are spread over a small pool
of threads (NumPy releases the GIL in matrix products and ufuncs). NumPy's
OpenBLAS would start threads of its own inside every matrix product, and
two layers of threads on the same cores wait on each other; so while the
pool runs, OpenBLAS is asked to use one thread (the same call threadpoolctl
makes), and its setting is put back afterwards. Where that is not possible
(another BLAS), each matrix product is cut into pieces small enough that
BLAS keeps them on the calling thread.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import glob
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from ._validate import broadcast_shape, check_flag, check_mask, check_positive_int, check_scale
from .attention import _check_qkv

#: Keys per block (the step of the online softmax).
DEFAULT_BLOCK_SIZE = 1024
#: Queries per block (one task for one thread).
DEFAULT_QUERY_BLOCK_SIZE = 256
# Below this many scores in all, threads cost more than they save.
_MIN_PARALLEL_SCORES = 1 << 18
# Ask NumPy's OpenBLAS for one thread while our pool runs (see above).
_LIMIT_BLAS_THREADS = True


def blockwise_attention(
    q,
    k,
    v,
    *,
    mask=None,
    causal: bool = False,
    scale=None,
    block_size: int = DEFAULT_BLOCK_SIZE,
    query_block_size: int = DEFAULT_QUERY_BLOCK_SIZE,
    num_threads: int | None = None,
):
    """Exact attention computed block by block with an online softmax.

    Gives the same result as
    :func:`~selfattention.attention.scaled_dot_product_attention` (up to
    floating-point rounding) with the same arguments, but walks the keys and
    values in blocks of ``block_size``, keeping a running maximum and a
    running sum per query. Extra memory is one ``(query_block_size,
    block_size)`` tile of scores per thread plus the output, so it grows
    like ``n * block`` instead of ``n**2``.

    With ``causal=True``, key blocks that lie entirely after a query block
    are skipped, which halves the work for ``L == S``. Key blocks that a
    boolean ``mask`` blocks completely are skipped too. Query blocks are
    spread over ``num_threads`` threads; NumPy releases the GIL inside
    its matrix products and ufuncs, so they run on separate cores.

    Parameters
    ----------
    q : array_like, shape (..., L, d_k)
        Queries.
    k : array_like, shape (..., S, d_k)
        Keys.
    v : array_like, shape (..., S, d_v)
        Values.
    mask : array_like, optional, keyword-only
        Boolean (``True`` = may attend) or float (added to the scores; use
        ``-inf`` to block), broadcastable to ``(..., L, S)``. It is read
        one block at a time and never copied whole.
    causal : bool, default False, keyword-only
        Block keys after the query (top-left aligned when ``L != S``).
    scale : float, optional, keyword-only
        Multiplies the scores; defaults to ``1 / sqrt(d_k)``.
    block_size : int, default 1024, keyword-only
        Keys (and values) per block: the step of the online softmax. If
        NumPy's BLAS cannot be held to one thread while several threads
        run, smaller blocks are used so that every matrix product stays on
        its own core.
    query_block_size : int, default 256, keyword-only
        Queries per block; each query block is one task for one thread.
    num_threads : int, optional, keyword-only
        Threads to use. Defaults to as many as NumPy's BLAS may use
        (so ``OPENBLAS_NUM_THREADS=1`` means one), at most the number of
        CPUs and 8. Small inputs always run in the calling thread.

    Returns
    -------
    numpy.ndarray, shape (..., L, d_v)
        Each row is the softmax-weighted average of the rows of ``v``; a
        query whose keys are all masked gets 0. float32 inputs give a
        float32 result, anything else float64.

    Raises
    ------
    TypeError
        If an input is not numeric, ``mask`` is neither boolean nor float,
        ``causal`` is not a bool, or a size or ``scale`` has the wrong type.
    ValueError
        If a shape is wrong (``k`` without rows, ``d_k = 0``), ``d_k`` of q
        and k differ, ``S`` of k and v differ, ``mask`` does not broadcast
        to ``(..., L, S)``, an input or a float mask holds NaN or ``+inf``,
        a size is not positive, or the scores overflow to ``+inf``.

    Examples
    --------
    The book's running example gives the same numbers as plain attention:

    >>> import numpy as np
    >>> from selfattention.attention import scaled_dot_product_attention
    >>> x = [[2, 0], [1, 1], [0, 2]]
    >>> blockwise_attention(x, x, x, block_size=2).round(2)
    array([[1.72, 0.28],
           [1.  , 1.  ],
           [0.28, 1.72]])
    >>> blockwise_attention(x, x, x, causal=True, block_size=1).round(2)
    array([[2.  , 0.  ],
           [1.5 , 0.5 ],
           [0.28, 1.72]])

    On longer inputs it agrees with the plain function:

    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((3, 2, 300, 16))  # 2 heads, 300 words
    >>> out = blockwise_attention(q, k, v, causal=True, block_size=64)
    >>> out.shape
    (2, 300, 16)
    >>> bool(np.allclose(out, scaled_dot_product_attention(q, k, v, causal=True)))
    True
    """
    q, k, v = _check_qkv(q, k, v)
    causal = check_flag(causal, "causal")
    L, S = q.shape[-2], k.shape[-2]
    block_size = check_positive_int(block_size, "block_size")
    query_block_size = check_positive_int(query_block_size, "query_block_size")
    if num_threads is None:
        num_threads = _default_threads()
    else:
        num_threads = check_positive_int(num_threads, "num_threads")
    scale = check_scale(scale, q.shape[-1])
    allowed, bias = check_mask(mask, L, S, broadcast_shape(q.shape[:-2], k.shape[:-2], "q and k"))
    mask_batch = () if mask is None else np.shape(allowed if bias is None else bias)[:-2]  # may add dims
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], mask_batch)
    dtype = q.dtype
    out = np.zeros(batch + (L, v.shape[-1]), dtype=dtype)  # (..., L, d_v)
    if out.size == 0:
        return out  # no queries (L = 0) or d_v = 0: nothing to compute

    overflow = None  # the plain function's message, if some score might overflow
    largest = _abs_max(q) * _abs_max(k) * q.shape[-1] * abs(scale)  # |q.k| <= d max|q| max|k|
    if largest > float(np.finfo(dtype).max) / 4:
        overflow = (
            f"the scores q @ k.T * scale overflow {dtype} (largest |q| = {np.abs(q).max():.3g}, "
            f"|k| = {np.abs(k).max():.3g}, scale = {scale:.3g}): make q, k or scale smaller"
        )
    scores_shape = batch + (L, S)
    q = np.broadcast_to(q, batch + q.shape[-2:])  # views, no copies
    k = np.broadcast_to(k, batch + k.shape[-2:])
    v = np.broadcast_to(v, batch + v.shape[-2:])
    if allowed is not None:
        allowed = np.broadcast_to(allowed, batch + (L, S))
    if bias is not None:
        bias = np.broadcast_to(bias, batch + (L, S))

    tasks = []
    for idx in np.ndindex(*batch):
        for r0 in range(0, L, query_block_size):
            r1 = min(r0 + query_block_size, L)
            tasks.append((idx, r0, r1))
    if causal:
        tasks.sort(key=lambda t: -t[2])  # longest first: better balance

    def run(task, small_blas):
        idx, r0, r1 = task
        step = block_size
        if small_blas:  # keep each product on one core: at most 16 rows x step keys
            step = max(1, min(block_size, _SERIAL_MNK // (16 * max(q.shape[-1], v.shape[-1]))))
        _attend_rows(
            q[idx], k[idx], v[idx],
            None if allowed is None else allowed[idx],
            None if bias is None else bias[idx],
            dtype.type(scale), causal, r0, r1, step, out[idx], small_blas, overflow, scores_shape,
        )

    work = int(np.prod(batch, dtype=np.int64)) * L * S  # scores in all
    _run_tasks(run, tasks, num_threads if work >= _MIN_PARALLEL_SCORES else 1)
    return out


def _attend_rows(
    q, k, v, allowed, bias, scale, causal, r0, r1, block_size, out, small_blas=False, overflow=None,
    scores_shape=None,
):
    """Online softmax over key blocks for query rows ``r0:r1`` of one batch slice.

    ``q`` (L, d_k); ``k`` (S, d_k); ``v`` (S, d_v);
    ``allowed`` and ``bias`` are (L, S) views or None; rows ``r0:r1`` of
    ``out`` (L, d_v) are written. ``small_blas`` cuts the matrix products
    into pieces that BLAS runs on the calling thread. ``scale`` multiplies
    the queries (once, instead of every score). ``overflow`` is the
    message to raise if a score is not finite (None: they cannot overflow);
    ``scores_shape`` is only for error messages.
    """
    dtype = q.dtype
    matmul = _matmul_small if small_blas else _matmul_whole
    rows = r1 - r0
    q_blk = q[r0:r1] * scale  # (R, d_k) scaled queries: cheaper than scaling R*S scores
    acc = np.zeros((rows, v.shape[1]), dtype)  # (R, d_v) running sum of weight * value
    pv = np.empty_like(acc)  # (R, d_v)
    run_sum = np.zeros(rows, dtype)  # (R,) running sum of the weights: the softmax denominator
    run_max = np.full(rows, -np.inf, dtype)  # (R,) largest score so far
    new_max = np.empty(rows, dtype)  # (R,)
    blocks = _key_blocks(r0, r1, k.shape[0], block_size, causal)
    buf = np.empty(rows * max((c1 - c0 for c0, c1 in blocks), default=0), dtype)  # the only score buffer
    inf = dtype.type(np.inf)
    for c0, c1 in blocks:
        if allowed is not None:
            keep = allowed[r0:r1, c0:c1]  # (R, b)
            if not keep.any():
                continue  # the mask blocks this whole block
        s = buf[: rows * (c1 - c0)].reshape(rows, c1 - c0)  # (R, b), contiguous
        with np.errstate(over="ignore"):  # an overflow is caught just below, as a ValueError
            matmul(q_blk, k[c0:c1].T, s)  # (R, b) scaled scores
        if overflow is not None and not np.isfinite(s).all():
            raise ValueError(overflow)
        if bias is not None:
            with np.errstate(over="ignore"):  # -1e300 in float32 is -inf: still "blocked"
                np.add(s, bias[r0:r1, c0:c1], out=s, dtype=dtype, casting="same_kind")
        if allowed is not None:
            np.copyto(s, -inf, where=~keep)
        if causal and c1 - 1 > r0:  # a diagonal block: hide keys after each query
            np.copyto(s, -inf, where=_after_diagonal(rows, c1 - c0, r0 - c0))
        np.max(s, axis=1, out=new_max)  # (R,)
        if not (new_max < inf).all():  # max propagates NaN and +inf (a float mask added too much)
            raise ValueError(f"softmax: x contains NaN or +inf; shape {scores_shape}")
        np.maximum(new_max, run_max, out=new_max)
        shift = np.where(new_max == -inf, 0, new_max).astype(dtype, copy=False)  # (R,) finite
        alpha = np.exp(run_max - shift)  # (R,) rescales the old sums; 0 if there were none
        np.subtract(s, shift[:, None], out=s)
        np.exp(s, out=s)  # (R, b) weights, not yet divided by their sum
        run_sum *= alpha  # the old sums, rescaled to the new max
        run_sum += s.sum(axis=1)
        matmul(s, v[c0:c1], pv)  # (R, d_v)
        acc *= alpha[:, None]
        acc += pv
        run_max, new_max = new_max, run_max
    total = run_sum[:, None]  # (R, 1)
    np.divide(acc, total, out=out[r0:r1], where=total > 0)  # fully masked rows stay 0


def _abs_max(x) -> float:
    """Largest absolute value in ``x`` (0 if empty), as a Python float."""
    if x.size == 0:
        return 0.0
    return max(float(np.max(x)), -float(np.min(x)))


def _key_blocks(r0: int, r1: int, S: int, block_size: int, causal: bool) -> list:
    """The ``(c0, c1)`` key ranges that query rows ``r0:r1`` must read.

    With ``causal`` the keys from ``r1`` on are masked for every one of
    these queries (top-left alignment), so those blocks are skipped.
    """
    end = min(S, r1) if causal else S
    return [(c0, min(c0 + block_size, end)) for c0 in range(0, end, block_size)]


# OpenBLAS runs a matrix product of m*n*k <= 2**18 in the calling thread and
# larger ones on its own threads, which then wait for each other at every
# call. We bring our own threads, so products are cut into row groups of
# this size and handed to BLAS as one batched call: still one NumPy call.
_SERIAL_MNK = 1 << 18


def _matmul_whole(a, b, out) -> None:
    """``out[...] = a @ b`` in one call."""
    np.matmul(a, b, out=out)


def _matmul_small(a, b, out) -> None:
    """``out[...] = a @ b`` for 2-D arrays, as BLAS calls of at most ``_SERIAL_MNK``.

    ``a`` (R, K) and ``out`` (R, N) must be C-contiguous so that the row
    groups are views.
    """
    rows, inner = a.shape
    group = max(1, _SERIAL_MNK // max(1, inner * b.shape[1]))
    if group >= rows:
        np.matmul(a, b, out=out)
        return
    whole = rows - rows % group
    np.matmul(  # (R/g, g, N): one BLAS call per group of g rows
        a[:whole].reshape(-1, group, inner), b, out=out[:whole].reshape(-1, group, b.shape[1])
    )
    if whole < rows:
        np.matmul(a[whole:], b, out=out[whole:])


def _after_diagonal(rows: int, cols: int, offset: int) -> np.ndarray:
    """Boolean (rows, cols): True where key ``c`` comes after query ``r + offset``."""
    return ~np.tri(rows, cols, k=offset, dtype=bool)  # (rows, cols)


def _default_threads() -> int:
    """As many threads as NumPy's BLAS may use, at most the CPUs (and 8).

    So ``OPENBLAS_NUM_THREADS=1`` or threadpoolctl's limit also keeps this
    module on one core.
    """
    n = _cpu_count()
    controls = _openblas_controls()
    if controls is not None:
        with _BLAS_LOCK:  # while our pool runs, the user's setting is the saved one
            blas = _BLAS_SAVED if _BLAS_USERS else controls[0]()
        n = min(n, max(1, blas))
    return n


def _cpu_count() -> int:
    """CPUs this process may run on, at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()
_WORKER = threading.local()


def _mark_worker() -> None:
    _WORKER.active = True


def _in_worker() -> bool:
    """True inside one of our pool threads (then run serially: no nested waiting)."""
    return getattr(_WORKER, "active", False)


def _pool(num_threads: int) -> ThreadPoolExecutor:
    """A shared pool per thread count, made on first use and kept."""
    with _POOLS_LOCK:
        pool = _POOLS.get(num_threads)
        if pool is None:
            pool = ThreadPoolExecutor(
                num_threads, thread_name_prefix="blockwise", initializer=_mark_worker
            )
            _POOLS[num_threads] = pool
        return pool


def _run_tasks(fn, tasks, num_threads: int) -> None:
    """Call ``fn(task, small_blas)`` for every task, on ``num_threads`` threads.

    Alone (one thread, one task, or already inside a pool thread) the calls
    run here and BLAS may use its own threads. Otherwise the calling thread
    and ``num_threads - 1`` pool threads take tasks from one queue until it
    is empty; OpenBLAS is limited to one thread meanwhile if possible, and
    if not, ``small_blas=True`` asks ``fn`` for products small enough to
    stay on one thread. After a failure no new task is started, and the
    first exception is raised here once every thread has stopped.
    """
    if num_threads <= 1 or len(tasks) <= 1 or _in_worker():
        for task in tasks:
            fn(task, False)
        return
    queue = iter(tasks)
    lock = threading.Lock()
    failed = threading.Event()

    def work(small_blas):
        while not failed.is_set():
            with lock:
                task = next(queue, None)
            if task is None:
                return
            try:
                fn(task, small_blas)
            except BaseException:
                failed.set()
                raise

    with _one_blas_thread() as limited:
        pool = _pool(num_threads - 1)
        futures = [pool.submit(work, not limited) for _ in range(min(num_threads, len(tasks)) - 1)]
        try:
            work(not limited)  # the calling thread works too
        finally:
            wait(futures)
    for future in futures:
        future.result()  # re-raises a pool thread's failure


_BLAS_LOCK = threading.Lock()
_BLAS_USERS = 0
_BLAS_SAVED = 0


@contextlib.contextmanager
def _one_blas_thread():
    """While active, NumPy's OpenBLAS uses one thread; yields whether that worked.

    The setting is process-wide, so nested and concurrent users are
    counted and the first one's saved value is put back by the last one.
    """
    global _BLAS_USERS, _BLAS_SAVED
    controls = _openblas_controls() if _LIMIT_BLAS_THREADS else None
    if controls is None:
        yield False
        return
    get_threads, set_threads = controls
    with _BLAS_LOCK:
        if _BLAS_USERS == 0:
            _BLAS_SAVED = get_threads()
            if _BLAS_SAVED > 1:
                set_threads(1)
        _BLAS_USERS += 1
    try:
        yield True
    finally:
        with _BLAS_LOCK:
            _BLAS_USERS -= 1
            if _BLAS_USERS == 0 and _BLAS_SAVED > 1:
                set_threads(_BLAS_SAVED)


@functools.lru_cache(maxsize=None)
def _openblas_controls():
    """``(get_num_threads, set_num_threads)`` of the OpenBLAS bundled with NumPy, or None.

    NumPy's wheels ship OpenBLAS in ``numpy.libs`` (Linux, Windows) or
    ``numpy/.dylibs`` (macOS); loading the same file again with ctypes
    gives the copy NumPy already uses.
    """
    here = os.path.dirname(np.__file__)
    candidates = glob.glob(os.path.join(os.path.dirname(here), "numpy.libs", "*openblas*"))
    candidates += glob.glob(os.path.join(here, ".dylibs", "*openblas*"))
    names = [
        ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
        ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
        ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
        ("openblas_get_num_threads", "openblas_set_num_threads"),
    ]
    for path in candidates:
        try:
            lib = ctypes.CDLL(os.path.realpath(path))
        except OSError:
            continue
        for get_name, set_name in names:
            get_threads = getattr(lib, get_name, None)
            set_threads = getattr(lib, set_name, None)
            if get_threads is not None and set_threads is not None:
                get_threads.restype = ctypes.c_int
                get_threads.argtypes = []
                set_threads.restype = None
                set_threads.argtypes = [ctypes.c_int]
                return get_threads, set_threads
    return None


__all__ = ["DEFAULT_BLOCK_SIZE", "DEFAULT_QUERY_BLOCK_SIZE", "blockwise_attention"]
