"""The writer: tokenizer, model, chain-rule gradients, training, sampling with a cache, n-grams, corpus."""

from __future__ import annotations

import math

import numpy as np
import pytest

from selfattention import gelu
from selfattention.fast.normal import normal_cdf, normal_pdf
from selfattention.writer import (
    UNKNOWN,
    CharTokenizer,
    WriterSizes,
    bits_by_context,
    bits_per_character,
    check_writer_gradients,
    check_writer_params,
    cosine_learning_rate,
    draw_index,
    greedy_draw,
    held_out_bits,
    init_writer,
    layer_norm_backward,
    load_writer,
    next_distribution,
    ngram_bits_per_character,
    ngram_model,
    page_prose,
    random_windows,
    read_corpus,
    save_writer,
    seconds_per_char,
    softmax_cross_entropy,
    split_corpus,
    temperature_draw,
    top_k_draw,
    top_p_draw,
    train_writer,
    weights_digest,
    write,
    writer_cache,
    writer_decode_step,
    writer_forward,
    writer_loss_and_gradients,
    writer_shapes,
)
from selfattention.writer.model import LN_EPS, NAMES
from selfattention.writer.training import STEPS

TINY = WriterSizes(vocab=7, n_positions=5, d_model=8, heads=2, layers=2, d_ff=12)
SMALL = WriterSizes(vocab=12, n_positions=10, d_model=16, heads=4, layers=2, d_ff=24)


def scrambled(sizes: WriterSizes, seed: int = 3, scale: float = 0.4) -> dict:
    """Parameters far from their start: layer-norm scales, shifts and biases all matter."""
    rng = np.random.default_rng(seed)
    return {k: v + rng.normal(0.0, scale, v.shape) for k, v in init_writer(sizes, 0).items()}


def independent_forward(params: dict, tokens, sizes: WriterSizes) -> np.ndarray:
    """The writer's logits written again from its description, position by position, with math.erf."""
    def norm(x, g, b):
        return (x - x.mean()) / math.sqrt(x.var() + LN_EPS) * g + b

    def gelu_exact(h):
        return np.array([v * 0.5 * (1.0 + math.erf(v / math.sqrt(2.0))) for v in h])

    n, dh = len(tokens), sizes.d_head
    x = [params["W_E"][t] + params["W_pos"][i] for i, t in enumerate(tokens)]
    for lyr in range(sizes.layers):
        a = [norm(xi, params["ln1_g"][lyr], params["ln1_b"][lyr]) for xi in x]
        q = [ai @ params["W_Q"][lyr] for ai in a]
        k = [ai @ params["W_K"][lyr] for ai in a]
        v = [ai @ params["W_V"][lyr] for ai in a]
        out = []
        for i in range(n):
            z = np.zeros(sizes.d_model)
            for h in range(sizes.heads):
                cols = slice(h * dh, (h + 1) * dh)
                s = np.array([q[i][cols] @ k[j][cols] / math.sqrt(dh) for j in range(i + 1)])
                w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
                z[cols] = sum(w[j] * v[j][cols] for j in range(i + 1))
            out.append(x[i] + z @ params["W_O"][lyr])
        x = [xi + gelu_exact(norm(xi, params["ln2_g"][lyr], params["ln2_b"][lyr]) @ params["W_1"][lyr]
                             + params["b_1"][lyr]) @ params["W_2"][lyr] + params["b_2"][lyr] for xi in out]
    return np.array([norm(xi, params["lnf_g"], params["lnf_b"]) @ params["W_U"] for xi in x])


# The tokenizer

def test_tokenizer_round_trips_the_corpus_and_marks_unknown_characters():
    tok = CharTokenizer.from_corpus("the cat sat.")
    assert tok.decode(tok.encode("the cat sat.")) == "the cat sat."
    ids = tok.encode("cat!")
    assert ids[-1] == tok.unknown_id == tok.vocab - 1
    assert tok.decode(ids) == "cat" + UNKNOWN


