"""The exercise checkers accept the right answer and only that, and say what is wrong."""

import numpy as np
import pytest

import selfattention as _sa
from selfattention import Feedback, check_blend, check_scores, three_words

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


# check_blend: the three moves of chapter "Words are islands" for one word.

CAR = X[2]
CAR_SCORES = X @ CAR / np.sqrt(2)                       # (3,) written out here
CAR_SHARES = np.exp(CAR_SCORES) / np.exp(CAR_SCORES).sum()
CAR_BLEND = CAR_SHARES @ X                              # (2,)


def test_check_blend_accepts_car_and_every_word():
    assert check_blend(CAR_BLEND).ok
    assert str(check_blend(CAR_BLEND)) == "✓ Right: car's blend matches."
    for word in range(3):
        s = X @ X[word] / np.sqrt(2)
        w = np.exp(s) / np.exp(s).sum()
        assert check_blend(w @ X, word).ok
    np.testing.assert_allclose(CAR_BLEND, [0.28, 1.72], atol=5e-3)   # the syllabus's mirror of cat


@pytest.mark.parametrize(
    "answer, message",
    [
        (CAR_SHARES, "Those are car's shares, one per word. Blend the words with them"),
        (X.mean(axis=0), "That is the plain average of the words"),
        (CAR, "That is car itself"),
        (CAR_SCORES @ X, "You blended with the scores"),
        ((np.exp(X @ CAR) / np.exp(X @ CAR).sum()) @ X, "did you forget to divide the scores by sqrt(d_k)"),
        (np.array([1.72, 0.28]), "Wrong value at position "),             # rounded cat, not a diagnosis
        (np.ones((1, 2)), "output has shape (1, 2) but should be (2,)"),
        (np.array([np.nan, 1.0]), "output contains NaN or inf."),
        ("car", "output should be a NumPy array of numbers, got str."),
    ],
)


def test_check_blend_names_the_likely_mistake(answer, message):
    verdict = check_blend(answer)
    assert not verdict.ok and message in verdict.message


def test_check_blend_names_the_word_whose_blend_was_given():
    s = X @ X[0] / np.sqrt(2)
    cat_blend = (np.exp(s) / np.exp(s).sum()) @ X
    verdict = check_blend(cat_blend)
    assert not verdict.ok and verdict.message.startswith("That is cat's blend")


def test_check_blend_works_for_other_words_without_names():
    x = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    s = x @ x[1] / np.sqrt(3)
    assert check_blend((np.exp(s) / np.exp(s).sum()) @ x, 1, x).ok
    assert "word 1 itself" in check_blend(x[1], 1, x).message


@pytest.mark.parametrize("word", [3, -1, 1.0, True])
def test_check_blend_refuses_a_word_that_is_not_a_row(word):
    with pytest.raises(ValueError, match="word must be a row of x"):
        check_blend(CAR_BLEND, word)


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


def test_check_head_scores_rejects_malformed_matrices():
    with pytest.raises(ValueError, match="w_k must have shape"):
        _sa.check_head_scores(np.zeros((3, 3)), w_k=np.eye(3))


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


# check_causal_mask (chapter "Causal masking")

@pytest.mark.parametrize("n", [1, 3, 6])
def test_check_causal_mask_accepts_the_package_mask(n):
    verdict = _sa.check_causal_mask(_sa.causal_mask(n), n)
    assert verdict.ok and "itself included" in verdict.message


@pytest.mark.parametrize("build, text", [
    (lambda n: np.tri(n, k=-1, dtype=bool), "diagonal is blocked"),
    (lambda n: np.tri(n, dtype=bool).T, "upper triangle"),
    (lambda n: ~np.tri(n, dtype=bool), "swapped"),
    (lambda n: np.tri(n), "float64 numbers"),
    (lambda n: np.tri(n, dtype=int), "refuses an integer mask"),
    (lambda n: np.ones((n, n + 1), dtype=bool), "shape (4, 5)"),
    (lambda n: "mask", "array of booleans"),
])


def test_check_causal_mask_names_the_slip(build, text):
    verdict = _sa.check_causal_mask(build(4), 4)
    assert not verdict.ok and text in verdict.message


def test_check_causal_mask_points_at_a_wrong_cell():
    m = _sa.causal_mask(4).copy()
    m[3, 1] = False
    verdict = _sa.check_causal_mask(m)
    assert not verdict and "Row 3, column 1" in verdict.message and "token 3 may read token 1" in verdict.message


def test_check_causal_mask_refuses_a_bad_n():
    with pytest.raises(ValueError, match="positive integer"):
        _sa.check_causal_mask(np.ones((1, 1), dtype=bool), 0)
