"""The exercise checkers accept the right answer and only that, and say what is wrong."""

import numpy as np
import pytest

import selfattention as _sa
from selfattention import Feedback, check_scores, three_words

X = three_words()
RIGHT = X @ X.T / np.sqrt(2)  # (3, 3), written out here, not taken from the package


def test_the_right_answer_is_accepted():
    verdict = check_scores(RIGHT)
    assert isinstance(verdict, Feedback) and verdict.ok
    assert str(verdict) == "✓ Right: scores has shape (3, 3) and every value matches."


@pytest.mark.parametrize("shape", [(9,), (1, 9), (9, 1), (3, 3, 1)])
def test_the_right_numbers_in_another_shape_are_refused(shape):
    verdict = check_scores(RIGHT.reshape(shape))
    assert not verdict.ok
    assert f"scores has shape {shape} but should be (3, 3)" in verdict.message


@pytest.mark.parametrize("decimals", [2, 4])
def test_rounded_scores_are_refused_as_rounded(decimals):
    verdict = check_scores(RIGHT.round(decimals))
    assert not verdict.ok
    assert verdict.message.startswith(f"Close, but rounded to {decimals} decimals")


def test_a_tiny_float_rounding_difference_is_accepted():
    assert check_scores(RIGHT + 1e-14).ok


@pytest.mark.parametrize(
    "answer, message",
    [
        (X @ X.T, "too large by a factor of 1.41: did you forget to divide by sqrt(d_k) = sqrt(2)?"),
        (X @ X.T / 2, "You divided by d_k = 2; divide by its square root instead."),
        (X.T @ X / np.sqrt(2), "Did you write X.T @ X instead of X @ X.T?"),
        (np.full((3, 3), np.nan), "scores contains NaN or inf."),
        ("scores", "scores should be a NumPy array of numbers, got str."),
    ],
)


def test_common_mistakes_get_their_diagnosis(answer, message):
    verdict = check_scores(answer)
    assert not verdict.ok and message in verdict.message


def test_other_words_can_be_checked():
    x = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    assert check_scores(x @ x.T / np.sqrt(3), x).ok
    assert not check_scores(x @ x.T / np.sqrt(2), x).ok


@pytest.mark.parametrize("x, error, message", [
    (np.ones(3), ValueError, r"x must have shape \(L, d_k\), got \(3,\)"),
    ([["a"]], TypeError, "x must be numeric"),
])


def test_bad_words_raise(x, error, message):
    with pytest.raises(error, match=message):
        check_scores(np.ones((3, 3)), x)


# --- check_head_scores -----------------------------------------------------------------------

_X = _sa.three_words()
_Q = _X @ np.eye(2)
_K = _X @ np.array([[0.0, 0.0], [1.0, 0.0]])


@pytest.mark.parametrize("scores, ok, words", [
    (_Q @ _K.T / np.sqrt(2), True, "Right"),
    (_Q @ _K.T, False, "forget to divide"),
    (_K @ _Q.T / np.sqrt(2), False, "K @ Q.T"),
    (_Q @ _Q.T / np.sqrt(2), False, "Q @ Q.T"),
    (_K @ _K.T / np.sqrt(2), False, "K @ K.T"),
    (_Q @ _K.T / 2, False, "divided by d_k = 2"),
    (_Q.T @ _K, False, "Q.T @ K"),
    (np.zeros((3, 3)), False, "Wrong value at row"),
    ("cat", False, "NumPy array"),
])


def test_check_head_scores_names_the_slip(scores, ok, words):
    verdict = _sa.check_head_scores(scores)
    assert verdict.ok is ok and words in verdict.message


def test_check_head_scores_names_raw_words_when_projections_matter():
    w_q, w_k = np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [1.0, 1.0]])
    verdict = _sa.check_head_scores(_X @ _X.T / np.sqrt(2), w_q=w_q, w_k=w_k)
    assert not verdict.ok and "raw words" in verdict.message


def test_check_head_scores_names_both_slips_when_the_queries_are_the_raw_words():
    # Review R1-16: with W_Q = I (the exercise), X @ X.T and Q @ Q.T are one array; the message says so.
    verdict = _sa.check_head_scores(_X @ _X.T / np.sqrt(2))
    assert not verdict.ok and verdict.slip == "Q@Q.T=X@X.T"
    assert "raw words (X @ X.T)" in verdict.message and "Q @ Q.T" in verdict.message


def test_check_head_scores_rejects_malformed_matrices():
    with pytest.raises(ValueError, match="w_k must have shape"):
        _sa.check_head_scores(np.zeros((3, 3)), w_k=np.eye(3))


