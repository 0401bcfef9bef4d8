import json
import re

import pytest

from booktools.formatting import format_count
from booktools.labs.grid import N_MAX, N_MIN, N_START, grid_config, grid_fixture, grid_lab, grid_states
from selfattention.cost import score_count


def _json_block(markup: str, css_class: str) -> dict:
    m = re.search(rf'<script type="application/json" class="{css_class}"[^>]*>(.*?)</script>', markup, re.S)
    assert m, f"no {css_class} block in {markup[:120]}"
    return json.loads(m.group(1))


def test_lab_is_a_container_with_config_and_fallback_and_no_script():
    markup = grid_lab(lab_id="my-grid").markup
    assert markup.startswith('<div class="sa-lab" data-lab="grid" id="my-grid">')
    assert markup.endswith("</div>")
    assert "<script>" not in markup and "onclick" not in markup
    assert 'class="sa-lab-fallback"' in markup and "4,096" in markup  # readable without JavaScript
    config = _json_block(markup, "sa-lab-config")
    assert config == grid_config()
    assert (config["min"], config["max"], config["start"], config["step"]) == (N_MIN, N_MAX, N_START, 1)
    assert config["counts"] == {"4": "16", "64": "4,096"}


def test_lab_id_is_escaped():
    assert 'id="a&quot;b"' in grid_lab(lab_id='a"b').markup


def test_fixture_holds_the_package_count_for_every_reachable_n():
    data = grid_fixture(grid_config())
    assert (data["min"], data["max"]) == (N_MIN, N_MAX)
    assert sorted(map(int, data["counts"])) == list(range(N_MIN, N_MAX + 1))
    for n, text in data["counts"].items():
        assert int(text.replace(",", "")) == score_count(int(n)) == int(n) ** 2
    assert data["states"] == grid_states(grid_config())
    assert "sa-fixture" not in grid_lab().markup  # nothing for the tests in the page


def test_states_cover_keys_fill_and_buttons_with_the_right_counts():
    states = grid_states(grid_config())
    kinds = [s["action"]["kind"] for s in states]
    assert kinds[0] == "initial" and {"keys", "fill", "buttons"} <= set(kinds)
    assert sum(k == "keys" for k in kinds) >= 3 and sum(k == "fill" for k in kinds) >= 3
    by_name = {s["name"]: s for s in states}
    assert by_name["start"]["n"] == N_START
    assert by_name["keys ArrowRight ArrowRight ArrowRight ArrowRight ArrowRight ArrowRight ArrowRight "
                   "ArrowRight"]["n"] == N_START + 8
    assert by_name["keys End"]["n"] == N_MAX and by_name["keys Home"]["n"] == N_MIN
    assert by_name["keys Home ArrowLeft ArrowLeft"]["n"] == N_MIN  # clamped at the end
    assert by_name["keys End ArrowLeft"]["n"] == N_MAX - 1
    assert by_name["fill 13"]["count"] == "169"
    assert by_name["buttons double double double double"]["n"] == N_MAX  # the fourth press is disabled
    assert by_name["buttons halve halve"]["n"] == N_MIN
    for s in states:
        assert s["count"] == format_count(score_count(s["n"]))
        assert N_MIN <= s["n"] <= N_MAX


def test_doubling_quadruples_the_count():
    assert score_count(2 * N_START) == 4 * score_count(N_START)
    start = next(s for s in grid_states(grid_config()) if s["name"] == "buttons double")
    assert int(start["count"].replace(",", "")) == 4 * N_START**2


@pytest.mark.parametrize("args,error", [
    ((4, 4, 4), ValueError), ((1, 8, 4), ValueError), ((4, 300, 8), ValueError),
    ((4, 64, 65), ValueError), ((4.0, 64, 8), TypeError), ((4, 64, True), TypeError)])
def test_bad_ranges_raise(args, error):
    with pytest.raises(error):
        grid_config(*args)
    with pytest.raises(error):
        grid_states(dict(zip(("min", "max", "start"), args)))
