import json
import re

import numpy as np
import pytest

import selfattention as sa
from booktools.formatting import DECIMALS
from booktools.labs.weighted_average import (
    BIG_STEP,
    LIMITS,
    STEP,
    weighted_average_config,
    weighted_average_fixture,
    weighted_average_lab,
    weighted_average_states,
    weighted_average_tables,
)

X = sa.three_words()
WORDS = list(sa.WORDS)
CONFIG = weighted_average_config(X, WORDS)


def _json_block(markup: str, css_class: str) -> dict:
    m = re.search(rf'<script type="application/json" class="{css_class}"[^>]*>(.*?)</script>', markup, re.S)
    assert m, f"no {css_class} block in {markup[:120]}"
    return json.loads(m.group(1))


def _numbers(table) -> np.ndarray:
    return np.array([[float(v) for v in row] for row in table])


def test_lab_is_a_container_with_config_and_fallback():
    markup = weighted_average_lab(X, WORDS, lab_id="my-lab").markup
    assert markup.startswith('<div class="sa-lab" data-lab="weighted-average" id="my-lab">')
    assert markup.endswith("</div>")
    assert 'class="sa-lab-fallback"' in markup
    assert "<script>" not in markup and "onclick" not in markup
    config = _json_block(markup, "sa-lab-config")
    assert config == weighted_average_config(X, WORDS)
    assert config["words"] == WORDS
    assert config["x"] == X.tolist()
    assert config["decimals"] == DECIMALS
    assert config["d_k"] == 2
    assert config["step"] == STEP and config["big_step"] == BIG_STEP
    assert config["limits"] == list(LIMITS)
    assert config["colours"] == ["#0072B2", "#E69F00", "#009E73"]
    assert len(set(config["shapes"])) == 3


def test_lab_id_is_escaped():
    markup = weighted_average_lab(X, WORDS, lab_id='a"b').markup
    assert 'id="a&quot;b"' in markup


def test_presets_move_car_far_and_put_all_words_together():
    presets = {p["id"]: p for p in weighted_average_config(X, WORDS)["presets"]}
    assert presets["far"]["label"] == "car becomes [5, 5]"
    assert presets["far"]["x"] == [[2.0, 0.0], [1.0, 1.0], [5.0, 5.0]]
    assert presets["same"]["label"] == "all three the same"
    assert presets["same"]["x"] == [X.mean(axis=0).tolist()] * 3
    lo, hi = LIMITS
    for p in presets.values():
        assert lo <= np.min(p["x"]) and np.max(p["x"]) <= hi


def test_tables_match_the_chapter():
    t = weighted_average_tables(X, WORDS)
    assert t["x"] == [["2.00", "0.00"], ["1.00", "1.00"], ["0.00", "2.00"]]
    assert t["scores"][0] == ["2.83", "1.41", "0.00"]
    assert t["weights"] == [["0.768", "0.187", "0.045"], ["0.333"] * 3, ["0.045", "0.187", "0.768"]]
    assert t["output"][0] == ["1.72", "0.28"]


@pytest.mark.parametrize("scaled", [True, False])
def test_tables_agree_with_a_direct_computation(scaled):
    x = np.array([[0.7, -1.0], [4.2, 0.3], [1.1, 5.9]])
    scores = x @ x.T / (np.sqrt(2) if scaled else 1.0)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    expected = {"x": x, "scores": scores, "weights": weights, "output": weights @ x}
    tables = weighted_average_tables(x, WORDS, scaled=scaled)
    for name, values in expected.items():
        half_unit = 0.5 * 10.0 ** -DECIMALS[name]
        np.testing.assert_allclose(_numbers(tables[name]), values, rtol=0, atol=half_unit + 1e-12)
        assert all(len(v.split(".")[1]) == DECIMALS[name] for row in tables[name] for v in row)


def test_unscaled_scores_are_raw_dot_products():
    assert weighted_average_tables(X, WORDS, scaled=False)["scores"][0] == ["4.00", "2.00", "0.00"]


