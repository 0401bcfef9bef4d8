"""Every figure keeps the book's rule: its text is at least 11 px as a phone shows it.

Each figure is drawn with inputs of the book's own sizes, written to PNG as
the book writes it, and measured: its smallest text (recorded in the PNG by
``booktools.figures.base.png``) scaled to the phone's text column. The
browser test (``tests/browser/test_site.py``) measures the built book.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import selfattention as sa
from booktools.figures.base import CUT_TEXT_KEY, SMALLEST_TEXT_KEY, cut_texts, finish, png, smallest_text_pt, subplots
from booktools.figures.cost import plot_mask_costs, plot_measurements
from booktools.figures.embeddings import plot_embedding_rows
from booktools.figures.fading import plot_fading, plot_position_accuracy
from booktools.figures.generation import plot_step_scores, plot_time_per_token
from booktools.figures.heatmaps import plot_attention, plot_layer_means
from booktools.figures.learning import plot_attention_maps
from booktools.figures.masks import plot_masks
from booktools.figures.online_softmax import plot_online_softmax
from booktools.figures.plane import plot_weighted_mix, plot_words
from booktools.figures.positions import plot_position_similarity
from booktools.figures.referents import plot_referent_heads
from booktools.style import MAX_WIDTH_IN, PHONE_COLUMN_PX, SMALLEST_TEXT_PT
from selfattention.cost import Measurement

WIDE = ["[CLS]", "the", "animal", "didn", "'", "t", "cross", "the", "street", "because", "it", "was", "too",
        "wide", ".", "[SEP]"]
RIVER = ["[CLS]", "we", "sat", "on", "the", "bank", "of", "the", "river", ".", "[SEP]"]
RNG = np.random.default_rng(0)


def _softmax_stack(shape):
    return sa.softmax(RNG.normal(0, 3, size=shape))


def _figures():
    x = sa.three_words()
    _, w = sa.scaled_dot_product_attention(x, x, x, return_weights=True)
    ns = [256, 512, 1024, 2048, 4096]
    q, k, v = RNG.standard_normal((1, 8)), RNG.standard_normal((16, 8)), RNG.standard_normal((16, 2))
    steps = sa.online_softmax_trace(q, k, v, block_size=4)
    n = 16
    masks = {"full causal": sa.causal_mask(n), "sliding window, w = 3": sa.sliding_window_mask(n, 3),
             "strided, stride = 4": sa.strided_mask(n, 4)}
    cost_ns = [64, 128, 256, 512, 1024, 2048]
    dist = np.arange(1, 51)
    return {
        "words": lambda: plot_words(x, sa.WORDS),
        "step scores": lambda: plot_step_scores(6),
        "time per token": lambda: plot_time_per_token(([512, 1024, 2048, 4096, 8192], [1e-3, 1.4e-3, 2e-3, 3e-3, 9e-3]),
                                                      ([128, 256, 512], [1e-2, 3e-2, 0.13])),
        "embedding rows": lambda: plot_embedding_rows(RNG.normal(0, 0.05, (3, 384)),
                                                      ["“bank” beside “river”", "“bank” beside “account”", "“river”"]),
        "weighted mix": lambda: plot_weighted_mix(x, w, sa.WORDS, 0),
        "referent heads": lambda: plot_referent_heads(
            RNG.uniform(0, 0.7, (6, 12, 2)), RNG.uniform(0, 0.7, (6, 12, 2)),
            sentences=["... because it was too tired", "... because it was too wide"],
            targets=["animal", "street"], highlight=[(4, 0)], against=[(3, 10), (5, 10)]),
        "layer means": lambda: plot_layer_means(_softmax_stack((6, 12, 11, 11)), RIVER),
        "one head": lambda: plot_attention(_softmax_stack((16, 16)), WIDE, "layer 4, head 0"),
        "measurements": lambda: plot_measurements([Measurement(m, m * m * 1e-8, m * m * 4) for m in ns],
                                                  [Measurement(m, m * m * 2e-8, m * 4096) for m in ns]),
        "online softmax": lambda: plot_online_softmax(steps, sa.attention_scores(q, k),
                                                      sa.scaled_dot_product_attention(q, k, v)),
        "masks": lambda: plot_masks(masks, row=10, blocked={"sliding window, w = 3": 6, "strided, stride = 4": 5}),
        "fading": lambda: plot_fading(dist, sa.fading(0.5, dist), np.full(50, 0.2), rnn_measured=0.4 ** dist),
        "reversal": lambda: plot_position_accuracy({"summary of 16": np.linspace(1, 0.1, 20),
                                                    "summary of 64": np.linspace(1, 0.9, 20),
                                                    "attention": np.ones(20)}),
        "mask costs": lambda: plot_mask_costs(cost_ns, {"full causal": [m * (m + 1) // 2 for m in cost_ns],
                                                        "sliding window, w = 32": [33 * m for m in cost_ns],
                                                        "strided, stride = √n": [m * 40 for m in cost_ns]}),
        "position similarity": lambda: plot_position_similarity(
            sa.positions.cosine_similarity(sa.sinusoidal_positions(64, 32))),
        "attention maps": lambda: plot_attention_maps(_softmax_stack((4, 2, 2)), [f"run {i}" for i in range(1, 5)],
                                                      ["apple", "sweet"]),
    }


@pytest.mark.parametrize("name", list(_figures()))
def test_figure_text_is_at_least_11_px_on_a_phone(name):
    fig = _figures()[name]()
    assert smallest_text_pt(fig) >= SMALLEST_TEXT_PT
    assert fig.get_figwidth() <= MAX_WIDTH_IN + 1e-9
    assert cut_texts(fig) == [], f"{name}: text cut at the edge or crowded"
    with Image.open(io.BytesIO(png(fig))) as im:
        assert im.text[CUT_TEXT_KEY] == ""
        px = float(im.text[SMALLEST_TEXT_KEY])
        shown = px * min(1.0, PHONE_COLUMN_PX / im.width)
        assert shown >= 11, f"{name}: {px:.1f} px text in a {im.width} px PNG shows at {shown:.1f} px"
        assert im.mode in ("RGB", "RGBA") and im.getchannel(0).getextrema() != (0, 0)


def test_smallest_text_sees_every_kind_of_text():
    fig, ax = subplots(figsize=(3, 3))
    ax.plot([0, 1], [0, 1], label="line")
    ax.legend(fontsize=9.5)
    assert smallest_text_pt(fig) == 9.5  # a legend counts
    ax.legend(fontsize=14)
    ax.annotate("note", (0.5, 0.5), fontsize=8)
    assert smallest_text_pt(fig) == 8  # an annotation counts
    ax.texts[-1].set_visible(False)
    assert smallest_text_pt(fig) == SMALLEST_TEXT_PT  # then the tick labels are the smallest
    finish(fig)


def test_png_records_the_smallest_text_in_pixels_of_the_png():
    fig, ax = subplots(figsize=(2, 2))
    ax.set_title("t", fontsize=18)
    with Image.open(io.BytesIO(png(fig, dpi=144))) as im:
        assert float(im.text[SMALLEST_TEXT_KEY]) == pytest.approx(SMALLEST_TEXT_PT * 144 / 72, abs=0.01)
    finish(fig)


def test_embedding_rows_refuse_a_label_per_row_missing():
    with pytest.raises(ValueError, match="one label per row"):
        plot_embedding_rows(np.ones((2, 4)), ["only one"])
    with pytest.raises(ValueError, match="not all 0"):
        plot_embedding_rows(np.zeros((1, 4)), ["zero"])
def test_fading_figure_draws_each_curve_and_names_bad_lengths():
    k = np.arange(1, 6)
    fig = plot_fading(k, 0.5 ** k, np.full(5, 0.2))
    np.testing.assert_allclose(fig.axes[0].lines[1].get_ydata(), 0.5 ** k)
    assert fig.axes[0].get_yscale() == "log"
    with pytest.raises(ValueError, match="one value per distance"):
        plot_fading(k, 0.5 ** k, [0.2])
    with pytest.raises(ValueError, match="of one length"):
        plot_position_accuracy({"a": [1, 0], "b": [1]})


def test_referent_heads_mark_where_each_head_was_so_swapped_heads_stay_apart():
    first = np.full((2, 3, 2), 0.05)
    second = first.copy()
    first[1, 2], second[1, 2] = (0.10, 0.08), (0.05, 0.19)   # moves up, toward the second target
    first[0, 0], second[0, 0] = (0.07, 0.13), (0.09, 0.07)   # moves the other way: they almost swap
    fig = plot_referent_heads(first, second, sentences=["a", "b"], targets=["x", "y"],
                              highlight=[(1, 2)], against=[(0, 0)])
    lower = fig.axes[1]
    hollow = [c for c in lower.collections
              if len(c.get_offsets()) == 1 and len(c.get_facecolors()) == 0]
    assert sorted(tuple(np.round(c.get_offsets()[0], 2)) for c in hollow) == [(0.07, 0.13), (0.1, 0.08)]
    arrows = [t.arrow_patch for t in lower.texts if getattr(t, "arrow_patch", None) is not None]
    assert len({a.get_edgecolor() for a in arrows}) == 2   # one colour per marked head
    finish(fig)


def _text_box(fig, text):
    """The display box of ``text`` once ``fig`` is drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return text.get_window_extent(canvas.get_renderer())