@pytest.mark.parametrize("call, error, words", [
    (lambda: CharTokenizer.from_corpus(b"abc"), TypeError, "corpus must be a str"),
    (lambda: CharTokenizer.from_corpus(""), ValueError, "corpus must hold"),
    (lambda: CharTokenizer.from_corpus("a" + UNKNOWN), ValueError, "unknown symbol"),
    (lambda: CharTokenizer("ba"), ValueError, "sorted"),
    (lambda: CharTokenizer("aab"), ValueError, "each character once"),
    (lambda: CharTokenizer("ab").encode(["a"]), TypeError, "text must be a str"),
    (lambda: CharTokenizer("ab").decode([0, 5]), ValueError, "got 5 at index 1"),
    (lambda: CharTokenizer("ab").decode([0.0, 1.0]), TypeError, "ids must be integers"),
    (lambda: CharTokenizer("ab").decode([[0, 1]]), ValueError, "one-dimensional"),
])
def test_tokenizer_names_the_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()


# Φ, φ and GELU

def test_normal_cdf_equals_math_erfc_to_rounding():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(20_000) * 3, rng.uniform(-11, 11, 5_000), np.linspace(-10, 10, 641)])
    exact = np.array([0.5 * math.erfc(-v / math.sqrt(2.0)) for v in x])
    np.testing.assert_allclose(normal_cdf(x), exact, rtol=0, atol=2.3e-16)


def test_the_books_float64_gelu_is_exact_to_rounding():
    x = np.random.default_rng(1).standard_normal((4, 50)) * 4
    exact = np.array([[v * 0.5 * math.erfc(-v / math.sqrt(2.0)) for v in row] for row in x])
    np.testing.assert_allclose(gelu(x), exact, rtol=0, atol=2e-15)


def test_normal_pdf_is_the_slope_of_normal_cdf():
    x, h = np.linspace(-6, 6, 121), 1e-5
    np.testing.assert_allclose((normal_cdf(x + h) - normal_cdf(x - h)) / (2 * h), normal_pdf(x), rtol=0, atol=1e-10)


# The model

@pytest.mark.parametrize("kwargs, error", [
    ({"vocab": 0}, ValueError), ({"vocab": 5.0}, TypeError), ({"vocab": 5, "heads": 5}, ValueError),
    ({"vocab": 5, "layers": True}, TypeError), ({"vocab": 5, "d_ff": -1}, ValueError),
])
def test_sizes_refuse_bad_values(kwargs, error):
    with pytest.raises(error):
        WriterSizes(**kwargs)


def test_parameter_count_adds_up_the_shapes():
    sizes = WriterSizes(vocab=100, n_positions=128, d_model=128, heads=4, layers=4, d_ff=512)
    d, lyr = 128, 4
    per_layer = 4 * d * d + 2 * d * 512 + 512 + d + 4 * d
    assert sizes.parameter_count == 2 * 100 * d + 128 * d + lyr * per_layer + 2 * d
    assert list(writer_shapes(sizes)) == list(NAMES)


def test_forward_equals_an_independent_pass_position_by_position():
    params, tokens = scrambled(SMALL), [3, 1, 4, 1, 5, 9, 2, 6]
    logits, _ = writer_forward(params, tokens, SMALL)
    np.testing.assert_allclose(logits[0], independent_forward(params, tokens, SMALL), rtol=0, atol=1e-12)


def test_a_later_character_changes_no_earlier_logit():
    params = scrambled(SMALL)
    a, trace = writer_forward(params, [1, 2, 3, 4, 5], SMALL)
    b, _ = writer_forward(params, [1, 2, 3, 4, 11], SMALL)
    np.testing.assert_array_equal(a[0, :4], b[0, :4])
    assert not np.allclose(a[0, 4], b[0, 4])
    for parts in trace:
        w = parts["weights"]                                       # (1, heads, n, n)
        np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
        assert (np.triu(np.ones((5, 5)), 1) * w).max() == 0.0


def test_a_batch_gives_each_row_its_own_logits():
    params = scrambled(SMALL)
    both, _ = writer_forward(params, [[1, 2, 3], [4, 5, 6]], SMALL)
    np.testing.assert_allclose(both[1], writer_forward(params, [4, 5, 6], SMALL)[0][0], rtol=0, atol=1e-13)


@pytest.mark.parametrize("tokens, error, words", [
    ([0, 12], ValueError, "character ids 0 to 11"),
    ([0.0, 1.0], TypeError, "integer"),
    (list(range(11)), ValueError, "n_positions=10"),
    ([[[1]]], ValueError, "shape"),
])
def test_forward_names_bad_tokens(tokens, error, words):
    with pytest.raises(error, match=words):
        writer_forward(init_writer(SMALL, 0), tokens, SMALL)


