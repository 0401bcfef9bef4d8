"""Claims the chapters state as formulas hold for the package's own masks and examples.

The pages guard their numbers with hidden asserts; these tests guard the
general rules the prose and the "Keep in mind" boxes state, for many sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

import selfattention as sa
from selfattention.sparse import sliding_window_mask, strided_mask


@pytest.mark.parametrize("n", [1, 2, 16, 100, 2048])
def test_causal_count_is_n_times_n_plus_one_over_two(n):
    assert int(sa.causal_mask(n).sum()) == n * (n + 1) // 2


@pytest.mark.parametrize(("n", "w"), [(16, 3), (1000, 100), (2048, 32)])
def test_window_count_is_the_rule_of_thumb_minus_the_short_first_windows(n, w):
    # The first w tokens have fewer than w tokens before them: 1 + 2 + ... + w scores are missing.
    assert int(sliding_window_mask(n, w).sum()) == n * (w + 1) - w * (w + 1) // 2


@pytest.mark.parametrize("n", [512, 1024, 2048, 4096])   # the rule improves as n grows
def test_strided_rule_of_thumb_is_within_three_percent(n):
    s = int(np.sqrt(n))
    counted = int(strided_mask(n, s).sum())
    rule = n * s + n**2 / (2 * s)          # the chapter's "about n s + n²/(2s)"
    assert 0 <= rule / counted - 1 < 0.03
    assert n * (s + n / s) / counted - 1 > 0.3   # the old rule, n(s + n/s), overcounted by a third


def test_strided_count_is_band_plus_one_far_token_per_stride():
    n, s = 2048, 45
    exact = sum(min(i + 1, s) + i // s for i in range(n))
    assert int(strided_mask(n, s).sum()) == exact


def test_weighted_average_outputs_lie_on_the_segment_of_the_collinear_words():
    X = sa.three_words()
    out = sa.scaled_dot_product_attention(X, X, X)
    np.testing.assert_allclose(X.sum(axis=1), 2.0)          # cat, dog, car on x + y = 2
    np.testing.assert_allclose(out.sum(axis=1), 2.0, atol=1e-12)
    assert (out >= 0).all() and (out <= 2).all()


def test_a_long_car_draws_every_word_not_only_itself():
    X = sa.three_words().copy()
    X[2] = [5.0, 5.0]
    w = sa.softmax(sa.attention_scores(X, X))
    assert (w[:, 2] > 0.98).all()
    out = w @ X
    np.testing.assert_allclose(out[0], [4.9, 4.9], atol=0.05)
    assert X[0] @ X[2] > X[0] @ X[0]      # length beats direction: cat · car > cat · cat


def test_the_go_deeper_code_of_queries_keys_values_is_the_code_the_page_runs():
    # The dropdown cannot hold a code cell: it shows the code as text, and a hidden cell runs it.
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "book" / "queries-keys-values.md").read_text(encoding="utf-8")
    shown = re.search(r":::\{dropdown\} Go deeper: the scores depend.*?```python\n(.*?)```", page, re.S).group(1)
    run = re.search(r"# The \"Go deeper\" demonstration.*?\n(.*?)\n\n", page, re.S).group(1)
    assert shown.strip() == run.strip()
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_attention_weight_does_not_depend_on_where_a_word_stands(seed):
    # Chapter "Why not read left to right?": moving a word, or shuffling the sentence,
    # changes no weight the last word gives (there is no position information).
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(30, 4))
    w = sa.softmax(sa.attention_scores(x, x))
    order = np.concatenate([rng.permutation(29), [29]])        # shuffle all but the last word
    w_shuffled = sa.softmax(sa.attention_scores(x[order], x[order]))
    np.testing.assert_allclose(w_shuffled[-1], w[-1, order], atol=1e-12)


@pytest.mark.parametrize("w", [0.5, 0.9, 0.99])
def test_a_recurrent_summary_keeps_one_size_and_fades_by_at_most_w_to_the_k(w):
    x = np.random.default_rng(3).normal(size=(200, 3))
    states = sa.rnn_states(x, w)
    assert states[-1].shape == (3,) == sa.rnn_states(x[:5], w)[-1].shape
    assert (np.abs(sa.effect_on_last(x, w)[0]) <= w ** 199).all()


@pytest.mark.parametrize("N", [1, 2, 10, 100, 1000])
def test_writing_n_tokens_costs_n_squared_with_a_cache_and_n_cubed_without(N):
    # Chapter "One word at a time": the totals of equation eq-gen-totals, and their ratio (N + 2) / 3.
    with_cache = sum(sa.scores_per_step(t) for t in range(1, N + 1))
    without = sum(sa.scores_per_step(t, cache=False) for t in range(1, N + 1))
    assert with_cache == N * (N + 1) // 2 and without == N * (N + 1) * (N + 2) // 6
    assert 3 * without == (N + 2) * with_cache


@pytest.mark.parametrize("name", ["GPT-2 small", "Llama 2 7B", "Mistral 7B"])
def test_the_cache_saving_of_gqa_is_heads_over_kv_heads(name):
    c = sa.PUBLISHED[name]
    mha = sa.kv_cache_bytes(c.layers, c.heads, c.d_head, 4096)
    assert mha == sa.kv_cache_bytes(c.layers, c.kv_heads, c.d_head, 4096) * (c.heads // c.kv_heads)