def test_referent_heads_keep_labels_clear_of_the_points_and_of_each_other():
    first = np.full((2, 3, 2), 0.05)
    second = first.copy()
    first[1, 2], second[1, 2] = (0.10, 0.08), (0.05, 0.19)   # as in the chapter: the heads almost swap
    first[0, 0], second[0, 0] = (0.07, 0.13), (0.09, 0.07)
    first[0, 1], second[0, 1] = (0.68, 0.02), (0.56, 0.04)   # a head far toward "x", near the bottom edge
    fig = finish(plot_referent_heads(first, second, sentences=["a", "b"], targets=["x", "y"],
                                     highlight=[(1, 2)], against=[(0, 0)]))
    for ax, w in zip(fig.axes, (first, second)):
        points = ax.transData.transform(w.reshape(-1, 2))     # (heads, 2) in display pixels
        corner = [t for t in ax.texts if t.get_text().startswith("prefers")]
        assert len(corner) == 2
        for text in corner:                                  # no head under a side's name
            box = _text_box(fig, text)
            assert not any(box.contains(x, y) for x, y in points), text.get_text()
        labels = [_text_box(fig, t) for t in ax.texts if t.get_text() in ("1, 2", "0, 0")]
        assert len(labels) == 2 and not labels[0].overlaps(labels[1])


