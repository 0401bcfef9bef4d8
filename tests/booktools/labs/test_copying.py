"""The copying lab's configuration: small float16 parameters that keep the shipped model's guesses, case kept."""

import json

import numpy as np
import pytest

from booktools.labs import fixture
from booktools.labs.copying import (
    EXAMPLES,
    ROUNDING_TOLERANCE,
    config_params,
    config_sizes,
    copying_config,
    copying_lab,
    decode_matrices,
    encode_matrices,
    prediction,
)
from selfattention.induction import training
from selfattention.induction.model import SIZES, forward, init_params
from selfattention.induction.task import TASK, classic_mix, copying_batch
from selfattention.softmax import softmax


@pytest.fixture(scope="module")
def run():
    return training.load()


@pytest.fixture(scope="module")
def config(run):
    return copying_config(run=run)


def test_the_payload_is_float16_and_small(config):
    """Two bytes a parameter, as base64: under 100 KB for the page's 600 KB budget (JSON at six digits: 320 KB)."""
    n = sum(np.prod(e["shape"]) for e in config["params"].values())
    assert n == sum(v.size for v in training.load()["params"].values())
    params_bytes = sum(len(e["data"]) for e in config["params"].values())
    assert params_bytes <= 4 * np.ceil(2 * n / 3) + 4 * len(config["params"])
    assert len(json.dumps(config).encode()) / 1024 < 100


def test_float16_moves_no_probability_past_the_tolerance(run, config):
    """On the classic test and on the training task, every probability of the page's model is within the
    tolerance of the shipped model's, and the guess is the same wherever the top two are not within it."""
    full, page = run["params"], config_params(config)
    for batch in (classic_mix(300, np.random.default_rng(11)), copying_batch(300, np.random.default_rng(12), TASK)):
        p_full, p_page = softmax(forward(full, batch.tokens)[0]), softmax(forward(page, batch.tokens)[0])
        assert np.abs(p_full - p_page).max() <= ROUNDING_TOLERANCE
        top2 = np.sort(p_full, axis=-1)[..., -2:]
        clear = top2[..., 1] - top2[..., 0] > 2 * ROUNDING_TOLERANCE
        assert (p_full.argmax(-1) == p_page.argmax(-1))[clear].all()


def test_the_config_says_the_models_sizes_and_heads(run, config):
    assert config_sizes(config) == run["sizes"] == SIZES
    assert config["alphabet"] == "A to Z and a to z" and config["symbols"] == TASK.symbols
    assert config["digest"] == training.digest(run["params"])
    assert [tuple(p) for p in config["heads"]] == [(0, config["heads"][0][1]), (1, config["heads"][1][1])]
    assert [(e["name"], e["text"]) for e in config["examples"]] == list(EXAMPLES)


def test_case_is_kept_and_spaces_are_dropped(config):
    lower, upper = prediction(config, "qz kab cdeab", 0), prediction(config, "QZ KAB CDEAB", 0)
    assert (lower["text"], upper["text"]) == ("qzkabcdeab", "QZKABCDEAB")
    assert prediction(config, "Ab" * 16, 0) is None                         # full: nothing to guess


def test_the_examples_are_classic_repeats(config):
    """Each example repeats the start of an earlier run of letters (its first copy), and no other letter twice."""
    first, short, start = (e["text"] for e in config["examples"])
    assert first[2:10] + first[2:5] == first[2:] and start[:3] == start[8:]             # k = 8, offsets 2 and 0
    assert short[-2:] == short[-5:-3]                                                    # k = 3, right after
    for text, copied in ((first, 3), (short, 2), (start, 3)):
        assert len(set(text)) == len(text) - copied


def test_bad_heads_and_examples_are_named(run):
    with pytest.raises(ValueError, match="later layer"):
        copying_config(heads=((1, 0), (0, 0)), run=run)
    with pytest.raises(ValueError, match="no head"):
        copying_config(heads=((0, 2), (1, 0)), run=run)
    with pytest.raises(ValueError, match="case matters"):
        copying_config(heads=((0, 0), (1, 0)), examples=(("digits", "Ab9"),), run=run)
    with pytest.raises(ValueError, match="1 to 31 symbols"):
        copying_config(heads=((0, 0), (1, 0)), examples=(("too long", "Ab" * 16),), run=run)
    with pytest.raises(ValueError, match="a name"):
        copying_config(heads=((0, 0), (1, 0)), examples=(("", "Ab"),), run=run)


def test_another_design_needs_no_other_config(run):
    """The lab reads the sizes it is given: a model whose positions are in the stream, with three layers."""
    sizes = SIZES._replace(heads=(1, 2, 1), positions="stream")
    other = {"params": init_params(0, sizes), "sizes": sizes, "task": TASK}
    config = copying_config(heads=((0, 0), (2, 0)), run=other)
    assert config["sizes"]["heads"] == [1, 2, 1] and config["sizes"]["positions"] == "stream"
    state = fixture("copying", config)["states"][1]
    assert len(state["shown"]["weights"]) == 2 and len(state["shown"]["text"]) == len(EXAMPLES[0][1]) + 2


def test_float16_round_trips_and_overflow_is_named():
    values = {"W": np.array([[1.5, -2.25e-3, 0.0], [65504.0, -1e-7, 3.0]])}
    np.testing.assert_allclose(decode_matrices(encode_matrices(values))["W"], values["W"], rtol=2.0**-11,
                               atol=2.0**-25)
    with pytest.raises(ValueError, match="too large for float16"):
        encode_matrices({"W": [[1e6]]})
    with pytest.raises(ValueError, match="must be 2-D"):
        encode_matrices({"b": [1.0, 2.0]})


def test_the_element_has_a_fallback_with_the_first_guess(config):
    markup = copying_lab(heads=[tuple(p) for p in config["heads"]]).markup
    assert 'data-lab="copying"' in markup and f"After reading {EXAMPLES[0][1]}, the model guesses" in markup
