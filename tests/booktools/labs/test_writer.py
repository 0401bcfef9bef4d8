"""The writer lab's configuration: no weights in the page, the file's float16 numbers exactly, the tokenizer's ids."""

import base64

import numpy as np
import pytest

from booksite.labdata import LIMIT_BYTES, move_large_configs
from booktools.labs import FIXTURES, fixture
from booktools.labs.contract import CONFIG_BLOCK
from booktools.labs.writer import (
    DEFAULTS,
    MODEL,
    PROMPTS,
    SAMPLING,
    STEPS,
    check_settings,
    ids_text,
    package_settings,
    prompt_ids,
    step_distribution,
    writer_config,
    writer_lab,
    writer_states,
    writer_weights,
)
from selfattention.writer import CharTokenizer, load_writer, weights_digest, write
from selfattention.writer.model import NAMES
from selfattention.writer.tokenizer import UNKNOWN


@pytest.fixture(scope="module")
def run():
    return load_writer()


@pytest.fixture(scope="module")
def config(run):
    return writer_config(run=run)


@pytest.fixture(scope="module")
def markup(run):
    return writer_lab(run=run).markup


def decoded(weights: dict) -> dict[str, np.ndarray]:
    return {name: np.frombuffer(base64.b64decode(e["data"], validate=True), dtype="<f2").astype(np.float64)
            for name, e in weights["params"].items()}


def test_the_weights_travel_as_the_files_own_float16_numbers(run):
    """Every number the browser decodes is the package's float64 number, bit for bit, in the package's order."""
    weights = writer_weights(run)
    assert list(weights["params"]) == list(NAMES)
    for name, flat in decoded(weights).items():
        want = run["params"][name]
        rows, cols = weights["params"][name]["shape"]
        assert rows * cols == want.size and cols == want.shape[-1]
        np.testing.assert_array_equal(flat.reshape(want.shape), want)
    assert weights["digest"] == weights_digest(run["params"])


def test_numbers_that_are_not_float16_are_refused(run):
    params = {**run["params"], "W_U": run["params"]["W_U"] + 1e-5}
    with pytest.raises(ValueError, match="W_U holds numbers that are not float16"):
        writer_weights({**run, "params": params})


def test_the_page_holds_no_weights_and_the_build_moves_them_to_a_file_of_the_size_it_says(config, markup):
    """The configuration stays in the page (small); the weights' block goes to its own file, whose bytes the
    button announces; the lab's own configuration block comes first, as sa.js reads it."""
    blocks = list(CONFIG_BLOCK.finditer(markup))
    assert len(blocks) == 2
    assert CONFIG_BLOCK.match(markup, markup.index(">") + 1).span() == blocks[0].span()  # right after the tag
    assert len(blocks[0]["body"].encode()) <= LIMIT_BYTES and '"params"' not in blocks[0]["body"]
    page, files = move_large_configs(markup, "a-model-that-writes")
    assert list(files) == ["_labdata/a-model-that-writes-1.json"]
    assert len(files["_labdata/a-model-that-writes-1.json"].encode("utf-8")) == config["weightsBytes"]
    assert 'data-src="_labdata/a-model-that-writes-1.json"' in page and blocks[0].group(0) in page
    assert config["weightsBytes"] < 4 / 3 * 2 * config["parameters"] + 4096   # base64 of two bytes a number
    assert "Greedy, the model continues" in markup and f"{round(config['weightsBytes'] / 1000)} kB" in markup


def test_the_config_says_the_models_sizes_and_tokenizer(run, config):
    sizes = run["sizes"]
    assert config["chars"] == run["tokenizer"].chars and config["unknown"] == UNKNOWN
    assert config["sizes"] == {"vocab": sizes.vocab, "nPositions": sizes.n_positions, "dModel": sizes.d_model,
                               "heads": sizes.heads, "layers": sizes.layers, "dFf": sizes.d_ff, "dHead": sizes.d_head}
    assert len(config["chars"]) + 1 == sizes.vocab == 108 and config["parameters"] == 221_056
    assert config["shapes"]["W_Q"] == [4, 64, 64] and config["lnEps"] == 1e-5
    assert config["defaults"] == {**DEFAULTS, "prompt": run["meta"]["sample_prompt"]}


def test_prompts_round_trip_and_unknown_characters_become_the_unknown_symbol(config):
    tok = CharTokenizer(config["chars"])
    known = "The weights of a head: softmax(q·k / √d) → 0.5"
    assert prompt_ids(config, known) == tok.encode(known).tolist()
    assert ids_text(config, prompt_ids(config, known)) == known
    strange = "café ☕ 𝔸!"                                # é and ☕ unknown; 𝔸 is one character outside the BMP
    ids = prompt_ids(config, strange)
    assert len(ids) == len(strange) == 9
    assert [i == tok.unknown_id for i in ids] == [c not in config["chars"] for c in strange]
    assert ids_text(config, ids) == "".join(c if c in config["chars"] else UNKNOWN for c in strange)


