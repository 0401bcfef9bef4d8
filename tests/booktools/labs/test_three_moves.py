"""The three-moves step-through (booktools.labs.three_moves): what its blend move says."""

from __future__ import annotations

import numpy as np

import selfattention as sa
from booktools.labs.three_moves import three_moves


def _vector(text: str) -> np.ndarray:
    return np.array([float(v) for v in text.strip("[]").split(",")])


def test_the_blend_move_says_when_the_rounded_parts_miss_the_rounded_blend():
    cat = three_moves(sa.three_words(), sa.WORDS, 0)["moves"][2]
    parts = np.array([_vector(row[1]) for row in cat["rows"][:-1]])      # (3, 2), as shown
    blend = _vector(cat["rows"][-1][1])                                  # (2,), as shown
    assert not np.allclose(parts.sum(axis=0), blend)                     # 1.54 + 0.19 + 0.00 is 1.73, not 1.72
    assert "the rounded parts add up to [1.73, 0.28]" in cat["text"]
    assert "the blend, rounded after adding, is [1.72, 0.28]" in cat["text"]


def test_the_blend_move_adds_no_note_when_the_rounded_parts_add_up():
    dog = three_moves(sa.three_words(), sa.WORDS, 1)["moves"][2]
    parts = np.array([_vector(row[1]) for row in dog["rows"][:-1]])
    np.testing.assert_allclose(parts.sum(axis=0), _vector(dog["rows"][-1][1]), atol=1e-12)
    assert "rounded" not in dog["text"]