def test_check_params_names_the_parameter_at_fault():
    params = init_writer(SMALL, 0)
    with pytest.raises(ValueError, match="missing \\['b_1'\\]"):
        check_writer_params({k: v for k, v in params.items() if k != "b_1"}, SMALL)
    with pytest.raises(ValueError, match="W_pos must have shape \\(10, 16\\)"):
        check_writer_params({**params, "W_pos": params["W_pos"][:5]}, SMALL)
    with pytest.raises(ValueError, match="ln2_g contains NaN"):
        check_writer_params({**params, "ln2_g": params["ln2_g"] * np.nan}, SMALL)
    with pytest.raises(TypeError, match="sizes must be a WriterSizes"):
        writer_forward(params, [1, 2], (12, 10, 16, 4, 2, 24))


# The gradients

@pytest.fixture(scope="module")
def gaps():
    tokens = np.random.default_rng(5).integers(0, TINY.vocab, (2, TINY.n_positions + 1))
    return {"start": check_writer_gradients(init_writer(TINY, 1), tokens, TINY, per_parameter=8),
            "trained": check_writer_gradients(scrambled(TINY), tokens, TINY, per_parameter=8)}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("where", ["start", "trained"])
def test_every_parameters_gradient_matches_finite_differences(gaps, name, where):
    assert gaps[where][name] < 1e-7, f"{name}: {gaps[where][name]:.2e}"


def test_layer_norm_backward_matches_finite_differences():
    rng = np.random.default_rng(2)
    x, g, d_y, h = rng.standard_normal((3, 6)), rng.standard_normal(6), rng.standard_normal((3, 6)), 1e-6

    def f(x):
        c = x - x.mean(axis=-1, keepdims=True)
        return float((d_y * c / np.sqrt((c * c).mean(axis=-1, keepdims=True) + LN_EPS) * g).sum())

    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        numeric[i] = (f(x + e) - f(x - e)) / (2 * h)
    np.testing.assert_allclose(layer_norm_backward(d_y, x, g)[0], numeric, rtol=0, atol=1e-8)


def test_cross_entropy_of_equal_scores_is_ln_vocab_and_names_bad_targets():
    loss, d = softmax_cross_entropy(np.zeros((2, 3, 5)), np.zeros((2, 3), dtype=int))
    assert loss == pytest.approx(math.log(5), abs=1e-12)
    np.testing.assert_allclose(d.sum(axis=-1), 0.0, atol=1e-15)
    with pytest.raises(ValueError, match="targets must be 0 to 4"):
        softmax_cross_entropy(np.zeros((1, 5)), [5])


def test_loss_needs_a_window_of_two():
    with pytest.raises(ValueError, match="at least 2 characters"):
        writer_loss_and_gradients(init_writer(SMALL, 0), [[3]], SMALL)


# Training and the weight file

def test_training_is_deterministic_and_learns_a_repeating_text():
    sizes = WriterSizes(vocab=6, n_positions=8, d_model=16, heads=2, layers=1, d_ff=16)
    text = "abcde" * 60
    kwargs = {"sizes": sizes, "steps": 40, "batch": 4, "lr": 1e-2, "warmup": 5, "eval_every": 20}
    a, b = train_writer(text, **kwargs), train_writer(text, **kwargs)
    assert weights_digest(a["params"]) == weights_digest(b["params"])
    assert weights_digest(train_writer(text, seed=1, **kwargs)["params"]) != weights_digest(a["params"])
    assert a["held_out_bpc"][0] > 2.0 and a["held_out_bpc"][-1] < 0.5   # log2(6) = 2.58 at the start
    assert a["loss"].shape == (40,) and a["eval_step"].tolist() == [0, 20, 40]
    prefix = train_writer(text, **{**kwargs, "steps": 15, "schedule_steps": 40})   # the first 15 steps of a
    np.testing.assert_array_equal(prefix["loss"], a["loss"][:15])                  # longer run, bit for bit


