"""check_blend: the three moves of chapter "Words are islands" for one word."""

import numpy as np
import pytest

from selfattention import check_blend, three_words

X = three_words()
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
        ((np.exp(X @ CAR) / np.exp(X @ CAR).sum()) @ X,
         "did you forget to divide the scores by sqrt(2), the square root of the number of numbers per word?"),
        # T1-6: dividing by 2 instead of sqrt(2), and exponentials that are not normalised
        ((np.exp(X @ CAR / 2) / np.exp(X @ CAR / 2).sum()) @ X, "You divided the scores by 2, the number of numbers"),
        (np.exp(CAR_SCORES) @ X, "You blended with np.exp of the scores, which do not add up to 1"),
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


