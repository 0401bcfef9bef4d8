"""The thread pool and BLAS: every task runs once, every row is computed, settings come back."""

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from selfattention.fast import threads


@pytest.mark.parametrize("rows, inner, cols", [(1000, 600, 1), (437, 600, 1), (436, 600, 1), (5, 2**17, 2),
                                               (300, 64, 1000), (1, 1, 1)])
def test_matmul_small_computes_every_row_even_when_groups_do_not_divide_them(rows, inner, cols):
    rng = np.random.default_rng(rows)
    a, b = rng.standard_normal((rows, inner)), rng.standard_normal((inner, cols))
    out = np.full((rows, cols), np.nan)
    threads.matmul_small(a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-12, atol=1e-12)


def test_run_tasks_runs_each_task_once_on_several_threads():
    seen, names = [], set()
    lock = threading.Lock()

    def fn(task, small_blas):
        with lock:
            seen.append(task)
            names.add(threading.current_thread().name)

    threads.run_tasks(fn, range(40), 3)
    assert sorted(seen) == list(range(40))
    assert len(names) >= 1


def test_run_tasks_raises_the_first_failure_in_the_caller():
    def fn(task, small_blas):
        if task == 7:
            raise ArithmeticError(f"task {task} failed")

    with pytest.raises(ArithmeticError, match="task 7 failed"):
        threads.run_tasks(fn, range(20), 2)


def test_the_blas_setting_is_held_to_one_and_put_back():
    before = [lib["num_threads"] for lib in threads.blas_info()]
    if not before:
        pytest.skip("threadpoolctl sees no BLAS library of NumPy's")
    with threads.one_blas_thread() as limited, threads.one_blas_thread() as nested:
        assert limited and nested
        assert [lib["num_threads"] for lib in threads.blas_info()] == [1] * len(before)
    assert [lib["num_threads"] for lib in threads.blas_info()] == before
    with threads.one_blas_thread(enabled=False) as limited:
        assert not limited
        assert [lib["num_threads"] for lib in threads.blas_info()] == before


def test_a_threadpoolctl_limit_of_one_keeps_the_fast_layer_on_one_thread():
    if not threads.blas_info():
        pytest.skip("threadpoolctl sees no BLAS library of NumPy's")
    with threadpool_limits(limits=1, user_api="blas"):
        assert threads.default_threads() == 1
        assert threads.choose_threads(None, 10**9) == 1


@pytest.mark.parametrize("num_threads, scores, want", [(None, threads.MIN_PARALLEL_SCORES - 1, 1), (2, 1, 2),
                                                       (1, 10**9, 1)])
def test_choose_threads_uses_one_thread_for_small_inputs_unless_told(num_threads, scores, want):
    assert threads.choose_threads(num_threads, scores) == want


def test_choose_threads_rejects_a_bad_count():
    with pytest.raises(ValueError, match="num_threads must be a positive integer, got -2"):
        threads.choose_threads(-2, 100)
