"""The position dial's config, views and test states (the browser test compares the lab with them)."""

from __future__ import annotations

import numpy as np
import pytest

from booktools.labs import fixture
from booktools.labs.position_dial import (
    position_dial_config,
    position_dial_lab,
    position_dial_note,
    position_dial_states,
    position_dial_view,
)


def by_hand(q, k, m, n):
    """The three scores written out: sin/cos pairs, and RoPE as complex multiplication."""
    q, k = np.asarray(q), np.asarray(k)
    d = q.size
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    p = lambda pos: np.ravel(np.column_stack([np.sin(pos * theta), np.cos(pos * theta)]))  # noqa: E731
    zq = (q[0::2] + 1j * q[1::2]) * np.exp(1j * m * theta)
    zk = (k[0::2] + 1j * k[1::2]) * np.exp(1j * n * theta)
    return q @ k / np.sqrt(d), (q + p(m)) @ (k + p(n)) / np.sqrt(d), np.real(zq * np.conj(zk)).sum() / np.sqrt(d)


@pytest.mark.parametrize("m, n", [(0, 0), (5, 2), (31, 0), (7, 19)])
def test_the_view_is_the_three_scores(m, n):
    c = position_dial_config()
    v = position_dial_view(c, m, n)
    plain, added, rope = by_hand(c["q"], c["k"], m, n)
    assert (v["plain"], v["added"], v["rope"]) == (f"{plain:.3f}", f"{added:.3f}", f"{rope:.3f}")


def test_moving_both_keeps_rope_and_every_state_stays_in_range():
    c = position_dial_config()
    f = fixture("position-dial", c)
    both = [s for s in f["states"] if s["action"]["kind"] == "both"]
    assert len({s["view"]["rope"] for s in both}) == 1 and len({s["view"]["added"] for s in both}) > 1
    for s in position_dial_states(c):
        assert 0 <= s["m"] <= c["max"] and 0 <= s["n"] <= c["max"]


@pytest.mark.parametrize("kwargs", [{"q": (1.0, 2.0, 3.0), "k": (1.0, 2.0, 3.0)}, {"start": (40, 2)},
                                    {"max_position": 0}])
def test_a_bad_config_is_an_error(kwargs):
    with pytest.raises(ValueError):
        position_dial_config(**kwargs)


def test_the_note_shows_the_vectors_and_the_root_and_the_fallback_has_it():
    c = position_dial_config()
    note = position_dial_note(c)
    assert "q = [1, 0.5, 0.5, 1]" in note and "k = [0.5, 1, 1, 0]" in note and "√4 = 2." in note
    assert note in position_dial_lab().markup
    # The plain score is q . k divided by that root.
    assert position_dial_view(c, 0, 0)["plain"] == f"{np.dot(c['q'], c['k']) / 2:.3f}"
    assert "√6 = 2.449" in position_dial_note(position_dial_config([1, 0, 0, 1, 2, 0], [0, 1, 1, 0, 0, 1]))
