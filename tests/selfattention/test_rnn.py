import numpy as np
import pytest

import selfattention as sa
from selfattention.rnn import check_rnn_states, effect_on_last, fading, rnn_states


def test_states_follow_the_update_rule_by_hand():
    x = np.array([1.0, -0.5, 0.25])
    h1 = np.tanh(1.0)
    h2 = np.tanh(0.5 * h1 - 0.5)
    h3 = np.tanh(0.5 * h2 + 0.25)
    np.testing.assert_allclose(rnn_states(x, 0.5), [h1, h2, h3], rtol=0, atol=1e-15)


def test_vector_words_update_number_by_number_and_keep_one_size():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(7, 3))
    states = rnn_states(x, 0.8)
    assert states.shape == (7, 3)
    for i in range(3):
        np.testing.assert_allclose(states[:, i], rnn_states(x[:, i], 0.8), atol=1e-15)


def test_h0_is_the_summary_before_the_first_word():
    np.testing.assert_allclose(rnn_states([0.0], 0.5, h0=1.0), [np.tanh(0.5)])


def test_fading_is_half_to_the_power_k():
    k = np.array([1, 2, 3, 5, 10, 50])
    np.testing.assert_allclose(fading(0.5, k), [0.5, 0.25, 0.125, 0.03125, 0.0009765625, 2.0 ** -50], rtol=1e-15)
    assert fading(0.5, 0) == 1.0
    np.testing.assert_allclose(fading(-0.5, [3]), [0.125])


def test_effect_equals_finite_differences():
    rng = np.random.default_rng(1)
    x = rng.normal(scale=0.7, size=9)
    w, eps = 0.9, 1e-6
    numeric = []
    for j in range(len(x)):
        up, down = x.copy(), x.copy()
        up[j] += eps
        down[j] -= eps
        numeric.append((rnn_states(up, w)[-1] - rnn_states(down, w)[-1]) / (2 * eps))
    np.testing.assert_allclose(effect_on_last(x, w), numeric, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("w", [0.5, 0.9, -0.7, 1.5])
def test_effect_never_exceeds_the_fading_bound(w):
    x = np.random.default_rng(2).normal(size=(30, 4))
    effect = np.abs(effect_on_last(x, w))
    bound = fading(w, np.arange(29, -1, -1))[:, None]
    assert (effect <= bound + 1e-15).all()


def test_without_tanh_slope_the_effect_is_the_bound():
    # Tiny words keep h near 0, where tanh's slope is 1: the effect is w ** k to within a small margin.
    x = np.full(11, 1e-6)
    np.testing.assert_allclose(effect_on_last(x, 0.5), fading(0.5, np.arange(10, -1, -1)), rtol=1e-9)


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
    assert "carry h" in check_rnn_states(later, x, w).message
    assert not check_rnn_states("abc", x, w)


def test_the_unedited_starter_gets_a_not_yet_not_a_type_error():
    # The exercise's starter, run as it is: h = ... inside the loop (why-not-left-to-right).
    x = sa.three_words()
    states = []
    for _ in x:
        h = ...
        states.append(h)
    feedback = check_rnn_states(np.array(states), x, 0.5)
    assert not feedback and feedback.message.startswith("Not yet") and "h = ..." in feedback.message
    assert "ndarray" not in feedback.message
    assert check_rnn_states(states, x, 0.5).message == feedback.message
    assert "NumPy array of numbers" in check_rnn_states([[1.0], [2.0, 3.0]], x, 0.5).message


def test_exported_from_the_package():
    assert sa.rnn_states is rnn_states and sa.fading is fading and sa.check_rnn_states is check_rnn_states


@pytest.mark.parametrize(("args", "error", "match"), [
    (([[[1.0]]], 0.5), ValueError, r"\(T,\) or \(T, d\)"),
    (([], 0.5), ValueError, "at least one word"),
    (([1.0], "0.5"), TypeError, "w must be a real number"),
    (([1.0], np.nan), ValueError, "w must be finite"),
    (([np.inf], 0.5), ValueError, "NaN or inf"),
])
def test_bad_input_is_named(args, error, match):
    with pytest.raises(error, match=match):
        rnn_states(*args)


def test_bad_h0_and_k_are_named():
    with pytest.raises(ValueError, match="h0 must have the shape of one word"):
        rnn_states([[1.0, 2.0]], 0.5, h0=[0.0])
    with pytest.raises(TypeError, match="k must be integers"):
        fading(0.5, 1.5)
    with pytest.raises(ValueError, match="k must be 0 or more"):
        fading(0.5, [-1])
