"""The hand-wired induction head beside the trained one: the book's figure rules, and its inputs."""

from __future__ import annotations

import numpy as np
import pytest

from booktools.figures.base import cut_texts, smallest_text_pt
from booktools.figures.wiring import plot_wired_and_trained
from booktools.style import MAX_WIDTH_IN, SMALLEST_TEXT_PT
from selfattention import wiring


@pytest.fixture(scope="module")
def sequence():
    """One classic-test sequence (k = 10 at offset 5), its letters, and the hand-wired head's weights."""
    from selfattention.induction.task import SYMBOLS

    tokens = wiring.classic_sequences(ks=[10], n_sequences=1).tokens[5]
    _, (_, w1) = wiring.wired_forward(wiring.wired_weights(), tokens)
    return "".join(SYMBOLS[t] for t in tokens), w1


def test_the_figure_keeps_the_books_text_and_width_rules(sequence):
    symbols, w1 = sequence
    fig = plot_wired_and_trained(w1, np.tri(wiring.N) / np.arange(1, wiring.N + 1)[:, None], symbols,
                                 ["by hand", "trained"])
    assert smallest_text_pt(fig) >= SMALLEST_TEXT_PT
    assert fig.get_figwidth() <= MAX_WIDTH_IN + 1e-9
    assert cut_texts(fig) == []
    assert fig.get_suptitle() == symbols


def test_both_panels_draw_their_table_on_one_scale(sequence):
    symbols, w1 = sequence
    other = np.eye(wiring.N)
    fig = plot_wired_and_trained(w1, other, symbols, ["by hand", "trained"])
    images = [ax.get_images()[0] for ax in fig.axes[:2]]
    np.testing.assert_array_equal(images[0].get_array(), w1)
    np.testing.assert_array_equal(images[1].get_array(), other)
    assert all(im.get_clim() == (0.0, 1.0) for im in images)


def test_a_table_of_the_wrong_size_is_named():
    with pytest.raises(ValueError, match=r"trained_weights must have shape \(n, n\) = \(3, 3\)"):
        plot_wired_and_trained(np.eye(3), np.eye(4), "ABA", ["a", "b"])
    with pytest.raises(ValueError, match="titles must be two strings"):
        plot_wired_and_trained(np.eye(3), np.eye(3), "ABA", ["a"])
