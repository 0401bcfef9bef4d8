"""Plain attention fills its score table a block of rows at a time, on every core.

The blocks, the threads and the shortcut that skips the row maximum are
ways of computing, not of changing the answer: each is checked against
the plainest path (one block, one thread, always the maximum).
"""

import numpy as np
import pytest

import selfattention.attention as att
from selfattention import _threads, scaled_dot_product_attention


def plainest(monkeypatch, *args, **kwargs):
    """The same call with one block of rows, one thread and the max shift always on."""
    with monkeypatch.context() as m:
        m.setattr(att, "QUERY_ROWS", 1 << 30)
        m.setattr(att, "FIXED_SHIFT_LIMIT", -1.0)  # no row qualifies
        m.setattr(_threads, "MIN_PARALLEL_SCORES", 1 << 62)
        return scaled_dot_product_attention(*args, **kwargs)


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 2e-6)])
@pytest.mark.parametrize("causal", [False, True])
def test_threaded_row_blocks_give_the_plainest_answer(monkeypatch, dtype, tol, causal):
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 3, 70, 8)).astype(dtype)  # batch 2, 3 heads, 70 queries
    k = rng.standard_normal((3, 50, 8)).astype(dtype)  # broadcast over the batch
    v = rng.standard_normal((2, 3, 50, 5)).astype(dtype)
    mask = rng.random((70, 50)) > 0.3
    want = plainest(monkeypatch, q, k, v, mask=mask, causal=causal, return_weights=True)
    monkeypatch.setattr(att, "QUERY_ROWS", 16)  # 70 rows: blocks of 16 and a last one of 6
    monkeypatch.setattr(_threads, "MIN_PARALLEL_SCORES", 0)  # threads even for this size
    got = scaled_dot_product_attention(q, k, v, mask=mask, causal=causal, return_weights=True)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype == dtype
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_large_scores_take_the_max_shift_and_stay_exact(monkeypatch):
    q = np.array([[100.0, 0.0], [0.0, 0.0]])  # row 0: scores up to 100 * 60 / sqrt(2)
    k = np.array([[60.0, 0.0], [59.0, 0.0], [0.0, 1.0]])
    v = np.eye(3)[:, :2]
    fixed = att.fixed_shift_rows(q, k, v, 1 / np.sqrt(2))
    assert fixed.tolist() == [False, True]
    out, weights = scaled_dot_product_attention(q, k, v, return_weights=True)
    np.testing.assert_allclose(weights[0, :2].sum(), 1.0)
    assert np.isfinite(out).all()
    want = plainest(monkeypatch, q, k, v, return_weights=True)
    np.testing.assert_allclose(weights, want[1], rtol=1e-12, atol=1e-300)


def test_the_output_does_not_depend_on_asking_for_the_weights():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((3, 40, 6)).astype(np.float32)
    out, _ = scaled_dot_product_attention(q, k, v, return_weights=True)
    np.testing.assert_array_equal(out, scaled_dot_product_attention(q, k, v))


def test_v_with_more_batch_dimensions_than_the_weights(monkeypatch):
    monkeypatch.setattr(_threads, "MIN_PARALLEL_SCORES", 0)
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((2, 30, 4))
    v = rng.standard_normal((5, 30, 3))  # 5 sets of values share one table of weights
    out, weights = scaled_dot_product_attention(q, k, v, return_weights=True)
    assert out.shape == (5, 30, 3) and weights.shape == (30, 30)
    np.testing.assert_allclose(out, weights @ v, rtol=1e-12, atol=1e-12)
