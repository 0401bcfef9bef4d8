"""The attention explorer's Python side: stored scores, config, states and fixture."""

import base64
import json
import re

import numpy as np
import pytest

from booktools.formatting import DECIMALS, fmt
from booktools.head_weights import MEAN, head_weights
from booktools.labs.explorer import (
    DEFAULT,
    GALLERY,
    TEMPERATURE,
    VIRIDIS,
    compact_scores,
    decode_scores,
    encode_scores,
    explorer_config,
    explorer_fixture,
    explorer_lab,
    explorer_states,
    gallery_entry,
    payload_kb,
)
from selfattention import softmax

TOKENS = ["[CLS]", "the", "cat", "sat", "[SEP]"]


def random_scores(seed=0, layers=3, heads=4, L=len(TOKENS), scale=4.0):  # noqa: B008
    return np.random.default_rng(seed).normal(0.0, scale, size=(layers, heads, L, L)).astype(np.float32)


def entries(n=4, **kw):
    return [gallery_entry(f"Sentence {i}.", TOKENS, random_scores(seed=i, **kw), focus="cat")
            for i in range(n)]


def _json_block(markup: str, css_class: str) -> dict:
    m = re.search(rf'<script type="application/json" class="{css_class}"[^>]*>(.*?)</script>', markup, re.S)
    assert m, f"no {css_class} block"
    return json.loads(m.group(1))


# ---------------------------------------------------------------------------
# Stored scores
# ---------------------------------------------------------------------------


def test_compact_scores_subtracts_each_row_max_and_keeps_the_weights():
    s = random_scores()
    stored = compact_scores(s)
    assert stored.dtype == np.float16 and stored.shape == s.shape
    np.testing.assert_array_equal(stored.max(axis=-1), 0.0)
    np.testing.assert_allclose(softmax(stored.astype(np.float64)), softmax(s.astype(np.float64)),
                               atol=5e-4)


@pytest.mark.parametrize("bad, message", [
    (np.zeros((2, 3, 3)), "shape"),
    (np.zeros((1, 1, 2, 3)), "shape"),
    (np.zeros((1, 0, 2, 2)), "shape"),
    (np.full((1, 1, 2, 2), np.nan), "finite"),
    (np.array([[[["a", "b"], ["c", "d"]]]]), "real numbers"),
])
def test_compact_scores_rejects_bad_input(bad, message):
    with pytest.raises(ValueError, match=message):
        compact_scores(bad)


def test_scores_round_trip_through_base64_as_little_endian_float16():
    stored = compact_scores(random_scores())
    text = encode_scores(stored)
    raw = base64.b64decode(text)
    assert len(raw) == 2 * stored.size
    assert raw[:2] == stored.reshape(-1)[:1].astype("<f2").tobytes()
    np.testing.assert_array_equal(decode_scores(text, stored.shape), stored)


def test_decode_scores_explains_bad_text():
    with pytest.raises(ValueError, match="not valid base64"):
        decode_scores("not base64!", (1, 1, 1, 1))
    with pytest.raises(ValueError, match="holds 1 float16 numbers but shape"):
        decode_scores(encode_scores(np.zeros((1, 1, 1, 1))), (1, 1, 2, 2))


# ---------------------------------------------------------------------------
# Gallery entries, config and markup
# ---------------------------------------------------------------------------


def test_gallery_entry_finds_the_focus_and_stores_compact_scores():
    s = random_scores()
    e = gallery_entry("The cat sat.", TOKENS, s, focus="cat")
    assert e["text"] == "The cat sat." and e["tokens"] == TOKENS
    assert e["focus"] == 2 and e["shape"] == list(s.shape)
    np.testing.assert_array_equal(decode_scores(e["scores"], e["shape"]), compact_scores(s))
    assert gallery_entry("The cat sat.", TOKENS, s, focus=4)["focus"] == 4


@pytest.mark.parametrize("sentence, tokens, focus, message", [
    ("", TOKENS, 0, "non-empty"),
    ("A.", TOKENS[:-1], 0, "do not match 4 tokens"),
    ("A.", ["[CLS]", "a", "a", "b", "[SEP]"], "a", "must occur once"),
    ("A.", TOKENS, "dog", "must occur once"),
    ("A.", TOKENS, 5, "position 0..4"),
    ("A.", TOKENS, True, "position 0..4"),
])
def test_gallery_entry_rejects_bad_input(sentence, tokens, focus, message):
    with pytest.raises(ValueError, match=message):
        gallery_entry(sentence, tokens, random_scores(), focus=focus)


def test_config_holds_everything_the_lab_needs():
    c = explorer_config(entries(), sentence=1, layer=2, head=MEAN)
    assert (c["layers"], c["heads"]) == (3, 4)
    assert c["start"] == {"sentence": 1, "layer": 2, "head": MEAN}
    assert c["temperature"] == TEMPERATURE and c["temperature"]["min"] <= 0.5
    assert c["temperature"]["max"] >= 2.0 and c["temperature"]["value"] == 1.0
    assert c["decimals"] == DECIMALS["weights"] and c["mean"] == MEAN
    assert c["colours"] == list(VIRIDIS)
    json.dumps(c, allow_nan=False)  # plain JSON


