"""Threads for the fast layer: query blocks on every core, BLAS on one thread each.

Attention splits into independent blocks of query rows, so both fast
functions hand such blocks to a small pool of threads (NumPy releases the
GIL in matrix products and ufuncs). NumPy's BLAS would start threads of its
own inside every matrix product, and two layers of threads on the same
cores wait on each other; so while the pool runs, NumPy's BLAS is held to
one thread with threadpoolctl, and its setting is put back afterwards.
Where that is not possible (threadpoolctl cannot see NumPy's BLAS), or the
caller asks not to (``limit_blas=False``), the tasks are told so and cut
their matrix products small enough that BLAS keeps them on the calling
thread (:func:`matmul_small`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from .._validate import check_positive_int

#: With ``num_threads=None``, inputs with fewer scores than this run in the
#: calling thread: threads would cost more than they save.
MIN_PARALLEL_SCORES = 1 << 18

#: OpenBLAS runs a matrix product of ``m*n*k <= 2**18`` in the calling thread
#: and larger ones on its own threads. :func:`matmul_small` cuts products
#: into row groups of at most this size, handed to BLAS as one batched call.
SERIAL_MNK = 1 << 18


def matmul_whole(a, b, out) -> None:
    """``out[...] = a @ b`` in one call (BLAS may use its own threads).

    Examples
    --------
    >>> out = np.empty((2, 1))
    >>> matmul_whole(np.eye(2), np.array([[3.0], [4.0]]), out)
    >>> out.ravel().tolist()
    [3.0, 4.0]
    """
    np.matmul(a, b, out=out)


def matmul_small(a, b, out) -> None:
    """``out[...] = a @ b`` for 2-D arrays, as BLAS calls of at most ``SERIAL_MNK``.

    The rows of ``a`` are cut into groups of ``g`` rows, with ``g * K * N``
    at most ``SERIAL_MNK``; the whole groups go to BLAS as one batched call,
    and the rows left over (fewer than ``g``) as one more call.

    Parameters
    ----------
    a : numpy.ndarray, shape (R, K)
        C-contiguous, so that the row groups are views.
    b : numpy.ndarray, shape (K, N)
    out : numpy.ndarray, shape (R, N)
        C-contiguous; receives ``a @ b``.

    Examples
    --------
    1000 rows of 600 numbers against 600 x 1: groups of 436 rows, then 128 left over.

    >>> a = np.ones((1000, 600)); b = np.ones((600, 1)); out = np.zeros((1000, 1))
    >>> matmul_small(a, b, out)
    >>> bool((out == 600).all())
    True
    """
    rows, inner = a.shape
    group = max(1, SERIAL_MNK // max(1, inner * b.shape[1]))
    if group >= rows:
        np.matmul(a, b, out=out)
        return
    whole = rows - rows % group
    np.matmul(  # (R // g, g, K) @ (K, N) -> (R // g, g, N): one BLAS call per group of g rows
        a[:whole].reshape(-1, group, inner), b, out=out[:whole].reshape(-1, group, b.shape[1])
    )
    if whole < rows:  # the rows left over
        np.matmul(a[whole:], b, out=out[whole:])


def default_threads() -> int:
    """As many threads as NumPy's BLAS may use, at most the CPUs (and 8).

    So ``OPENBLAS_NUM_THREADS=1``, or a ``threadpoolctl.threadpool_limits``
    around the call, also keeps the fast layer on one core.

    Examples
    --------
    >>> 1 <= default_threads() <= 8
    True
    """
    n = _cpu_count()
    blas = _blas_controllers()
    if blas:
        with _BLAS_LOCK:  # while our pool runs, the user's setting is the saved one
            setting = _BLAS_SAVED if _BLAS_USERS else blas[0].num_threads
        n = min(n, max(1, setting))
    return n


def choose_threads(num_threads, scores: int) -> int:
    """The number of threads for a call that computes ``scores`` scores in all.

    ``num_threads=None`` means :func:`default_threads` for large inputs
    (at least ``MIN_PARALLEL_SCORES`` scores) and 1 for small ones; a
    number is checked and used as it is.

    Examples
    --------
    >>> choose_threads(None, 100), choose_threads(3, 100)
    (1, 3)
    """
    if num_threads is None:
        return default_threads() if scores >= MIN_PARALLEL_SCORES else 1
    return check_positive_int(num_threads, "num_threads")


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
            pool = ThreadPoolExecutor(num_threads, thread_name_prefix="attention", initializer=_mark_worker)
            _POOLS[num_threads] = pool
        return pool


def run_tasks(fn, tasks, num_threads: int, *, limit_blas: bool = True) -> None:
    """Call ``fn(task, small_blas)`` for every task, on ``num_threads`` threads.

    Alone (one thread, one task, or already inside a pool thread) the calls
    run here and BLAS may use its own threads. Otherwise the calling thread
    and ``num_threads - 1`` pool threads take tasks from one queue until it
    is empty. Meanwhile NumPy's BLAS is held to one thread if
    ``limit_blas`` and threadpoolctl can do it; if not, ``small_blas=True``
    asks ``fn`` for products small enough to stay on one thread. After a
    failure no new task is started, and the first exception is raised here
    once every thread has stopped.

    Examples
    --------
    >>> seen = []
    >>> run_tasks(lambda task, small_blas: seen.append(task), range(5), 2)
    >>> sorted(seen)
    [0, 1, 2, 3, 4]
    """
    tasks = list(tasks)
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

    with one_blas_thread(limit_blas) as limited:
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
def one_blas_thread(enabled: bool = True):
    """While active, NumPy's BLAS uses one thread; yields whether that worked.

    The setting is process-wide, so nested and concurrent users are
    counted, and the setting saved by the first one is put back by the
    last one. With ``enabled=False`` nothing changes and it yields False.

    Examples
    --------
    >>> with one_blas_thread() as limited:
    ...     during = [lib["num_threads"] for lib in blas_info()]
    >>> not limited or during == [1] * len(during)
    True
    """
    global _BLAS_USERS, _BLAS_SAVED
    blas = _blas_controllers() if enabled else []
    if not blas:
        yield False
        return
    with _BLAS_LOCK:
        if _BLAS_USERS == 0:
            _BLAS_SAVED = blas[0].num_threads
            if _BLAS_SAVED > 1:
                for lib in blas:
                    lib.set_num_threads(1)
        _BLAS_USERS += 1
    try:
        yield True
    finally:
        with _BLAS_LOCK:
            _BLAS_USERS -= 1
            if _BLAS_USERS == 0 and _BLAS_SAVED > 1:
                for lib in blas:
                    lib.set_num_threads(_BLAS_SAVED)


@functools.cache
def _blas_controllers() -> list:
    """threadpoolctl's controllers of the BLAS library NumPy uses (empty if none is seen).

    A process may hold several BLAS libraries (PyTorch brings its own); only
    those loaded from NumPy's folders are chosen, or every BLAS if none is.
    """
    from threadpoolctl import ThreadpoolController

    blas = ThreadpoolController().select(user_api="blas").lib_controllers
    here = os.path.dirname(os.path.realpath(np.__file__))
    folders = (here + os.sep, here + ".libs" + os.sep)  # numpy/.dylibs, numpy.libs
    own = [lib for lib in blas if os.path.realpath(lib.filepath).startswith(folders)]
    return own or list(blas)


def blas_info() -> list[dict]:
    """What threadpoolctl sees of the BLAS this module holds to one thread.

    Examples
    --------
    >>> all("num_threads" in lib for lib in blas_info())
    True
    """
    return [lib.info() for lib in _blas_controllers()]
