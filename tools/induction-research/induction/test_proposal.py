"""Tests of the proposal: gradients against finite differences, determinism, the task's promises."""

import numpy as np
import pytest

from induction import gradients, model, task, training


@pytest.mark.parametrize("positions", ["qk0", "qk", "stream"])
@pytest.mark.parametrize("heads", [(2, 1), (2, 2), (1, 1)])
def test_every_parameter_matches_finite_differences(positions, heads):
    sizes = model.SIZES._replace(positions=positions, heads=heads)
    tokens = task.copying_batch(3, np.random.default_rng(0)).tokens
    assert gradients.check_gradients(model.init_params(3, sizes), tokens, sizes=sizes, per_parameter=8) < 1e-8


def test_the_same_seed_gives_the_same_bits():
    a, b = training.train(steps=4, eval_every=2), training.train(steps=4, eval_every=2)
    assert training.digest(a["params"]) == training.digest(b["params"])
    assert training.digest(training.train(steps=4, seed=1, eval_every=2)["params"]) != training.digest(a["params"])


def test_every_marked_prediction_is_determined_by_its_key():
    for b in (task.copying_batch(200, np.random.default_rng(1)),
              task.classic_mix(200, np.random.default_rng(2))):
        rows, t = np.nonzero(b.second)
        assert (b.tokens[rows, t + 1] == b.tokens[rows, b.key[rows, t]]).all()
        assert (b.tokens[rows, t] == b.tokens[rows, b.key[rows, t] - 1]).all()
        assert not (b.first & b.second).any()


def test_copies_stand_anywhere_with_any_gap():
    b = task.copying_batch(2000, np.random.default_rng(3))
    rows, t = np.nonzero(b.second)
    distance = t + 1 - b.key[rows, t]
    assert distance.min() == 2 and distance.max() >= 28
    assert t.min() == 2 and t.max() == task.TASK.n_positions - 2


def test_ablating_a_head_changes_only_what_it_adds():
    params, tokens = model.init_params(0), task.copying_batch(2, np.random.default_rng(0)).tokens
    _, full = model.forward(params, tokens)
    _, cut = model.forward(params, tokens, ablate=[(1, 0)])
    np.testing.assert_array_equal(full[1]["x"], cut[1]["x"])          # layer 0 untouched
    np.testing.assert_allclose(cut[1]["x_out"], cut[1]["x"])           # the only layer-1 head adds nothing


from pathlib import Path

from induction import circuits

WEIGHTS = Path(__file__).with_name("weights.npz")


def test_a_short_retraining_repeats_the_shipped_run():
    shipped = training.load(WEIGHTS)
    prefix = training.train(steps=25, eval_every=25, schedule_steps=int(shipped["meta"]["steps"]))
    np.testing.assert_allclose(prefix["loss"], shipped["loss"][:25], rtol=1e-13, atol=0)


def test_the_shipped_head_passes_the_classic_test_at_a_few_places():
    shipped = training.load(WEIGHTS)
    for k, offset in ((4, 0), (4, 12), (8, 3), (12, 7), (16, 0)):
        batch = task.classic_batch(k, offset, 64, np.random.default_rng(k * 100 + offset))
        scores, first, second = circuits._scores_and_losses(shipped["params"], batch, shipped["sizes"])
        assert scores[1, 0] >= 0.6 and second <= first / 4, (k, offset, scores[1, 0], second / first)
