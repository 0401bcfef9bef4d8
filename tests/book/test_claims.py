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


# --- Chapters 5 and 8: claims of the second edition (review B) ---------------------------------

def test_from_c_minus_four_the_first_steps_grow_and_from_zero_they_shrink():
    # Chapter 5: "each step is smaller than the one before" holds from c = 0, not from far left.
    from selfattention import learning

    left = np.diff(sa.descend(-4.0, 20))
    assert (np.diff(left[:8]) > 0).all()
    assert (np.diff(np.diff(sa.descend(0.0, 50))) < 0).all()
    assert sa.apple_sweet_loss(-4.0)["weight"] < 1 / 3 < sa.apple_sweet_loss(0.0)["weight"]
    np.testing.assert_allclose(sa.apple_sweet_loss(learning.steepest_c())["weight"], 1 / 3, rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_minus_1e9_and_minus_inf_agree_in_float32_when_every_row_keeps_a_key(seed):
    rng = np.random.default_rng(seed)
    s = rng.normal(scale=3.0, size=(8, 8)).astype(np.float32)
    mask = sa.causal_mask(8)                            # every row keeps its own key
    big = sa.softmax(np.where(mask, s, s + np.float32(-1e9)))
    inf = sa.softmax(np.where(mask, s, -np.inf))
    assert np.abs(big - inf).max() == 0


def test_a_fully_blocked_float32_row_rounds_to_minus_1e9_within_half_the_spacing():
    # Chapter 8: near 1e9 float32 numbers are 64 apart; scores within 32 of it all round to -1e9.
    spacing = float(np.spacing(np.float32(1e9)))
    assert spacing == 64
    s = np.array([0.0, 1.414, -31.0, 31.0], dtype=np.float32)
    assert ((s + np.float32(-1e9)) == np.float32(-1e9)).all()
    np.testing.assert_allclose(sa.softmax(s + np.float32(-1e9)), 0.25, rtol=1e-6)


def test_minus_1e9_overflows_float16_and_finfo_min_gives_a_finite_uniform_row():
    with np.errstate(over="ignore"):
        assert np.isneginf(np.float16(-1e9))
    fill = np.finfo(np.float16).min
    assert np.isfinite(fill)
    blocked = np.full((1, 4), fill, dtype=np.float16)
    e = np.exp(blocked - blocked.max(axis=-1, keepdims=True))
    np.testing.assert_allclose((e / e.sum(axis=-1, keepdims=True)).astype(float), 0.25, rtol=1e-3)
    with np.errstate(invalid="ignore"):
        e = np.exp(np.full(4, -np.inf, dtype=np.float16))
        assert np.isnan(e / e.sum()).all()              # an unguarded softmax: 0 / 0
    assert (sa.softmax(np.full(4, -np.inf)) == 0).all()  # the package's guard


@pytest.mark.parametrize(("L", "S"), [(1, 4), (2, 4), (3, 7)])
def test_the_top_left_wide_mask_hides_keys_a_kv_cache_query_must_read(L, S):
    # Chapter 8: with the queries the last L of S positions, query i reads keys 0 .. i + S - L.
    top_left, bottom_right = sa.causal_mask(L, S), sa.causal_mask_bottom_right(L, S)
    for i in range(L):
        assert bottom_right[i].sum() == i + S - L + 1 and top_left[i].sum() == i + 1
    assert np.array_equal(sa.causal_mask(S), sa.causal_mask_bottom_right(S))


def test_bfloat16_overflows_exp_where_float32_does_and_float16_near_a_dozen():
    # Chapter 7: bfloat16 has float32's 8 exponent bits (largest number: bit pattern 0x7F7F0000).
    bf16_max = float(np.array(0x7F7F0000, dtype=np.uint32).view(np.float32))
    assert bf16_max == (2 - 2.0**-7) * 2.0**127
    assert abs(np.log(bf16_max) - np.log(np.finfo(np.float32).max)) < 0.01
    assert 11 < np.log(np.finfo(np.float16).max) < 12


def test_symmetric_scores_do_not_give_symmetric_weights():
    # Chapter "Queries, keys and values", review A4-1: the plain scores are symmetric, the weights are not,
    # because softmax normalises each row on its own (cat gives dog 0.187, dog gives cat 1/3).
    X = sa.three_words()
    s = sa.attention_scores(X, X)
    w = sa.softmax(s)
    np.testing.assert_array_equal(s, s.T)
    assert not np.allclose(w, w.T)
    assert w[0, 1] < w[1, 0]


def test_different_query_and_key_matrices_can_still_give_a_symmetric_table():
    # Review A4-8: what makes the table symmetric is W_Q W_K^T, not W_Q == W_K.
    X = sa.three_words()
    w_q, w_k = np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]])     # the "swap the keys" preset
    s = sa.head_trace(X, w_q, w_k, np.eye(2))["scores"]
    assert not np.array_equal(w_q, w_k)
    np.testing.assert_array_equal(s, s.T)


@pytest.mark.parametrize("d_model, d_k", [(8, 2), (64, 16), (512, 64)])
def test_the_query_key_product_has_rank_at_most_d_k(d_model, d_k):
    # Review A4-4: one head compares words along at most d_k directions.
    w_q, w_k = np.random.default_rng(d_k).normal(size=(2, d_model, d_k))
    assert np.linalg.matrix_rank(sa.query_key_product(w_q, w_k)) == d_k


def test_every_round_of_the_referent_game_decides_after_it():
    # Review A1-1: in every round the deciding word comes after "it", so the page says "in every round".
    from booktools.labs.referent_game import ROUNDS

    for r in ROUNDS:
        deciding = r["after"].rstrip(".").split()[-1]
        assert deciding not in r["before"].split()
        assert r["after"] != "" and deciding.isalpha()


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