@pytest.mark.parametrize("bad, message", [
    ({"temperature": -0.5}, "temperature must be 0 .greedy. to 5.0"),
    ({"temperature": 6}, "temperature must be"),
    ({"topK": 109}, "topK must be a whole number from 0 .none. to 108"),
    ({"topK": 2.5}, "topK must be a whole number"),
    ({"topP": 0}, "topP must be above 0 and at most 1"),
    ({"topP": 1.5}, "topP must be above 0"),
    ({"seed": -1}, "seed must be a whole number from 0 to 4294967295"),
    ({"layer": 4}, "layer must be 0 to 3"),
    ({"head": -1}, "head must be 0 to 3"),
    ({"prompt": ""}, "prompt must be at least one character"),
    ({"colour": "blue"}, "no default 'colour'"),
])
def test_bad_defaults_are_named(run, bad, message):
    with pytest.raises(ValueError, match=message):
        writer_config(run=run, defaults=bad)


def test_the_labs_none_are_the_packages_none():
    assert package_settings({"temperature": 1, "topK": 0, "topP": 1}) == {"temperature": 1.0, "top_k": None,
                                                                         "top_p": None}
    assert package_settings({"temperature": 0.5, "topK": 7, "topP": 0.9}) == {"temperature": 0.5, "top_k": 7,
                                                                             "top_p": 0.9}
    assert check_settings({"temperature": 0, "topK": 108, "topP": 1}, 108)["topK"] == 108


def test_the_fixture_refuses_other_weights(run, config):
    other = {**config, "digest": "0" * 64}
    with pytest.raises(ValueError, match="rebuild the book"):
        fixture("writer", other)
    assert FIXTURES["writer"].__name__ == "writer_fixture"


def test_the_states_are_the_packages_greedy_writing(run, config):
    """Each state is write()'s greedy text, with the cache and without it; its weights cover what was read."""
    states = writer_states(config, run=run)
    assert [s["name"] for s in states] == [name for name, _ in PROMPTS]
    n = config["sizes"]["nPositions"]
    for state in states:
        ids = state["ids"]
        full = write(run["params"], ids, STEPS, run["sizes"], temperature=0.0, cache=False)
        assert ids_text(config, full["ids"]) == state["text"] and len(state["written"]) == STEPS
        assert [w.shape[-1] for w in state["weights"]] == [min(len(ids) + s, n) for s in range(STEPS)]
        np.testing.assert_allclose(state["model"][0], step_distribution(config, ids, MODEL, run=run)["probs"],
                                   rtol=0, atol=1e-15)
        assert (state["probs"].max(axis=1) == 1).all()                      # greedy: all on one character
    assert UNKNOWN in states[1]["text"] and len(states[2]["ids"]) > n and len(states[3]["ids"]) + STEPS > n


def test_the_sampling_states_keep_what_top_k_and_top_p_keep(run, config):
    """Each distribution keeps the likeliest characters only (top-k, then the fewest that reach top-p), in the
    proportions of softmax(logits / T)."""
    f = fixture("writer", config)
    assert [s["settings"] for s in f["sampling"]] == list(SAMPLING)
    model = step_distribution(config, prompt_ids(config, f["prompt"]), MODEL, run=run)["probs"]
    order = np.argsort(-model, kind="stable")
    for s in f["sampling"]:
        probs, settings = s["probs"], s["settings"]
        kept = np.count_nonzero(probs)
        assert set(np.flatnonzero(probs)) == set(order[:kept].tolist())       # the likeliest, nothing else
        assert np.isclose(probs.sum(), 1.0, rtol=0, atol=1e-15)
        if settings["temperature"] == 0:
            assert kept == 1
            continue
        tempered = model[order[:kept]] ** (1 / settings["temperature"])
        np.testing.assert_allclose(probs[order[:kept]], tempered / tempered.sum(), rtol=1e-12)
        if settings["topK"]:
            assert kept <= settings["topK"]
        if settings["topP"] < 1:
            before_top_p = model[order[:settings["topK"] or None]] ** (1 / settings["temperature"])
            mass = np.cumsum(before_top_p / before_top_p.sum())
            assert settings["topP"] <= mass[kept - 1] and (kept == 1 or mass[kept - 2] < settings["topP"])
