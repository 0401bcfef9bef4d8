"""check_scaled_row: one row of scaled scores (chapter 6)."""

import numpy as np
import pytest

import selfattention as _sa

# --- check_scaled_row (chapter "Why divide by √d_k") -------------------------------------------

Q6, K6 = _sa.scaling_example()
RAW6 = K6 @ Q6  # (4,) unscaled scores, written out here


def test_scaled_row_right_answer_is_accepted():
    assert _sa.check_scaled_row(RAW6 / 8).ok
    assert _sa.check_scaled_row(RAW6 / 8 + 1e-15).ok


def _softmax(s):
    e = np.exp(s - s.max())
    return e / e.sum()


@pytest.mark.parametrize("answer, message", [
    (RAW6, "8 times too large: you forgot to divide by sqrt(d_k) = sqrt(64) = 8"),
    (RAW6 / 64, "You divided by d_k = 64; divide by its square root, 8"),
    (RAW6 * 8, "You multiplied by sqrt(d_k) = 8; divide by it instead"),
    (RAW6 / 2, "square root of the number of keys, 4"),
    (_softmax(RAW6 / 8), "Those are the weights, softmax of the scaled scores"),
    (_softmax(RAW6), "Those are the weights of the unscaled scores"),
    (np.outer(RAW6, RAW6), "row has shape (4, 4) but should be (4,)"),
    (RAW6.round(2) / 8, "Wrong value at position"),
    ((RAW6 / 8).round(2), "rounded to 2 decimals"),
    ("row", "row should be a NumPy array of numbers, got str"),
])


def test_scaled_row_mistakes_get_their_diagnosis(answer, message):
    verdict = _sa.check_scaled_row(answer)
    assert not verdict.ok and message in verdict.message


def test_scaled_row_works_for_other_vectors():
    q, k = np.array([1.0, 2.0, 2.0, 0.0]), np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]])
    assert _sa.check_scaled_row(np.array([0.5, 2.0]), q, k).ok


@pytest.mark.parametrize("kwargs, error, message", [
    ({"q": np.ones(3)}, ValueError, "give both q and k"),
    ({"q": np.ones((2, 3)), "k": np.ones((2, 3))}, ValueError, "q must be one query"),
    ({"q": np.ones(3), "k": np.ones((2, 4))}, ValueError, "k must have shape"),
    ({"q": ["a"], "k": np.ones((1, 1))}, TypeError, "q must be numeric"),
])


def test_scaled_row_bad_vectors_raise(kwargs, error, message):
    with pytest.raises(error, match=message):
        _sa.check_scaled_row(np.zeros(2), **kwargs)


def test_scaling_example_is_seeded():
    q1, k1 = _sa.scaling_example()
    q2, k2 = _sa.scaling_example()
    assert np.array_equal(q1, q2) and np.array_equal(k1, k2) and k1.shape == (4, 64)
    with pytest.raises(ValueError, match="seed must be an int >= 0"):
        _sa.scaling_example(seed=-1)


