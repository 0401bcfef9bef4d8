"""The figures of the chapter on cross-attention keep the book's text rule and draw the package's numbers."""

import io

import numpy as np
import pytest
from PIL import Image

import selfattention as sa
from booktools.figures.base import SMALLEST_TEXT_KEY, cut_texts, png, smallest_text_pt
from booktools.figures.cross import plot_causal_alignments, plot_weight_table
from booktools.style import MAX_WIDTH_IN, PHONE_COLUMN_PX, SMALLEST_TEXT_PT


def _weights():
    _, w = sa.cross_attention(*sa.cat_is_sleeping(), return_weights=True)
    return w


def _figures():
    masks = {"top-left": sa.causal_mask(3, 5), "bottom-right": sa.causal_mask_bottom_right(3, 5)}
    return {
        "weight table": lambda: plot_weight_table(_weights(), sa.TARGET, sa.SOURCE),
        "alignments": lambda: plot_causal_alignments(masks, ["2", "3", "4"], [str(j) for j in range(5)]),
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


def test_the_weight_table_writes_every_weight_in_its_cell():
    w = _weights()
    fig = plot_weight_table(w, sa.TARGET, sa.SOURCE)
    texts = [float(t.get_text()) for t in fig.axes[0].texts]
    np.testing.assert_allclose(texts, w.ravel(), atol=5e-4)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == list(sa.TARGET)


def test_the_alignment_figure_writes_each_mask():
    m = sa.causal_mask_bottom_right(3, 5)
    fig = plot_causal_alignments({"bottom-right": m}, ["2", "3", "4"], list("01234"))
    assert [t.get_text() for t in fig.axes[0].texts] == [str(int(b)) for b in m.ravel()]


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="weights must have shape"):
        plot_weight_table(np.ones((4, 3)), sa.TARGET, sa.SOURCE)
    with pytest.raises(ValueError, match="must have shape"):
        plot_causal_alignments({"m": np.ones((2, 2), bool)}, ["0"], ["0", "1"])
    with pytest.raises(ValueError, match="at least one mask"):
        plot_causal_alignments({}, ["0"], ["0"])