def test_states_cover_every_kind_of_action():
    states = weighted_average_states(CONFIG)
    kinds = [s["action"]["kind"] for s in states]
    assert kinds.count("initial") == 1
    assert {s["action"]["preset"] for s in states if s["action"]["kind"] == "preset"} == {"far", "same"}
    assert {"kind": "scale", "on": False} in [s["action"] for s in states]
    assert kinds.count("drag") >= 3 and kinds.count("keys") >= 3
    assert len({s["name"] for s in states}) == len(states)


def test_state_tables_are_the_package_tables_of_their_points():
    for s in weighted_average_states(CONFIG):
        assert s["tables"] == weighted_average_tables(s["x"], WORDS, scaled=s["scaled"]), s["name"]


def test_drag_targets_are_on_the_grid_and_only_move_one_word():
    lo, hi = LIMITS
    for s in weighted_average_states(CONFIG):
        if s["action"]["kind"] != "drag":
            continue
        word, to = s["action"]["word"], s["action"]["to"]
        assert s["x"][word] == to
        assert all(lo <= v <= hi and abs(v / STEP - round(v / STEP)) < 1e-9 for v in to)
        others = [i for i in range(3) if i != word]
        assert [s["x"][i] for i in others] == [X[i].tolist() for i in others]


def test_arrow_keys_step_and_stop_at_the_edge():
    by_word = {s["action"]["word"]: s for s in weighted_average_states(CONFIG)
               if s["action"]["kind"] == "keys"}
    assert by_word[0]["action"]["keys"] == ["ArrowUp"] * 5
    assert by_word[0]["x"][0] == [2.0, 0.5]
    assert by_word[1]["x"][1] == [0.7, 3.0]  # three small steps left, two big steps up
    assert by_word[2]["x"][2] == [0.1, LIMITS[0]]  # four big steps down stop at the edge


def test_preset_tables_show_the_chapter_claims():
    states = {s["action"].get("preset"): s for s in weighted_average_states(CONFIG)}
    assert states["same"]["tables"]["weights"] == [["0.333"] * 3] * 3
    car_row = _numbers(states["far"]["tables"]["weights"])[2]
    np.testing.assert_allclose(car_row, [0, 0, 1], atol=1e-3)


def test_fixture_holds_the_words_and_the_states_of_its_config():
    data = weighted_average_fixture(CONFIG)
    assert data == {"words": WORDS, "states": weighted_average_states(CONFIG)}
    assert "sa-fixture" not in weighted_average_lab(X, WORDS).markup  # nothing for the tests in the page


@pytest.mark.parametrize("x, words, message", [
    (np.zeros((3, 3)), WORDS, "shape"),
    (np.zeros(6), WORDS, "shape"),
    (np.zeros((3, 2)), ["cat", "dog"], "3 rows but 2 words"),
    (np.zeros((4, 2)), ["a", "b", "c", "d"], "2 or 3 words"),
    (np.zeros((3, 2)), ["cat", "cat", "car"], "distinct"),
    (np.array([[2, 0], [1, 1], [0, 7]]), WORDS, "plane"),
    (np.array([[2, 0], [1, np.nan], [0, 2]]), WORDS, "plane"),
])
def test_bad_input_raises_a_clear_error(x, words, message):
    for make in (weighted_average_lab, weighted_average_config, weighted_average_tables):
        with pytest.raises(ValueError, match=message):
            make(x, words)
    bad = {**CONFIG, "x": np.asarray(x).tolist(), "words": words}
    with pytest.raises(ValueError, match=message):
        weighted_average_states(bad)


def test_fixture_needs_three_words():
    with pytest.raises(ValueError, match="3 words"):
        weighted_average_fixture(weighted_average_config([[1, 0], [0, 1]], ["a", "b"]))
    assert len(weighted_average_config([[1, 0], [0, 1]], ["a", "b"])["presets"]) == 2
