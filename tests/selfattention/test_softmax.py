import numpy as np
import pytest

from selfattention import softmax


def test_rows_sum_to_one_and_are_positive():
    rng = np.random.default_rng(0)
    w = softmax(rng.normal(size=(4, 5, 6)))
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    assert (w > 0).all()


def test_large_scores_do_not_overflow():
    w = softmax(np.array([1e4, 1e4 - 1.0, -1e4]))
    assert np.isfinite(w).all()
    np.testing.assert_allclose(w, [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1)), 0.0], atol=1e-12)


def test_keeps_float32_and_promotes_integers():
    assert softmax(np.zeros(3, dtype=np.float32)).dtype == np.float32
    assert softmax([1, 2, 3]).dtype == np.float64


def test_minus_inf_gets_zero_weight():
    np.testing.assert_array_equal(softmax([0.0, -np.inf]), [1.0, 0.0])


def test_fully_masked_row_gives_zeros_not_nan():
    w = softmax(np.full((2, 3), -np.inf))
    np.testing.assert_array_equal(w, np.zeros((2, 3)))


def test_axis_argument_normalises_that_axis():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(softmax(x, axis=0).sum(axis=0), 1.0)


@pytest.mark.parametrize("bad", [[np.nan, 1.0], [np.inf, 0.0]])
def test_nan_or_plus_inf_is_rejected(bad):
    with pytest.raises(ValueError, match="NaN or \\+inf"):
        softmax(bad)


def test_non_numeric_is_rejected():
    with pytest.raises(TypeError, match="numeric"):
        softmax(["a", "b"])


def test_axis_out_of_range_is_rejected():
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        softmax(np.zeros((2, 2)), axis=2)
