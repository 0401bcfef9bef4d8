import json
import re

import pytest

from booktools.labs.several_heads import (
    START_H,
    computed,
    several_heads_config,
    several_heads_fixture,
    several_heads_lab,
)


def _config_of(markup: str) -> dict:
    m = re.search(r'<script type="application/json" class="sa-lab-config"[^>]*>(.*?)</script>', markup, re.S)
    assert m, markup[:120]
    return json.loads(m.group(1))


def test_the_lab_opens_at_the_chapters_h_and_its_fallback_says_so():
    markup = several_heads_lab().markup
    config = _config_of(markup)
    assert config["start"] == START_H == 2
    weights = computed(config, START_H, 0)["weights"][0]
    assert f"With h = 2 heads, cat gives these weights in head 0: cat {weights[0]}," in markup


def test_the_fixture_holds_what_the_lab_shows_before_any_choice():
    config = several_heads_config()
    opens = several_heads_fixture(config)["opens"]
    assert (opens["h"], opens["head"], opens["projections"]) == (START_H, 0, False)
    assert opens["shown"] == computed(config, START_H, 0)


def test_a_first_h_that_is_not_offered_is_refused():
    with pytest.raises(ValueError, match=r"cannot open with h = 3: it offers \[1, 2, 4\]"):
        several_heads_config(start=3)
    assert several_heads_config(start=1)["start"] == 1
