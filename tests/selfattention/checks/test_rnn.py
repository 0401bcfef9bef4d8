"""check_rnn_states: the checker of the reader's recurrent loop."""

import numpy as np
import pytest

import selfattention as sa
from selfattention import check_rnn_states, rnn_states


def test_checker_accepts_the_right_loop_and_names_the_usual_slips():
    x, w = [0.5, -1.0, 2.0], 0.5
    assert check_rnn_states(rnn_states(x, w), x, w)
    linear = [0.5, 0.25 - 1.0, 0.5 * (0.25 - 1.0) + 2.0]
    assert "before tanh" in check_rnn_states(linear, x, w).message
    assert "ignores the one before" in check_rnn_states(np.tanh(x), x, w).message
    assert "only the last" in check_rnn_states(rnn_states(x, w)[-1], x, w).message
    wrong_first = rnn_states(x, w) + 0.1
    assert "first summary, row 0, is wrong" in check_rnn_states(wrong_first, x, w).message
    later = rnn_states(x, w).copy()
    later[2] += 0.1
    assert "Carry h" in check_rnn_states(later, x, w).message
    assert not check_rnn_states("abc", x, w)


def test_exported_from_the_package():
    assert sa.check_rnn_states is sa.checks.rnn.check_rnn_states


def test_the_unedited_starter_is_told_to_replace_the_placeholder():
    # The exercise's starter, run as it is: h = ... inside the loop (why-not-left-to-right).
    x = sa.three_words()
    states = []
    for _ in x:
        h = ...
        states.append(h)
    feedback = sa.check_rnn_states(np.array(states), x, 0.5)
    assert not feedback and "placeholder" in feedback.message and "ndarray" not in feedback.message
    assert sa.check_rnn_states(states, x, 0.5).message == feedback.message
    assert "placeholder" in sa.check_scores(...).message
    assert "NumPy array of numbers, got str" in sa.check_rnn_states("abc", x, 0.5).message


def loop(x, step):
    h, states = np.zeros(np.shape(x)[1:]), []
    for x_t in np.asarray(x, dtype=float):
        h = step(h, x_t)
        states.append(h)
    return np.array(states)


def test_a_wrong_first_summary_is_shown_from_row_0():
    # T1-8: the message named the worst value of the whole array (row 2), not the first summary's.
    X, w = sa.three_words(), 0.5
    states = loop(X, lambda h, x_t: np.tanh(h) + w * x_t)          # a loop the checker has no name for
    verdict = check_rnn_states(states, X, w)
    assert verdict.slip == "first-wrong"
    assert verdict.message.startswith("The first summary, row 0, is wrong at column 0: 1 where 0.964 was expected")


def test_a_wrong_later_summary_names_the_first_wrong_row():
    X, w = sa.three_words(), 0.5
    states = rnn_states(X, w)
    states[1:] += 0.1                                                # rows 1 and 2 wrong: row 1 is where to look
    verdict = check_rnn_states(states, X, w)
    assert verdict.slip == "later-wrong" and "but row 1 is wrong at column" in verdict.message


@pytest.mark.parametrize("step, slip, words", [
    (lambda h, x_t: 0.5 * np.tanh(h) + x_t, "tanh-inside", "tanh squashes only the summary carried over"),
    (lambda h, x_t: np.tanh(h + 0.5 * x_t), "w-on-word", "You multiplied the word by w"),
], ids=["w*tanh(h)+x", "tanh(h+w*x)"])
def test_the_reviewers_two_loops_are_named(step, slip, words):
    # T1-8's two loops: they used to get "first summary is wrong" at a later row.
    X = sa.three_words()
    verdict = check_rnn_states(loop(X, step), X, 0.5)
    assert verdict.slip == slip and words in verdict.message
