"""The figures of "What comes next": legible on a phone, and they refuse inputs they cannot draw."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import selfattention as sa
from booktools.figures.base import SMALLEST_TEXT_KEY, cut_texts, png, smallest_text_pt
from booktools.figures.multihead import plot_heads
from booktools.figures.transformer import plot_transformer_path
from booktools.style import MAX_WIDTH_IN, PHONE_COLUMN_PX, SMALLEST_TEXT_PT

CAT = ["[CLS]", "the", "cat", "sat", "on", "the", "mat", ".", "[SEP]"]
RNG = np.random.default_rng(0)


def _figures():
    return {
        "four heads": lambda: plot_heads(sa.softmax(RNG.normal(0, 3, (4, 9, 9))), CAT,
                                         ["head 2", "head 6", "head 0", "head 3"]),
        "three heads": lambda: plot_heads(sa.softmax(RNG.normal(0, 3, (3, 9, 9))), CAT, ["a", "b", "c"]),
        "path": lambda: plot_transformer_path(["the", "cat", "sat", "on", "the"], next_word="mat? floor? sofa? ..."),
        "short path": lambda: plot_transformer_path(["the", "cat"]),
    }


@pytest.mark.parametrize("name", list(_figures()))
def test_figure_text_is_at_least_11_px_on_a_phone(name):
    fig = _figures()[name]()
    assert smallest_text_pt(fig) >= SMALLEST_TEXT_PT
    assert fig.get_figwidth() <= MAX_WIDTH_IN + 1e-9
    assert cut_texts(fig) == [], f"{name}: text cut at the edge or crowded"
    with Image.open(io.BytesIO(png(fig))) as im:
        px = float(im.text[SMALLEST_TEXT_KEY])
        shown = px * min(1.0, PHONE_COLUMN_PX / im.width)
        assert shown >= 11, f"{name}: {px:.1f} px text in a {im.width} px PNG shows at {shown:.1f} px"


def test_heads_are_drawn_in_order_on_one_scale():
    w = sa.softmax(RNG.normal(0, 3, (4, 9, 9)))
    fig = plot_heads(w, CAT, ["p", "q", "r", "s"])
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in fig.axes if ax.images] == ["p", "q", "r", "s"]
    for image, table in zip(images, w):
        np.testing.assert_array_equal(image.get_array(), table)
        assert image.get_clim() == (0.0, 1.0)


def test_heads_refuse_bad_shapes_and_titles():
    with pytest.raises(ValueError, match=r"\(heads, 9, 9\)"):
        plot_heads(np.ones((2, 8, 8)), CAT, ["a", "b"])
    with pytest.raises(ValueError, match="one title per head"):
        plot_heads(np.ones((2, 9, 9)) / 9, CAT, ["a"])
    with pytest.raises(ValueError, match="columns"):
        plot_heads(np.ones((2, 9, 9)) / 9, CAT, ["a", "b"], columns=0)


def test_path_names_every_part_and_refuses_too_many_words():
    texts = " ".join(t.get_text() for t in plot_transformer_path(["a", "b", "c"]).axes[0].texts)
    for part in ("static embeddings", "masked multi-head attention", "MLP", "residual", "layer norm",
                 "stacked N times", "vocabulary", "softmax", "next word"):
        assert part in texts
    with pytest.raises(ValueError, match="two to six"):
        plot_transformer_path(["only"])
    with pytest.raises(ValueError, match="two to six"):
        plot_transformer_path(list("abcdefg"))
