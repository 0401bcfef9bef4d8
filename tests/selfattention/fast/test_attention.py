"""The fast plain attention fills its table a block of rows at a time, on every core.

The blocks, the threads and the shortcut that skips the row maximum are
ways of computing, not of changing the answer: each is checked against the
reference layer (which has none of them) and against an independent
float64 computation, at sizes that cross the block and thread boundaries.
"""

import numpy as np
import pytest

from selfattention import attention, fast
from selfattention.fast.scores import fixed_shift_rows

from ..float64_reference import attend_f64


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-14), (np.float32, 2e-6)])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("limit_blas", [True, False])
def test_threaded_row_blocks_equal_the_reference(dtype, tol, causal, limit_blas):
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 3, 70, 8)).astype(dtype)  # batch 2, 3 heads, 70 queries
    k = rng.standard_normal((3, 50, 8)).astype(dtype)  # broadcast over the batch
    v = rng.standard_normal((2, 3, 50, 5)).astype(dtype)
    mask = rng.random((70, 50)) > 0.3
    want = attention.scaled_dot_product_attention(q, k, v, mask=mask, causal=causal, return_weights=True)
    # 70 rows: blocks of 16 and a last one of 6; three threads even for this size
    got = fast.scaled_dot_product_attention(q, k, v, mask=mask, causal=causal, return_weights=True,
                                            query_block_size=16, num_threads=3, limit_blas=limit_blas)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype == dtype
        np.testing.assert_allclose(g, w, rtol=0, atol=tol)


@pytest.mark.parametrize("L, S", [(1, 1), (127, 3), (128, 129), (129, 300), (257, 64)])
@pytest.mark.parametrize("threads", [1, 2])
def test_float64_equals_an_independent_reference_across_block_boundaries(L, S, threads):
    rng = np.random.default_rng(L * 1000 + S)
    q, k = rng.standard_normal((2, L, 24)), rng.standard_normal((2, S, 24))
    v = rng.standard_normal((2, S, 7))
    out, weights = fast.scaled_dot_product_attention(q, k, v, causal=True, return_weights=True,
                                                     num_threads=threads)
    want_out, want_weights = attend_f64(q, k, v, allowed=np.tri(L, S, dtype=bool))
    np.testing.assert_allclose(weights, want_weights, rtol=0, atol=1e-15)
    np.testing.assert_allclose(out, want_out, rtol=0, atol=1e-14)


def test_default_threads_take_over_above_the_size_threshold():
    # 600 x 600 = 360000 scores > MIN_PARALLEL_SCORES: the pool runs with the default count
    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((3, 600, 16))
    np.testing.assert_allclose(fast.scaled_dot_product_attention(q, k, v), attend_f64(q, k, v)[0],
                               rtol=0, atol=1e-14)


def test_large_scores_take_the_max_shift_and_stay_exact():
    q = np.array([[100.0, 0.0], [0.0, 0.0]])  # row 0: scores up to 100 * 60 / sqrt(2)
    k = np.array([[60.0, 0.0], [59.0, 0.0], [0.0, 1.0]])
    v = np.eye(3)[:, :2]
    assert fixed_shift_rows(q, k, v, 1 / np.sqrt(2)).tolist() == [False, True]
    out, weights = fast.scaled_dot_product_attention(q, k, v, return_weights=True)
    want_out, want_weights = attend_f64(q, k, v)
    np.testing.assert_allclose(weights, want_weights, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(out, want_out, rtol=0, atol=1e-15)


def test_the_output_does_not_depend_on_asking_for_the_weights():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((3, 40, 6)).astype(np.float32)
    out, _ = fast.scaled_dot_product_attention(q, k, v, return_weights=True)
    np.testing.assert_array_equal(out, fast.scaled_dot_product_attention(q, k, v))


def test_v_with_more_batch_dimensions_than_the_weights():
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((2, 30, 4))
    v = rng.standard_normal((5, 30, 3))  # 5 sets of values share one table of weights
    out, weights = fast.scaled_dot_product_attention(q, k, v, return_weights=True, num_threads=2)
    assert out.shape == (5, 30, 3) and weights.shape == (30, 30)
    np.testing.assert_allclose(out, weights @ v, rtol=0, atol=1e-14)


def test_memory_is_one_table_of_weights():
    from selfattention.cost import peak_memory

    n = 1024
    x = np.random.default_rng(5).standard_normal((n, 32)).astype(np.float32)
    peak = peak_memory(fast.scaled_dot_product_attention, x, x, x, num_threads=1)
    table = n * n * 4  # 4 MiB of float32 scores
    assert table <= peak < 1.1 * table  # the table plus a few rows


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"query_block_size": 0}, ValueError, r"query_block_size must be a positive integer, got 0"),
        ({"query_block_size": 2.0}, TypeError, r"query_block_size must be a positive integer, got 2\.0"),
        ({"num_threads": 0}, ValueError, r"num_threads must be a positive integer, got 0"),
        ({"fixed_shift": 1}, TypeError, r"fixed_shift must be True or False, got 1"),
        ({"limit_blas": None}, TypeError, r"limit_blas must be True or False, got None"),
    ],
)
def test_the_speed_arguments_are_checked(kwargs, error, message):
    x = np.ones((3, 2))
    with pytest.raises(error, match=message):
        fast.scaled_dot_product_attention(x, x, x, **kwargs)


@pytest.mark.parametrize("mask", [np.arange(100) % 3 > 0, np.where(np.arange(100) % 3 > 0, 0.5, -np.inf)],
                         ids=["boolean", "float"])
def test_a_mask_with_one_row_serves_every_block_of_rows(mask):
    # A per-key mask (S,) has one row; 200 queries make two blocks of 128 rows (a bug sliced row 128 on).
    rng = np.random.default_rng(6)
    q, k, v = rng.standard_normal((200, 4)), rng.standard_normal((100, 4)), rng.standard_normal((100, 3))
    got = fast.scaled_dot_product_attention(q, k, v, mask=mask)
    want = attention.scaled_dot_product_attention(q, k, v, mask=mask)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)


def test_products_cut_for_one_blas_thread_keep_every_row():
    # limit_blas=False cuts each product into groups of rows (matmul_small): with S = 1000 and
    # d_k = 64, q @ k.T goes 4 rows at a time, and weights @ v (d_v = 16) 16 rows at a time,
    # so blocks of 127 rows leave 3 and 15 rows over.
    rng = np.random.default_rng(7)
    q, k = rng.standard_normal((2, 300, 64)), rng.standard_normal((2, 1000, 64))
    v = rng.standard_normal((2, 1000, 16))
    got = fast.scaled_dot_product_attention(q, k, v, query_block_size=127, num_threads=2, limit_blas=False)
    np.testing.assert_allclose(got, attend_f64(q, k, v)[0], rtol=0, atol=1e-14)