def test_a_run_survives_the_weight_file(tmp_path):
    sizes = WriterSizes(vocab=6, n_positions=8, d_model=16, heads=2, layers=1, d_ff=16)
    run = train_writer("abcde" * 30, sizes=sizes, steps=3, batch=2, eval_every=3)
    save_writer(run, tmp_path / "w32.npz", dtype=np.float32)
    save_writer(run, tmp_path / "w16.npz")
    back32, back16 = load_writer(tmp_path / "w32.npz"), load_writer(tmp_path / "w16.npz")
    assert back16["sizes"] == sizes and back16["tokenizer"].chars == "abcde"
    assert back16["meta"]["settings"]["steps"] == 3 and back16["meta"]["dtype"] == "float16"
    for name in NAMES:
        np.testing.assert_array_equal(back32["params"][name], run["params"][name].astype(np.float32))
        np.testing.assert_array_equal(back16["params"][name], run["params"][name].astype(np.float16))
    np.testing.assert_array_equal(back16["held_out_bpc"], run["held_out_bpc"])
    np.testing.assert_array_equal(back16["loss"], run["loss"])


def test_a_short_retraining_repeats_the_shipped_run():
    """The seed and the frozen corpus repeat the shipped run's first steps: bit for bit on a CPU of the
    same kind, within a few units of the last place on another (as the copying model's test explains)."""
    shipped = load_writer()
    settings = shipped["meta"]["settings"]
    assert settings["steps"] == STEPS and shipped["sizes"] == WriterSizes(vocab=shipped["tokenizer"].vocab)
    prefix = train_writer(steps=4, schedule_steps=settings["steps"], eval_every=4)
    np.testing.assert_allclose(prefix["loss"], shipped["loss"][:4], rtol=1e-13, atol=0)
    assert prefix["samples"][0] == shipped["samples"][0]                  # the untrained model's continuation
    assert shipped["eval_step"][-1] == STEPS and len(shipped["samples"]) == len(shipped["eval_step"])


def test_the_shipped_writer_beats_the_trigram_on_held_out_text():
    shipped = load_writer()
    text = read_corpus()
    tok = shipped["tokenizer"]
    train_ids, held_ids = (tok.encode(part) for part in split_corpus(text))
    trigram = ngram_bits_per_character(ngram_model(train_ids, 3, tok.vocab), held_ids)
    assert shipped["held_out_bpc"][-1] < trigram     # measured in float64 during training
    assert len(shipped["meta"]["chars"]) + 1 == tok.vocab and shipped["meta"]["settings"]["corpus_sha256"]


def test_learning_rate_warms_up_then_falls_to_a_tenth():
    lrs = [cosine_learning_rate(s, total=50, lr=1.0, warmup=10) for s in range(1, 51)]
    assert lrs[9] == 1.0 and lrs[-1] == pytest.approx(0.1)
    assert all(a < b for a, b in zip(lrs[:9], lrs[1:10])) and all(a >= b for a, b in zip(lrs[9:], lrs[10:]))


def test_random_windows_are_consecutive_runs_of_the_text():
    windows = random_windows(np.arange(100), 50, 7, np.random.default_rng(0))
    assert (np.diff(windows, axis=1) == 1).all() and windows.min() >= 0 and windows.max() <= 99


# Sampling and the cache

