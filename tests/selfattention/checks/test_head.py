"""check_head: the checker of "write one attention head" accepts a right head and names each typical mistake."""

import numpy as np
import pytest

from selfattention import Feedback, check_head, softmax


def make_head(scores_and_mix):
    """A head(X, W_Q, W_K, W_V) that projects, then runs ``scores_and_mix(Q, K, V, X)``."""

    def head(X, W_Q, W_K, W_V):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        return scores_and_mix(Q, K, V, X)

    return head


def scale(Q):
    return np.sqrt(Q.shape[-1])


RIGHT = make_head(lambda Q, K, V, X: softmax(Q @ K.T / scale(Q), axis=-1) @ V)


def test_the_right_head_is_accepted():
    verdict = check_head(RIGHT)
    assert isinstance(verdict, Feedback) and verdict.ok
    assert str(verdict) == "✓ Right: your head gives the right output, shape (L, d_v), on both test heads."


def test_a_head_written_without_the_package_is_accepted():
    def head(X, W_Q, W_K, W_V):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        s = Q @ K.T / np.sqrt(K.shape[1])
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)) @ V

    assert check_head(head).ok


@pytest.mark.parametrize(
    "mix, message",
    [
        (lambda Q, K, V, X: softmax(Q @ K / scale(Q)) @ V, "You wrote Q @ K: K needs a transpose."),
        (lambda Q, K, V, X: softmax(Q * K.T / scale(Q)) @ V,
         "You wrote Q * K.T: * multiplies element by element."),
        (lambda Q, K, V, X: softmax(Q @ K.T) @ V,
         "The weights are too sharp: did you forget to divide the scores by sqrt(d_k) = sqrt(3)?"),
        (lambda Q, K, V, X: softmax(Q @ K.T / Q.shape[-1]) @ V,
         "You divided the scores by d_k = 3; divide by its square root, sqrt(3)."),
        (lambda Q, K, V, X: softmax(Q @ K.T / np.sqrt(X.shape[-1])) @ V,
         "You divided by sqrt(5), the square root of d_model"),
        (lambda Q, K, V, X: softmax(Q @ K.T / scale(Q), axis=0) @ V,
         "Softmax ran down the columns (axis=0)."),
        (lambda Q, K, V, X: softmax((Q @ K.T / scale(Q)).ravel()).reshape(len(Q), len(K)) @ V,
         "Softmax ran over the whole table at once."),
        (lambda Q, K, V, X: softmax(Q @ K.T / scale(Q)).T @ V,
         "You used the weights transposed (weights.T @ V)."),
        (lambda Q, K, V, X: softmax(K @ Q.T / scale(Q)) @ V, "you wrote K @ Q.T."),
        (lambda Q, K, V, X: (Q @ K.T / scale(Q)) @ V, "You mixed the values with the scores."),
        (lambda Q, K, V, X: softmax(Q @ K.T / scale(Q)) @ X,
         "mix the values V = X @ W_V, not the words."),
        (lambda Q, K, V, X: softmax(Q @ K.T / scale(Q)), "That is the shape of the weights: multiply them by V."),
        (lambda Q, K, V, X: (softmax(Q @ K.T / scale(Q)) @ V).T, "the output has one row per word."),
        (lambda Q, K, V, X: softmax(Q.T @ K / scale(Q)) @ V,
         "head raised ValueError: matmul: Input operand 1 has a mismatch"),
        (lambda Q, K, V, X: np.full((len(Q), V.shape[1]), np.nan), "head returned NaN or inf."),
        (lambda Q, K, V, X: softmax(Q @ K.T / scale(Q)) @ V + 0.01, "d_v = 2, output["),
        (lambda Q, K, V, X: ..., "head should return a NumPy array of numbers, got ellipsis."),
        (lambda Q, K, V, X: (softmax(Q @ K.T / scale(Q)) @ V, None), "head returned a tuple of 2 things"),
    ],
    ids=["Q@K", "Q*K.T", "no-scale", "by-d_k", "by-sqrt-d_model", "axis-0", "whole-table", "weights.T",
         "K@Q.T", "no-softmax", "mixes-X", "returns-weights", "output.T", "Q.T@K", "nan", "off", "ellipsis",
         "tuple"],
)
def test_each_typical_mistake_gets_its_message(mix, message):
    verdict = check_head(make_head(mix))
    assert not verdict.ok
    assert message in verdict.message, verdict.message


def test_an_error_in_every_test_head_is_reported_with_its_sizes():
    def head(X, W_Q, W_K, W_V):
        raise ZeroDivisionError("oops")

    verdict = check_head(head)
    assert not verdict.ok
    assert verdict.message == "With L = 4, d_model = 5, d_k = 3, d_v = 2, head raised ZeroDivisionError: oops."


def test_a_result_instead_of_the_function_is_refused_with_a_tip():
    verdict = check_head(np.zeros((3, 2)))
    assert not verdict.ok and "check_head(head), without brackets" in verdict.message


def test_the_reader_cannot_change_the_checker_s_matrices():
    def head(X, W_Q, W_K, W_V):
        W_Q *= 0  # a reader's function that changes its arguments in place
        return RIGHT(X, W_Q, W_K, W_V)

    assert not check_head(head).ok
    assert check_head(RIGHT).ok