# --- Chapters 1-5: claims of review R1 -------------------------------------------------------------

@pytest.mark.parametrize("T", [30, 60, 120])
def test_a_tanh_network_with_w_above_one_explodes_near_zero_and_vanishes_when_saturated(T):
    # Review R1-4: exploding gradients are a problem of tanh networks too (slope 1 at h = 0);
    # where the summary saturates, w times the slope drops below 1 and the effect vanishes.
    w = 2.0
    assert sa.effect_on_last(np.zeros(T), w)[0] == w ** (T - 1)
    saturated = sa.effect_on_last(np.full(T, 0.01), w)[0]
    assert saturated < 0.5 ** (T - 15)           # the summary needs a dozen words to climb near 0.96


@pytest.mark.parametrize("n_cars", [1, 49, 999])
def test_attention_keeps_the_share_at_any_distance_but_dilutes_it_over_more_words(n_cars):
    # Review R1-6: the earlier cat's weight is e^a / (2 e^a + n_cars e^b), whatever its position.
    cat, _, car = sa.three_words()
    e_cat, e_car = np.exp(cat @ cat / np.sqrt(2)), np.exp(cat @ car / np.sqrt(2))
    rule = e_cat / (2 * e_cat + n_cars * e_car)
    for where in (0, n_cars // 2, n_cars):
        x = np.tile(car, (n_cars + 2, 1))
        x[-1] = x[where] = cat
        np.testing.assert_allclose(sa.softmax(sa.attention_scores(x, x))[-1, where], rule, rtol=1e-12)


def test_one_softmax_row_cannot_give_most_of_its_weight_to_two_words_but_two_heads_can():
    # Review R1-12: the reason for several heads is several softmaxes, not the rank of one head.
    X = sa.three_words()
    w_swap = np.array([[0.0, 1.0], [1.0, 0.0]])
    _, own = sa.attention_head(X, np.eye(2), np.eye(2), np.eye(2), return_weights=True)
    _, swapped = sa.attention_head(X, np.eye(2), w_swap, np.eye(2), return_weights=True)
    assert own[0, 0] > 0.5 and swapped[0, 2] > 0.5
    rows = sa.softmax(np.random.default_rng(0).normal(scale=5, size=(1000, 3)))
    assert (np.sort(rows, axis=1)[:, -2] < 0.5).all()          # the second-largest weight is under a half


@pytest.mark.parametrize("d_model, h", [(8, 2), (64, 4), (512, 8)])
def test_the_low_rank_of_a_head_comes_from_splitting_d_model_among_heads(d_model, h):
    rng = np.random.default_rng(h)
    d_k = d_model // h
    full = sa.query_key_product(*rng.normal(size=(2, d_model, d_model)))
    split = sa.query_key_product(*rng.normal(size=(2, d_model, d_k)))
    assert np.linalg.matrix_rank(full) == d_model and np.linalg.matrix_rank(split) == d_k


@pytest.mark.book
def test_the_counting_checks_of_one_word_at_a_time_accept_what_a_real_run_computes(built_book):
    # Review R4-1: each counting check of the chapter, answered by counting a real run of sa.generate.
    import re

    from booktools.selfcheck import check_data
    from tests.selfattention.score_counter import counted_steps

    html = (built_book / "one-word-at-a-time.html").read_text(encoding="utf-8")
    checks = {m.group(1): d for m, d in zip(re.finditer(r'data-check-id="([^"]+)"', html), check_data(html))}
    model = sa.tiny_decoder()
    question = {cid: re.search(r'id="' + cid + r'-q">([^<]*)<', html).group(1) for cid in checks}

    # "has t tokens ... the logits that pick the (t+1)th": run until that step, count its scores.
    for cid, cache in (("skip-gen-scores", True), ("gen-count-8", False)):
        t = int(re.search(r"has (\d+) tokens", question[cid]).group(1))
        assert f"pick the {t + 1}th" in question[cid], question[cid]
        with counted_steps(model) as seen:
            out = sa.generate(model, [0, 1, 4], t + 1 - 3, cache=cache)   # the last step picks token t + 1
        assert len(out) == t + 1 and seen[-1].S == t
        assert checks[cid]["answer"] == seen[-1].scores, cid
        assert all(abs(v - seen[-1].scores) > 0 for v, _ in checks[cid]["diagnoses"]), cid

    # "to write 4 more tokens without a cache, how often must the whole model run?"
    loop = checks["gen-loop"]
    with counted_steps(model) as seen:
        sa.generate(model, [0, 1, 4], 4, cache=False)
    runs = [int(x) for x in re.findall(r"\d+", loop["options"][loop["answer"]])]
    assert runs == [len(seen)] + [s.S for s in seen]

    # The skip test's cache: 3 layers, 4 key/value heads of 8 numbers, 100 tokens, float32.
    small = sa.tiny_decoder(d_model=32, h=4, layers=3)
    cache = sa.KVCache.for_model(small, capacity=100, dtype=np.float32)
    for token in np.arange(100) % small.vocab:
        sa.decode_step(small, [int(token)], cache)
    assert tuple(checks["skip-gen-shape"]["answer"]) == cache.array.shape
    assert checks["skip-gen-bytes"]["answer"] == cache.array.nbytes

    # The ring buffer after the chapter's run.
    n = int(re.search(r"After (\d+) tokens", question["gen-ring-shape"]).group(1))
    ring = sa.KVCache.for_model(model, window=3)
    for token in sa.generate(model, [0, 1, 4], n - 3, window=3):
        sa.decode_step(model, [token], ring)
    assert tuple(checks["gen-ring-shape"]["answer"]) == ring.array.shape
