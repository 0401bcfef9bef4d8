import numpy as np
import pytest

from selfattention import reversal as rv


def numeric_grad(loss, params, name, eps=1e-6):
    """Central differences of loss() with respect to every entry of params[name]."""
    grad = np.zeros_like(params[name])
    for index in np.ndindex(params[name].shape):
        keep = params[name][index]
        params[name][index] = keep + eps
        up = loss()
        params[name][index] = keep - eps
        down = loss()
        params[name][index] = keep
        grad[index] = (up - down) / (2 * eps)
    return grad


@pytest.mark.parametrize("model", rv.MODELS)
def test_hand_written_gradients_equal_finite_differences(model):
    init, _, loss_and_grads = rv._FUNCTIONS[model]
    params = init(3, 4, seed=0)
    digits, target = rv.reversal_strings(5, 4, seed=3)
    _, grads = loss_and_grads(params, digits, target)
    assert set(grads) == set(params)
    for name in params:
        numeric = numeric_grad(lambda: loss_and_grads(params, digits, target)[0], params, name)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-8, err_msg=name)


def test_strings_are_reversed_and_seeded():
    digits, target = rv.reversal_strings(50, 7, seed=4)
    np.testing.assert_array_equal(target, digits[:, ::-1])
    assert digits.min() >= 0 and digits.max() <= 9
    np.testing.assert_array_equal(digits, rv.reversal_strings(50, 7, seed=4)[0])


def test_the_summary_reads_only_its_last_state():
    # Two strings that end in the same state give the same output: nothing else reaches the readout.
    params = rv.summary_init(3, 5, seed=0)
    logits, states = rv.summary_forward(params, np.array([[1, 2, 3, 4, 5]]))
    again = np.einsum("bs,nsk->bnk", states[-1], params["U"]) + params["c"]
    np.testing.assert_allclose(logits, again)


def test_attention_weights_are_rows_that_sum_to_one():
    params = rv.attention_init(4, 6, seed=1)
    _, saved = rv.attention_forward(params, rv.reversal_strings(3, 6, seed=0)[0])
    np.testing.assert_allclose(saved[4].sum(axis=-1), 1.0)


def test_training_is_deterministic_and_learns_short_strings():
    a = rv.train_reversal("attention", size=8, n_digits=4, steps=150, n_test=200)
    b = rv.train_reversal("attention", size=8, n_digits=4, steps=150, n_test=200)
    np.testing.assert_array_equal(a.losses, b.losses)
    assert a.losses[-10:].mean() < 0.5 * a.losses[:10].mean()
    assert a.string_accuracy > 0.9
    s = rv.train_reversal("summary", size=8, n_digits=4, steps=150, n_test=200)
    assert s.losses[-10:].mean() < s.losses[:10].mean()
    assert 0 <= s.digit_accuracy <= 1 and s.position_accuracy.shape == (4,)


def test_bad_model_and_counts_are_named():
    with pytest.raises(ValueError, match="model must be one of"):
        rv.train_reversal("lstm", size=4, n_digits=4, steps=1)
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        rv.train_reversal("summary", size=4, n_digits=4, steps=0)
    with pytest.raises(TypeError, match="n_digits must be a positive integer"):
        rv.reversal_strings(3, 2.5, seed=0)
