"""Threads for attention: row blocks on every core, BLAS on one thread each.

Attention splits into independent blocks of query rows, so both
:func:`~selfattention.attention.scaled_dot_product_attention` and
:func:`~selfattention.blockwise.blockwise_attention` hand such blocks to a
small pool of threads (NumPy releases the GIL in matrix products and
ufuncs). NumPy's OpenBLAS would start threads of its own inside every
matrix product, and two layers of threads on the same cores wait on each
other; so while the pool runs, OpenBLAS is asked to use one thread (the
same call threadpoolctl makes), and its setting is put back afterwards.
Where that is not possible (another BLAS), callers are told so and cut
their matrix products small enough that BLAS keeps them on the calling
thread (:func:`matmul_small`).
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

# Below this many scores in all, threads cost more than they save.
MIN_PARALLEL_SCORES = 1 << 18
# Ask NumPy's OpenBLAS for one thread while our pool runs (see above).
LIMIT_BLAS_THREADS = True

# OpenBLAS runs a matrix product of m*n*k <= 2**18 in the calling thread and
# larger ones on its own threads, which then wait for each other at every
# call. We bring our own threads, so products are cut into row groups of
# this size and handed to BLAS as one batched call: still one NumPy call.
SERIAL_MNK = 1 << 18


def matmul_whole(a, b, out) -> None:
    """``out[...] = a @ b`` in one call."""
    np.matmul(a, b, out=out)


def matmul_small(a, b, out) -> None:
    """``out[...] = a @ b`` for 2-D arrays, as BLAS calls of at most ``SERIAL_MNK``.

    ``a`` (R, K) and ``out`` (R, N) must be C-contiguous so that the row
    groups are views.
    """
    rows, inner = a.shape
    group = max(1, SERIAL_MNK // max(1, inner * b.shape[1]))
    if group >= rows:
        np.matmul(a, b, out=out)
        return
    whole = rows - rows % group
    np.matmul(  # (R/g, g, N): one BLAS call per group of g rows
        a[:whole].reshape(-1, group, inner), b, out=out[:whole].reshape(-1, group, b.shape[1])
    )
    if whole < rows:
        np.matmul(a[whole:], b, out=out[whole:])


def default_threads() -> int:
    """As many threads as NumPy's BLAS may use, at most the CPUs (and 8).

    So ``OPENBLAS_NUM_THREADS=1`` or threadpoolctl's limit also keeps this
    module on one core.
    """
    n = _cpu_count()
    controls = openblas_controls()
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
                num_threads, thread_name_prefix="attention", initializer=_mark_worker
            )
            _POOLS[num_threads] = pool
        return pool


def run_tasks(fn, tasks, num_threads: int) -> None:
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

    with one_blas_thread() as limited:
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
def one_blas_thread():
    """While active, NumPy's OpenBLAS uses one thread; yields whether that worked.

    The setting is process-wide, so nested and concurrent users are
    counted and the first one's saved value is put back by the last one.
    """
    global _BLAS_USERS, _BLAS_SAVED
    controls = openblas_controls() if LIMIT_BLAS_THREADS else None
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


@functools.cache
def openblas_controls():
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
