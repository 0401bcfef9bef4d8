"""check_rnn_states: the checker of the reader's recurrent loop."""

import numpy as np

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
    assert "first summary is wrong" in check_rnn_states(wrong_first, x, w).message
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
