"""The generation stepper's config and test states come from the package."""

import numpy as np
import pytest

import selfattention as sa
from booktools.labs import fixture
from booktools.labs.generation import generation_config, generation_lab, generation_states, weights


def test_the_config_is_the_tiny_decoders_greedy_text():
    config = generation_config()
    ids = sa.generate(sa.tiny_decoder(), [sa.VOCAB.index(w) for w in ("the", "cat", "sat")], 3)
    assert config["tokens"] == [sa.VOCAB[i] for i in ids]
    assert np.shape(config["q"]) == np.shape(config["k"]) == (6, sa.tiny_decoder().d_head)


def test_the_weights_at_t_tokens_are_the_corner_of_the_full_table():
    config = generation_config()
    full = weights(config, 6)
    for t in range(3, 7):
        np.testing.assert_allclose(weights(config, t), full[:t, :t], atol=1e-12)


def test_the_counts_follow_scores_per_step():
    states = {s["name"]: s for s in generation_states(generation_config())}
    assert states["start"]["total"] == 6 and states["start"]["computed"][2] == [True, True, True]
    end = states["to the end"]
    assert end["total"] == 6 + 4 + 5 + 6 and end["kept"] == generation_config()["tokens"]
    assert sum(map(sum, end["computed"])) == 6  # only the last row
    recompute = states["to the end, then recompute"]
    assert recompute["total"] == 6 + 10 + 15 + 21 and recompute["kept"] == []
    assert states["past the end stays"]["t"] == 6 and states["back past the prompt stays"]["t"] == 3


def test_the_fixture_and_the_element():
    assert len(fixture("generation", generation_config())["states"]) == 8
    assert 'data-lab="generation"' in generation_lab().markup
    with pytest.raises(ValueError, match="not in the vocabulary"):
        generation_config(("the", "zebra"))
    with pytest.raises(ValueError, match="2 to 6 tokens"):
        generation_config(steps=4)