@pytest.mark.parametrize("options", [{}, {"temperature": 1.3, "top_k": 5}, {"temperature": 0.8, "top_p": 0.9}])
def test_writing_with_the_cache_equals_full_passes_even_past_the_context(options):
    params, prompt = scrambled(SMALL), [1, 2, 3]
    with_cache = write(params, prompt, 14, SMALL, seed=4, weights=True, **options)   # 3 + 14 > n_positions = 10
    without = write(params, prompt, 14, SMALL, seed=4, cache=False, weights=True, **options)
    assert with_cache["ids"] == without["ids"]
    np.testing.assert_allclose(with_cache["probs"], without["probs"], rtol=0, atol=1e-12)
    assert [w.shape for w in with_cache["weights"]] == [(2, 4, min(3 + i, 10)) for i in range(14)]
    for a, b in zip(with_cache["weights"], without["weights"]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_a_decode_step_gives_the_full_passes_last_row():
    params, cache = scrambled(SMALL), writer_cache(SMALL)
    first, _ = writer_decode_step(params, [5, 6, 7], cache, SMALL)
    last, trace = writer_decode_step(params, [8], cache, SMALL)
    full, full_trace = writer_forward(params, [5, 6, 7, 8], SMALL)
    np.testing.assert_allclose(np.vstack([first, last]), full[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(trace[1]["weights"], full_trace[1]["weights"][0, :, 3:], rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="do not fit"):
        writer_decode_step(params, list(range(7)), cache, SMALL)


def test_the_rules_draw_from_what_they_say():
    logits = np.log([0.4, 0.3, 0.2, 0.1])
    rng = np.random.default_rng(0)
    assert greedy_draw(logits).token == 0
    np.testing.assert_allclose(temperature_draw(logits, 1.0, rng).probs, [0.4, 0.3, 0.2, 0.1])
    np.testing.assert_allclose(temperature_draw(logits, 1e3, rng).probs, 0.25, atol=1e-3)
    np.testing.assert_allclose(top_k_draw(logits, 2, rng).probs, [4 / 7, 3 / 7, 0, 0])
    np.testing.assert_allclose(top_p_draw(logits, 0.7, rng).probs, [4 / 7, 3 / 7, 0, 0])   # 0.4 < 0.7 <= 0.7
    np.testing.assert_allclose(top_p_draw(logits, 0.71, rng).probs, [4 / 9, 3 / 9, 2 / 9, 0])
    np.testing.assert_allclose(top_p_draw(logits, 0.1, rng).probs, [1, 0, 0, 0])
    assert next_distribution(logits, temperature=0).tolist() == [1.0, 0.0, 0.0, 0.0]


def test_draws_follow_the_distribution_and_never_pick_a_zero():
    rng = np.random.default_rng(1)
    draws = np.array([draw_index([0.5, 0.0, 0.3, 0.2], rng) for _ in range(4000)])
    assert (draws != 1).all()
    np.testing.assert_allclose(np.bincount(draws, minlength=4) / 4000, [0.5, 0, 0.3, 0.2], atol=0.03)


@pytest.mark.parametrize("call, error, words", [
    (lambda: temperature_draw([1.0, 2.0], 0, np.random.default_rng()), ValueError, "temperature"),
    (lambda: top_k_draw([1.0, 2.0], 3, np.random.default_rng()), ValueError, "top_k"),
    (lambda: top_p_draw([1.0, 2.0], 1.5, np.random.default_rng()), ValueError, "top_p"),
    (lambda: top_p_draw([1.0, 2.0], 0.5, 0), TypeError, "rng"),
    (lambda: greedy_draw([[1.0, 2.0]]), ValueError, "logits"),
    (lambda: write(init_writer(SMALL, 0), [], 3, SMALL), ValueError, "prompt"),
    (lambda: write(init_writer(SMALL, 0), [1, 99], 3, SMALL), ValueError, "prompt"),
    (lambda: write(init_writer(SMALL, 0), [1], 0, SMALL), ValueError, "steps"),
    (lambda: writer_decode_step(init_writer(SMALL, 0), [1], writer_cache(TINY), SMALL), ValueError, "cache"),
])
def test_sampling_names_the_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_seconds_per_char_times_both_ways():
    params = init_writer(SMALL, 0)
    assert 0 < seconds_per_char(params, SMALL, 9, repeat=2) < 1
    assert 0 < seconds_per_char(params, SMALL, 9, cache=False, repeat=2) < 1
    with pytest.raises(ValueError, match="n must be 1 to n_positions - 1 = 9"):
        seconds_per_char(params, SMALL, 10)


# N-grams and bits per character

@pytest.mark.parametrize("smoothing", ["witten-bell", "add-one"])
@pytest.mark.parametrize("order", [1, 2, 3])
def test_every_ngram_distribution_sums_to_one(smoothing, order):
    ids = np.random.default_rng(0).integers(0, 5, 200)
    probs = ngram_model(ids, order, 6, smoothing=smoothing).probs
    np.testing.assert_allclose(probs.sum(axis=-1), 1.0, atol=1e-12)
    assert probs.min() > 0


def test_witten_bell_gives_unseen_characters_the_lower_orders_share():
    ids = [0, 1, 0, 1, 0, 2]                                       # after 0: 1 twice, 2 once
    uni = ngram_model(ids, 1, 3).probs                             # add-one: (3, 2, 1) + 1 over 9
    np.testing.assert_allclose(uni, [4 / 9, 3 / 9, 2 / 9])
    bi = ngram_model(ids, 2, 3).probs[0]                           # C(0) = 3, T(0) = 2
    np.testing.assert_allclose(bi, (np.array([0, 2, 1]) + 2 * uni) / 5)


def test_bits_per_character_of_a_window_is_the_training_loss_in_bits():
    params, window = scrambled(SMALL), np.array([1, 5, 2, 8, 3, 3, 0, 11, 4, 7, 6])   # n_positions + 1
    loss, _ = writer_loss_and_gradients(params, window[None], SMALL)
    assert bits_per_character(params, window, SMALL) == pytest.approx(loss / math.log(2), abs=1e-12)
    longer = np.tile(window, 3)                                    # 33 ids: 3 windows of 11 (overlapping by 1)
    nats = [writer_loss_and_gradients(params, longer[None, i:i + 11], SMALL)[0] * 10 for i in (0, 10, 20)]
    nats.append(writer_loss_and_gradients(params, longer[None, 30:], SMALL)[0] * 2)   # and one of 3
    assert bits_per_character(params, longer, SMALL) == pytest.approx(sum(nats) / 32 / math.log(2), abs=1e-12)


def test_a_uniform_unigram_spends_log2_vocab_bits():
    model = ngram_model(np.arange(8), 1, 8)
    assert ngram_bits_per_character(model, [3, 1, 4, 1, 5]) == pytest.approx(3.0)
    with pytest.raises(ValueError, match="entries"):
        ngram_model([0, 1], 5, 108)


# The corpus

def test_the_snapshot_is_plain_prose():
    text = read_corpus()
    assert 150_000 < len(text) < 250_000
    for markup in ("```", "{glue", "{term}", "$", "{{", ":::", "\\frac", UNKNOWN):
        assert markup not in text, markup
    assert text.startswith("Self-Attention, Computed\n") and "A weighted average\n" in text


def test_the_held_out_text_is_the_last_tenth_cut_at_a_line():
    text = read_corpus()
    train, held = split_corpus(text)
    assert train + held == text and train.endswith("\n")
    assert 0.1 <= len(held) / len(text) < 0.11


def test_page_prose_keeps_words_and_drops_markup_and_holes():
    page = ("---\nkernelspec:\n  name: python3\n---\n\n(ch-x)=\n# Title\n\nSee {doc}`other <p>` and $\\sqrt{d_k}$. "
            "It is {glue:text}`x:.2f` long.\nA [link](http://x) and `code`.\n\n```{code-cell} ipython3\n"
            "x = 1\n```\n\n$$\na = b\n$$\n\n| a | b |\n")
    assert page_prose(page) == "Title\nSee other and √d_k. A link and code.\n"


def test_held_out_bits_are_the_dense_models_up_to_a_trigram_and_go_further():
    rng = np.random.default_rng(3)
    train, text = rng.integers(0, 7, 2_000), rng.integers(0, 7, 300)
    train[::5] = 2                                                    # some structure to count
    for order in (1, 2, 3):
        dense = ngram_bits_per_character(ngram_model(train, order, 7), text)
        assert held_out_bits(train, text, order, 7) == pytest.approx(dense, rel=1e-12)
    assert np.isfinite(held_out_bits(train, text, 6, 7))
    with pytest.raises(ValueError, match="order must be 1 to 8"):
        held_out_bits(train, text, 9, 7)
    with pytest.raises(ValueError, match="at least order=4"):
        held_out_bits(train, text[:3], 4, 7)


def test_bits_by_context_averages_to_the_full_windows_bits_per_character():
    sizes = WriterSizes(vocab=9, n_positions=8, d_model=16, heads=2, layers=1, d_ff=16)
    params = init_writer(sizes, 2)
    ids = np.random.default_rng(4).integers(0, 9, 8 * 5 + 1)          # exactly 5 full windows
    by_t = bits_by_context(params, ids, sizes)
    assert by_t.shape == (8,)
    assert by_t.mean() == pytest.approx(bits_per_character(params, ids, sizes), rel=1e-12)
    with pytest.raises(ValueError, match="at least n_positions"):
        bits_by_context(params, ids[:8], sizes)
