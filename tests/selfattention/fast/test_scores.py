"""The bound on the scores, and the shortcut it allows: never at the cost of a wrong answer."""

import numpy as np
import pytest

from selfattention import attention, fast
from selfattention.fast.scores import FIXED_SHIFT_LIMIT, fixed_shift_rows, overflow_message

from ..float64_reference import attend_f64

FAST = {
    "plain": fast.scaled_dot_product_attention,
    "blockwise": fast.blockwise_attention,
}


def scores_near(top: float):
    """float32 q, k, v whose largest scores (scale 1) lie just under ``top``; small values."""
    q = np.array([[np.sqrt(top) - 1e-3, 0.0], [0.0, 1.0], [np.sqrt(top) / 2, 0.0]], np.float32)
    k = np.array([[np.sqrt(top), 0.0], [np.sqrt(top) * 0.99, 0.0], [0.0, 1.0]], np.float32)
    v = np.array([[1e-3, 0.0], [0.0, 1e-3], [-1e-3, 1e-3]], np.float32)  # S * max|v| * e^90 < float32 max
    return q, k, v


@pytest.mark.parametrize("top", [29.0, 60.0, 89.9, 200.0])
@pytest.mark.parametrize("name", FAST)
def test_float32_scores_up_to_90_and_beyond_give_the_exact_softmax(name, top):
    # exp(89.9) = 1e39 overflows float32: only scores within FIXED_SHIFT_LIMIT may skip the max.
    q, k, v = scores_near(top)
    got = FAST[name](q, k, v, scale=1.0)
    want, _ = attend_f64(q, k, v, scale=1.0)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-8)  # float32 eps 1.2e-7 times |v| = 1e-3, and more


def test_the_bound_picks_the_rows_whose_scores_are_small():
    q, k, v = scores_near(89.9)
    bound = np.linalg.norm(q, axis=1) * np.linalg.norm(k, axis=1).max()
    fixed = fixed_shift_rows(q, k, v, 1.0)
    np.testing.assert_array_equal(fixed, bound <= FIXED_SHIFT_LIMIT)
    assert fixed.tolist() == [False, True, False]
    assert fixed_shift_rows(q, k, v, 1.0, limit=90.0).tolist() == [True, True, True]  # what a looser limit allows
    assert fixed_shift_rows(q, k, v, 1.0, limit=100.0) is None  # 3 * 1e-3 * e^100 could overflow float32


def test_values_too_large_for_a_sum_of_exponentials_never_take_the_shortcut():
    x = np.ones((2, 2), np.float32)
    assert fixed_shift_rows(x, x, x * 1e25, 1.0) is None  # 2 * 1e25 * e^30 > float32 max / 4


def test_the_overflow_bound_is_none_only_when_no_score_can_overflow():
    x = np.ones((2, 3), np.float32)
    assert overflow_message(x, x, 1.0) is None
    assert overflow_message(x * 1e19, x * 1e19, 1.0).startswith("the scores q @ k.T * scale overflow float32")


@pytest.mark.parametrize("fixed_shift", [True, False])
@pytest.mark.parametrize("name", FAST)
def test_with_and_without_the_shortcut_the_answer_is_the_reference(name, fixed_shift):
    rng = np.random.default_rng(3)
    q, k, v = rng.standard_normal((3, 2, 90, 8))
    got = FAST[name](q, k, v, causal=True, fixed_shift=fixed_shift)
    want = attention.scaled_dot_product_attention(q, k, v, causal=True)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)