def test_online_softmax_writes_the_factor_over_every_bar():
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((1, 4)), rng.standard_normal((16, 4)), rng.standard_normal((16, 2))
    steps = sa.online_softmax_trace(q, k, v, block_size=4)
    fig = plot_online_softmax(steps, sa.attention_scores(q, k), sa.scaled_dot_product_attention(q, k, v))
    factors = [t.get_text() for t in fig.axes[1].texts]
    assert len(factors) == len(steps) and factors[0] == "×0"   # the first block has no old sum to keep
    top = max(st.run_sum[0] for st in steps)
    assert fig.axes[1].get_ylim()[1] < 1.5 * top                # no tall empty band above the bars
    finish(fig)


def test_measurements_keep_both_markers_visible_and_label_both_panels():
    ns = [256, 512, 1024]
    same = [Measurement(m, m * m * 1e-8, m * m * 4) for m in ns]   # equal times: the points coincide
    fig = finish(plot_measurements(same, same))
    for ax in fig.axes:
        square, circle = (line for line in ax.lines if line.get_linestyle() == "None")
        assert square.get_marker() == "s" and square.get_markerfacecolor() == "none"   # hollow, under
        assert circle.get_marker() == "o" and circle.get_markersize() < square.get_markersize()
        assert [t.get_text() for t in ax.get_xticklabels()] == [str(n) for n in ns]
        assert all(t.get_visible() for t in ax.get_xticklabels())


def test_time_per_token_labels_a_tick_near_every_point():
    cached, full = ([512, 1024, 2048], [3.3e-4, 4.5e-4, 6e-4]), ([256, 512, 1024], [7.8e-3, 2.3e-2, 6.5e-2])
    fig = finish(plot_time_per_token(cached, full))
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert np.log10(low) == np.floor(np.log10(low)) and np.log10(high) == np.floor(np.log10(high))
    ticks = [v for v in ax.get_yticks() if low <= v <= high]
    assert all(t.get_text() for t in ax.get_yticklabels() if low <= t.get_position()[1] <= high)
    for ms in [s * 1e3 for s in cached[1] + full[1]]:
        assert min(abs(np.log10(ms / t)) for t in ticks) < np.log10(2.5)   # within a factor 2.5


def test_online_softmax_panels_use_the_chapters_symbols():
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((1, 2)), rng.standard_normal((8, 2)), rng.standard_normal((8, 2))
    steps = sa.online_softmax_trace(q, k, v, block_size=4)
    fig = plot_online_softmax(steps, sa.attention_scores(q, k), sa.scaled_dot_product_attention(q, k, v))
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[1] == "(b) running sum ℓ" and titles[2] == "(c) partial output a / ℓ"
    assert steps[0].rescale[0] == 0.0   # the first factor: no old sum yet
    finish(fig)