@pytest.mark.parametrize("kw, message", [
    ({"sentence": 4}, "sentence must be 0..3"),
    ({"layer": 3}, "layer must be 0..2"),
    ({"layer": 0, "head": 4}, "head must be 0..3"),
])
def test_config_rejects_a_start_out_of_range(kw, message):
    with pytest.raises(ValueError, match=message):
        explorer_config(entries(), **kw)


def test_config_rejects_no_sentences_and_mixed_models():
    with pytest.raises(ValueError, match="at least one sentence"):
        explorer_config([])
    mixed = entries(2) + entries(1, heads=2)
    with pytest.raises(ValueError, match="same layers and heads"):
        explorer_config(mixed, layer=0, head=0)


def test_colours_are_viridis_from_0_to_1():
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps["viridis"]
    expected = [to_hex(cmap(k / (len(VIRIDIS) - 1))) for k in range(len(VIRIDIS))]
    got = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in VIRIDIS])
    want = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in expected])
    assert np.abs(got - want).max() <= 1


def test_lab_markup_is_a_container_with_data_and_no_code():
    config = explorer_config(entries(), layer=0)
    markup = explorer_lab(config, lab_id='x"y').markup
    assert markup.startswith('<div class="sa-lab" data-lab="explorer" id="x&quot;y">')
    assert markup.endswith("</div>") and 'class="sa-lab-fallback"' in markup
    assert re.findall(r"<script[^>]*>", markup) == ['<script type="application/json" class="sa-lab-config">']
    assert not re.search(r"\son[a-z]+=", markup)
    assert _json_block(markup, "sa-lab-config") == config
    with pytest.raises(ValueError, match="no sentences"):
        explorer_lab({})


# ---------------------------------------------------------------------------
# Test states and fixture
# ---------------------------------------------------------------------------


def test_states_cover_the_lab_and_show_the_right_row():
    config = explorer_config(entries(), layer=1, head=0)
    states = {s["name"]: s for s in explorer_states(config)}
    actions = [s["action"] for s in states.values()]
    assert {a["temperature"] for a in actions} >= {0.5, 1.0, 2.0}
    assert any(a["head"] == MEAN for a in actions)
    assert len({a["sentence"] for a in actions}) >= 3
    assert len({(a["layer"], a["head"]) for a in actions}) >= 3
    focus = config["sentences"][0]["focus"]
    assert states["start"]["row"] == focus
    assert states["hover a token"]["row"] == states["hover a token"]["action"]["hover"]
    assert states["lock a token"]["row"] == states["lock a token"]["action"]["lock"]
    ignore = states["locked row ignores hover"]
    assert ignore["row"] == ignore["action"]["lock"] != ignore["action"]["hover"]


def test_state_numbers_are_the_package_weights_of_the_stored_scores():
    config = explorer_config(entries(), layer=1, head=0)
    for s in explorer_states(config):
        a = s["action"]
        e = config["sentences"][a["sentence"]]
        w = head_weights(decode_scores(e["scores"], e["shape"]), a["layer"], a["head"],
                         temperature=a["temperature"])
        assert s["matrix"] == [[fmt(v, DECIMALS["weights"]) for v in row] for row in w], s["name"]
        assert s["strip"] == s["matrix"][s["row"]]
        assert len(s["matrix"]) == len(e["tokens"])


def test_states_need_three_sentences():
    with pytest.raises(ValueError, match="3 sentences"):
        explorer_states(explorer_config(entries(2), layer=0))


def test_fixture_holds_the_tokens_and_the_states_of_its_config():
    config = explorer_config(entries(), layer=1)
    data = explorer_fixture(config)
    assert data["tokens"] == [TOKENS] * 4
    assert data["states"] == explorer_states(config)
    assert "sa-fixture" not in explorer_lab(config).markup  # nothing for the tests in the page


# ---------------------------------------------------------------------------
# The real gallery
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_gallery():
    from selfattention import minilm

    encodings = [minilm.encode(s) for s, _ in GALLERY]
    gallery = [gallery_entry(s, e.tokens, e.scores, focus=f) for (s, f), e in zip(GALLERY, encodings)]
    return encodings, gallery


def test_gallery_sentences_are_short_and_start_on_the_referent_game(real_gallery):
    encodings, gallery = real_gallery
    assert len(gallery) >= 8
    assert "it was too wide" in GALLERY[DEFAULT["sentence"]][0]
    assert gallery[DEFAULT["sentence"]]["tokens"][gallery[DEFAULT["sentence"]]["focus"]] == "it"
    assert max(len(e.tokens) for e in encodings) <= 17
    assert payload_kb(explorer_config(gallery)) < 250  # the page's budget is 600 KB in all


def test_stored_scores_give_the_model_weights_to_the_third_decimal(real_gallery):
    encodings, gallery = real_gallery
    for e, entry in zip(encodings, gallery):
        stored = decode_scores(entry["scores"], entry["shape"])
        for layer in range(stored.shape[0]):
            w = softmax(stored[layer].astype(np.float64))  # (heads, L, L)
            assert np.abs(w - e.attentions[layer]).max() < 5e-4
