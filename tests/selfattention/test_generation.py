"""Generation with a KV cache: exact under the causal mask, GQA is repeated heads, the window is the band.

The property test builds random decoders (sizes, heads, key/value heads and
seeds drawn by hypothesis) and checks that decoding token by token with a
cache gives the logits of one full causal pass at every step.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import selfattention as sa
from selfattention.cost import dtype_bytes
from selfattention.generation import (
    PUBLISHED,
    VOCAB,
    KVCache,
    decode_step,
    decoder_forward,
    generate,
    grouped_query_attention,
    kv_cache_bytes,
    scores_per_step,
    time_per_token,
    tiny_decoder,
)

ATOL = 1e-10


@st.composite
def decoders(draw):
    kv_heads = draw(st.sampled_from([1, 2]))
    h = kv_heads * draw(st.sampled_from([1, 2]))
    d_head = draw(st.sampled_from([2, 4]))
    model = tiny_decoder(vocab=draw(st.integers(3, 10)), d_model=h * d_head, h=h, kv_heads=kv_heads,
                         layers=draw(st.integers(1, 3)), d_ff=draw(st.sampled_from([4, 8])),
                         seed=draw(st.integers(0, 2**16)))
    tokens = draw(st.lists(st.integers(0, model.vocab - 1), min_size=1, max_size=9))
    return model, tokens


# ---------------------------------------------------------------------------
# The cache is exact
# ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(decoders())
def test_cached_decoding_equals_the_full_causal_pass_at_every_step(case):
    model, tokens = case
    cache = KVCache.for_model(model, capacity=len(tokens))
    for t, token in enumerate(tokens, start=1):
        step = decode_step(model, [token], cache)  # (1, vocab)
        full = decoder_forward(model, tokens[:t])  # (t, vocab)
        np.testing.assert_allclose(step[0], full[-1], rtol=0, atol=ATOL)
        assert cache.array.shape == (model.layers, 2, model.kv_heads, t, model.d_head)


@settings(max_examples=20, deadline=None)
@given(decoders(), st.integers(1, 4))
def test_a_chunk_against_the_cache_equals_the_full_pass(case, split):
    model, tokens = case
    cut = min(split, len(tokens))
    cache = KVCache.for_model(model, capacity=len(tokens))
    first = decode_step(model, tokens[:cut], cache)  # the prefill: L = S
    rest = decode_step(model, tokens[cut:], cache) if cut < len(tokens) else np.empty((0, model.vocab))
    np.testing.assert_allclose(np.vstack([first, rest]), decoder_forward(model, tokens), rtol=0, atol=ATOL)


def test_cached_decoding_in_float32_is_close_to_float64():
    model, tokens = tiny_decoder(), [0, 1, 4, 6, 7, 4]
    cache = KVCache.for_model(model, capacity=6, dtype=np.float32)
    steps = np.vstack([decode_step(model, [t], cache) for t in tokens])
    np.testing.assert_allclose(steps, decoder_forward(model, tokens), atol=1e-5)
    assert cache.array.dtype == np.float32


def without_mask_gaps(model, tokens):
    """At each step, how far the cached logits are from a full pass without the causal mask."""
    cache = KVCache.for_model(model, capacity=len(tokens))
    gaps = []
    for t, token in enumerate(tokens, start=1):
        step = decode_step(model, [token], cache)[0]  # the kept keys were made before the later tokens came
        full = decoder_forward(model, tokens[:t], causal=False)[-1]  # every position sees the t tokens
        gaps.append(float(np.abs(step - full).max()))
    return np.array(gaps)


def test_without_the_causal_mask_a_cache_is_not_exact():
    gaps = without_mask_gaps(tiny_decoder(), [0, 1, 4, 6, 7, 4])
    assert gaps[0] < ATOL  # one token: nothing to see either way
    assert gaps[1:].min() > 0.01  # from the second layer on, the earlier keys would have changed


def test_with_one_layer_only_the_earlier_rows_would_change():
    model, tokens = tiny_decoder(layers=1), [0, 1, 4, 6, 7, 4]
    assert without_mask_gaps(model, tokens).max() < ATOL  # the keys of layer 1 depend on one token each
    full = decoder_forward(model, tokens, causal=False)
    causal = decoder_forward(model, tokens)
    assert np.abs(full[:-1] - causal[:-1]).max() > 0.01


def test_generation_with_and_without_the_cache_gives_the_same_tokens():
    model = tiny_decoder()
    with_cache = generate(model, [0, 1, 4], 6)
    assert with_cache == generate(model, [0, 1, 4], 6, cache=False)
    assert " ".join(VOCAB[t] for t in with_cache[:5]) == "the cat sat on mat"


def test_each_generated_token_is_the_argmax_of_the_full_pass():
    model = tiny_decoder(seed=3)
    tokens = generate(model, [2, 3], 5)
    for t in range(2, len(tokens)):
        assert tokens[t] == decoder_forward(model, tokens[:t])[-1].argmax()


# ---------------------------------------------------------------------------
# Grouped-query attention
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("h, kv_heads", [(4, 4), (4, 2), (4, 1), (6, 3), (8, 2)])
def test_grouped_query_attention_equals_multi_head_with_repeated_kv_heads(h, kv_heads):
    rng = np.random.default_rng(h * 10 + kv_heads)
    q = rng.standard_normal((h, 5, 3))
    k, v = rng.standard_normal((2, kv_heads, 7, 3))
    mask = sa.causal_mask_bottom_right(5, 7)
    expected = np.stack([sa.scaled_dot_product_attention(q[i], k[i // (h // kv_heads)], v[i // (h // kv_heads)],
                                                         mask=mask) for i in range(h)])
    np.testing.assert_allclose(grouped_query_attention(q, k, v, mask=mask), expected, rtol=0, atol=1e-12)
    repeated = sa.scaled_dot_product_attention(q, np.repeat(k, h // kv_heads, axis=0),
                                               np.repeat(v, h // kv_heads, axis=0), mask=mask)
    np.testing.assert_allclose(grouped_query_attention(q, k, v, mask=mask), repeated, rtol=0, atol=1e-12)


def test_grouped_query_attention_takes_a_batch_axis():
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((3, 4, 2, 3)), rng.standard_normal((3, 1, 5, 3)), rng.standard_normal((3, 1, 5, 3))
    out = grouped_query_attention(q, k, v)
    for b in range(3):
        np.testing.assert_allclose(out[b], grouped_query_attention(q[b], k[b], v[b]), atol=1e-12)


def test_a_gqa_decoder_equals_the_mha_decoder_with_repeated_kv_weights():
    gqa = tiny_decoder(d_model=16, h=4, kv_heads=2, seed=5)
    d_head = gqa.d_head

    def repeat_columns(w):  # (d_model, kv_heads * d_head) -> (d_model, h * d_head)
        return np.repeat(w.reshape(w.shape[0], gqa.kv_heads, d_head), 2, axis=1).reshape(w.shape[0], -1)

    blocks = tuple(b._replace(w_k=repeat_columns(b.w_k), w_v=repeat_columns(b.w_v)) for b in gqa.blocks)
    mha = gqa._replace(blocks=blocks, kv_heads=4)
    tokens = [1, 0, 3, 7, 2]
    np.testing.assert_allclose(decoder_forward(gqa, tokens), decoder_forward(mha, tokens), atol=1e-12)
    small, big = KVCache.for_model(gqa, capacity=5), KVCache.for_model(mha, capacity=5)
    for t in tokens:
        np.testing.assert_allclose(decode_step(gqa, [t], small), decode_step(mha, [t], big), atol=1e-12)
    assert big.array.nbytes == 2 * small.array.nbytes


@pytest.mark.parametrize("kv_heads", [3, 5])
def test_kv_heads_that_do_not_divide_the_heads_are_refused(kv_heads):
    with pytest.raises(ValueError, match=f"kv_heads={kv_heads} does not divide the h=4"):
        tiny_decoder(h=4, kv_heads=kv_heads)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="does not divide"):
        grouped_query_attention(rng.standard_normal((4, 2, 3)), rng.standard_normal((kv_heads, 2, 3)),
                                rng.standard_normal((kv_heads, 2, 3)))


# ---------------------------------------------------------------------------
# The sliding-window cache
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("window", [0, 1, 2, 4])
def test_the_ring_buffer_equals_the_banded_causal_mask(window):
    model = tiny_decoder(seed=2)
    tokens = list(np.random.default_rng(window).integers(0, model.vocab, 11))
    cache = KVCache.for_model(model, window=window)
    steps = np.vstack([decode_step(model, [t], cache) for t in tokens])
    np.testing.assert_allclose(steps, decoder_forward(model, tokens, window=window), rtol=0, atol=ATOL)
    assert cache.array.shape[3] == window + 1  # only the last window + 1 positions are kept
    assert sorted(cache.positions) == list(range(len(tokens) - window - 1, len(tokens)))


def test_the_ring_buffer_takes_chunks_that_fit_it():
    model, window = tiny_decoder(seed=4), 3
    tokens = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    cache = KVCache.for_model(model, window=window)
    chunks = [tokens[:4], tokens[4:6], tokens[6:10]]
    out = np.vstack([decode_step(model, c, cache) for c in chunks])
    np.testing.assert_allclose(out, decoder_forward(model, tokens, window=window), rtol=0, atol=ATOL)


def test_a_window_wider_than_the_text_is_full_attention():
    model, tokens = tiny_decoder(), [0, 1, 4, 6]
    np.testing.assert_allclose(decoder_forward(model, tokens, window=10), decoder_forward(model, tokens),
                               atol=1e-12)
    assert generate(model, [0, 1, 4], 3, window=10) == generate(model, [0, 1, 4], 3)
    assert generate(model, [0, 1, 4], 5, window=1) == generate(model, [0, 1, 4], 5, window=1, cache=False)


def test_a_step_past_the_window_is_refused():
    model = tiny_decoder()
    cache = KVCache.for_model(model, window=2)
    with pytest.raises(ValueError, match="past the window: the ring buffer has 3 slots"):
        decode_step(model, [0, 1, 2, 3], cache)


def test_a_full_cache_refuses_more_tokens():
    model = tiny_decoder()
    cache = KVCache.for_model(model, capacity=3)
    decode_step(model, [0, 1], cache)
    with pytest.raises(ValueError, match="the cache holds 3 positions; 2 are used, so 2 more do not fit"):
        decode_step(model, [2, 3], cache)


# ---------------------------------------------------------------------------
# A cache of the wrong shape or dtype
# ---------------------------------------------------------------------------


def test_a_cache_of_another_model_is_refused():
    cache = KVCache.for_model(tiny_decoder(kv_heads=2), capacity=4)
    needs = r"cache has shape \(2, 2, 2, 4, 4\) but the model needs .* = \(2, 2, 4, n, 4\)"
    with pytest.raises(ValueError, match=needs):
        decode_step(tiny_decoder(), [0], cache)
    with pytest.raises(ValueError, match="cache has shape"):
        decode_step(tiny_decoder(layers=3), [0], KVCache.for_model(tiny_decoder(), capacity=4))


def test_a_cache_of_the_wrong_dtype_is_refused():
    with pytest.raises(TypeError, match="dtype must be float32 or float64, got int64"):
        KVCache(2, 4, 4, capacity=3, dtype=np.int64)
    cache = KVCache.for_model(tiny_decoder(), capacity=4)
    cache._buffer = cache._buffer.astype(np.float16)
    with pytest.raises(TypeError, match="cache must hold float32 or float64, got float16"):
        decode_step(tiny_decoder(), [0], cache)


def test_other_bad_inputs_are_refused():
    model = tiny_decoder()
    with pytest.raises(TypeError, match="cache must be a KVCache"):
        decode_step(model, [0], np.zeros((2, 2, 4, 3, 4)))
    with pytest.raises(TypeError, match="model must be a TinyDecoder"):
        decoder_forward("model", [0])
    with pytest.raises(TypeError, match="tokens must be integers"):
        decoder_forward(model, [0.5])
    with pytest.raises(ValueError, match="tokens must be ids in 0..11"):
        decoder_forward(model, [12])
    with pytest.raises(ValueError, match="non-empty"):
        decoder_forward(model, [])
    with pytest.raises(ValueError, match="window needs causal=True"):
        decoder_forward(model, [0], causal=False, window=2)
    with pytest.raises(ValueError, match="give the capacity"):
        KVCache(2, 4, 4)
    with pytest.raises(ValueError, match="window must be an integer >= 0"):
        KVCache(2, 4, 4, window=-1)
    with pytest.raises(TypeError, match="seed must be an integer"):
        tiny_decoder(seed=1.5)
    with pytest.raises(ValueError, match="does not divide d_model"):
        tiny_decoder(d_model=10, h=4)
    with pytest.raises(ValueError, match="k and v must have the same shape"):
        grouped_query_attention(np.ones((2, 1, 2)), np.ones((1, 3, 2)), np.ones((1, 2, 2)))
    with pytest.raises(ValueError, match="start must be an integer >= 0"):
        sa.sinusoidal_positions(2, 4, start=-1)
    with pytest.raises(ValueError, match="d_model=7 is odd"):
        tiny_decoder(d_model=7, h=1)


# ---------------------------------------------------------------------------
# Memory and counts
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kv_heads, dtype", [(4, np.float64), (2, np.float32), (1, np.float64)])
def test_the_memory_formula_is_the_cache_arrays_own_nbytes(kv_heads, dtype):
    model = tiny_decoder(kv_heads=kv_heads)
    cache = KVCache.for_model(model, capacity=9, dtype=dtype)
    for n, token in enumerate([0, 1, 4, 6, 7, 4, 2], start=1):
        decode_step(model, [token], cache)
        assert cache.array.nbytes == kv_cache_bytes(model.layers, kv_heads, model.d_head, n, dtype)


def test_the_memory_formula_for_the_published_configurations():
    assert kv_cache_bytes(32, 32, 128, 4096) == 2 * 32 * 32 * 128 * 4096 * 2 == 2**31
    assert kv_cache_bytes(32, 8, 128, 4096) == 2**29
    assert kv_cache_bytes(12, 12, 64, 1024, "float32") == 2 * 12 * 12 * 64 * 1024 * 4
    assert kv_cache_bytes(1, 1, 1, 1, batch=8) == 2 * 2 * 8
    for config in PUBLISHED.values():
        assert config.heads % config.kv_heads == 0
    assert dtype_bytes("bf16") == 2
    with pytest.raises(ValueError, match="n must be a positive integer"):
        kv_cache_bytes(1, 1, 1, 0)


def test_scores_per_step_sum_to_n_squared_and_n_cubed_orders():
    n = 200
    with_cache = sum(scores_per_step(t) for t in range(1, n + 1))
    without = sum(scores_per_step(t, cache=False) for t in range(1, n + 1))
    assert with_cache == n * (n + 1) // 2
    assert without == n * (n + 1) * (n + 2) // 6
    _, w = sa.scaled_dot_product_attention(np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)), causal=True,
                                           return_weights=True)
    assert int((w > 0).sum()) == scores_per_step(4, cache=False)


def test_time_per_token_is_positive_both_ways():
    model = tiny_decoder()
    assert 0 < time_per_token(model, 32, repeat=1) < 1
    assert 0 < time_per_token(model, 32, cache=False, repeat=1) < 1


# Review R4-1: the step that reads t tokens (feeds token t) picks token t + 1, and computes t scores with
# the cache and t (t + 1) / 2 without. These tests count the scores a real run computes.

@pytest.mark.parametrize("cache", [True, False])
def test_the_step_that_picks_token_t_plus_1_reads_t_tokens_and_computes_scores_per_step(cache):
    from tests.selfattention.score_counter import counted_steps

    model, prompt, steps = tiny_decoder(), [0, 1, 4], 6
    with counted_steps(model) as seen:
        out = generate(model, prompt, steps, cache=cache)
    assert len(seen) == steps and len(out) == len(prompt) + steps   # one step per token picked
    for k, step in enumerate(seen):
        t = len(prompt) + k                 # the step picks out[t], token t + 1 (counting from one)...
        assert step.S == t                  # ...and reads t tokens: it has no key for the token it picks
        if k == 0 and cache:                # the prefill reads the whole prompt at once
            assert (step.L, step.scores) == (t, scores_per_step(t, cache=False))
        else:
            assert step.L == (1 if cache else t)
            assert step.scores == scores_per_step(t, cache=cache)


@pytest.mark.parametrize("G", [1, 5, 30])
def test_writing_g_tokens_after_one_token_computes_the_totals_of_eq_gen_totals(G):
    from tests.selfattention.score_counter import counted_steps

    model = tiny_decoder()
    for cache, total in ((True, G * (G + 1) // 2), (False, G * (G + 1) * (G + 2) // 6)):
        with counted_steps(model) as seen:
            generate(model, [0], G, cache=cache)
        assert [s.S for s in seen] == list(range(1, G + 1))   # the G steps read 1, 2, ..., G tokens
        assert sum(s.scores for s in seen) == total


def test_the_generation_labs_counts_are_those_of_a_real_run():
    from booktools.labs.generation import generation_config, generation_states
    from tests.selfattention.score_counter import counted_steps

    config = generation_config()
    model, p, n = tiny_decoder(), config["prompt"], len(config["tokens"])
    ids = [VOCAB.index(w) for w in config["tokens"][:p]]
    for cache in (True, False):
        with counted_steps(model) as seen:
            out = generate(model, ids, n - p + 1, cache=cache)   # the steps that read p, ..., n tokens
        assert [VOCAB[i] for i in out] == config["tokens"] + [config["next"]]
        for state in generation_states(config):
            if state["cache"] != cache:
                continue
            step = seen[state["t"] - p]
            assert step.S == state["t"] and step.scores == state["step"], state["name"]
            assert state["total"] == sum(s.scores for s in seen[: state["t"] - p + 1]), state["name"]
            assert state["picked"] == VOCAB[out[state["t"]]], state["name"]   # token t + 1


def _published_params(vocab, d, layers, d_ff, mlp, d_kv, *, positions=0, biases=False, tied=False):
    """Parameters of a decoder from its shapes: embeddings, layers, the final norm and the output matrix."""
    attention = 2 * d * d + 2 * d * d_kv + (2 * d + 2 * d_kv if biases else 0)
    feed = mlp * d * d_ff + ((d_ff + d) if biases else 0)
    norms = 2 * d * (2 if biases else 1)                        # layer norm has a gain and a bias; RMSNorm a gain
    final = d * (2 if biases else 1)
    return vocab * d + positions * d + layers * (attention + feed + norms) + final + (0 if tied else vocab * d)


def test_the_published_parameter_counts_follow_from_the_shapes():
    # Review R4-7: the released models' counts, not the papers' names (117M, 7B, 7B).
    gpt2, llama, mistral = PUBLISHED["GPT-2 small"], PUBLISHED["Llama 2 7B"], PUBLISHED["Mistral 7B"]
    assert gpt2.params == _published_params(50257, 768, 12, 3072, 2, 768, positions=1024, biases=True, tied=True)
    assert llama.params == _published_params(32000, 4096, 32, 11008, 3, 4096)
    assert mistral.params == _published_params(32000, 4096, 32, 14336, 3, 1024)
    assert (gpt2.named, llama.named, mistral.named) == ("117M", "7B", "7B")
    assert mistral.params > llama.params and mistral.kept(10**6) == mistral.window == 4096


def test_the_matrices_outweigh_the_attention_of_llama_2_7b_up_to_about_25k_tokens():
    # Review R4-5: per layer and token, 8 d^2 + 6 d d_ff against 4 n d.
    c = PUBLISHED["Llama 2 7B"]
    d = c.d_model
    assert c.matrix_flops() == 8 * d * d + 6 * d * c.d_ff
    crossover = c.matrix_flops() / (4 * d)
    assert 24_000 < crossover < 25_000
    m, a = c.step_flops(int(crossover))
    assert m == a
    m, a = c.step_flops(100, cache=False)
    assert m == 100 * c.matrix_flops() and a == c.heads * 4 * c.d_head * scores_per_step(100, cache=False)
