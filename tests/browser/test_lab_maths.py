"""The labs' shared maths (``_static/sa/maths.js``) and number format (``format.js``) equal the package.

Every lab computes with these two modules, so each function is run in
Chromium on inputs chosen here and compared with the package's own result:
softmax, self-attention's scores, weights and output, the weighted average,
the count of scores, one head's weights from stored scores, float16 decoding
(every one of the 65,536 bit patterns), the book's number formats, the
apple/sweet head's loss, gradient and gradient descent on c, multi-head
attention, with its queries cut from one W_Q or made head by head, and the
copying model read with a KV cache: for models of any sizes and any place of
the positions, and for the built chapter's own float16 parameters, whose guesses
must be the shipped model's.
"""

from __future__ import annotations

import base64

import numpy as np
import pytest

import selfattention as sa
from booktools.formatting import fmt, format_count
from booktools.head_weights import MEAN, head_weights
from booktools.labs.copying import ROUNDING_TOLERANCE, decode_matrices, encode_matrices, sizes_json
from booktools.labs.explorer import compact_scores, decode_scores, encode_scores
from selfattention.induction import continue_sequence, training
from selfattention.induction.generation import empty_cache, read_symbol
from selfattention.induction.model import SIZES, Sizes, init_params
from tests.browser.conftest import read_config

pytestmark = pytest.mark.browser

RNG = np.random.default_rng(7)


@pytest.fixture(scope="module")
def run(browser, site_url):
    """Call ``fn(maths, format, arg)`` in the browser, with the site's own modules."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{site_url}/index.html")

    def call(body: str, arg=None):
        return page.evaluate(
            f"""async (arg) => {{
                const maths = await import("{site_url}/_static/sa/maths.js");
                const format = await import("{site_url}/_static/sa/format.js");
                return ({body})(maths, format, arg);
            }}""", arg)

    yield call
    context.close()


def test_softmax_equals_the_package_even_for_large_scores(run):
    rows = [RNG.normal(0, 3, 7).tolist(), [1000.0, 999.0, -1000.0], [0.0], [-5.0, -5.0, -5.0, -5.0],
            (RNG.normal(0, 30, 16)).tolist()]
    got = run("(m, f, rows) => rows.map(m.softmax)", rows)
    for row, js in zip(rows, got):
        np.testing.assert_allclose(js, sa.softmax(np.array(row)), rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("scaled", [True, False])
@pytest.mark.parametrize("shape", [(3, 2), (5, 4), (2, 7)])
def test_self_attention_equals_the_package(run, scaled, shape):
    x = RNG.normal(0, 1.5, shape)
    got = run("(m, f, a) => m.selfAttention(a.x, a.scaled)", {"x": x.tolist(), "scaled": scaled})
    scale = None if scaled else 1.0
    out, weights = sa.scaled_dot_product_attention(x, x, x, scale=scale, return_weights=True)
    np.testing.assert_allclose(got["scores"], sa.attention_scores(x, x, scale=scale), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(got["weights"], weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got["output"], out, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("d_model, d_k, d_v", [(2, 2, 2), (3, 2, 2), (4, 3, 5)])
def test_one_head_step_by_step_equals_the_package(run, d_model, d_k, d_v):
    x = RNG.normal(0, 1.5, (4, d_model))
    w_q, w_k, w_v = RNG.normal(0, 1, (d_model, d_k)), RNG.normal(0, 1, (d_model, d_k)), RNG.normal(0, 1, (d_model, d_v))
    got = run("(m, f, a) => m.headTrace(a.x, a.wq, a.wk, a.wv)",
              {"x": x.tolist(), "wq": w_q.tolist(), "wk": w_k.tolist(), "wv": w_v.tolist()})
    expected = sa.head_trace(x, w_q, w_k, w_v)
    names = {"q": "q", "k": "k", "v": "v", "rawScores": "raw_scores", "scores": "scores", "weights": "weights",
             "output": "output"}
    for js, py in names.items():
        np.testing.assert_allclose(got[js], expected[py], rtol=1e-12, atol=1e-13, err_msg=js)
    a, b = RNG.normal(0, 1, (3, 4)), RNG.normal(0, 1, (4, 2))
    np.testing.assert_allclose(run("(m, f, a) => m.matmul(a.a, a.b)", {"a": a.tolist(), "b": b.tolist()}), a @ b,
                               rtol=1e-13, atol=1e-14)


def test_is_symmetric_uses_the_tolerance_it_is_given(run):
    s = np.array([[1.0, 2.0], [2.0, 3.0]])
    cases = [(s, 0.0), (s + np.array([[0, 1e-10], [0, 0]]), 1e-9), (s + np.array([[0, 1e-8], [0, 0]]), 1e-9),
             (np.array([[0.0, 2.83], [0.0, 0.0]]), 1e-9)]
    got = run("(m, f, cases) => cases.map(([mat, tol]) => m.isSymmetric(mat, tol))",
              [[c.tolist(), t] for c, t in cases])
    assert got == [bool(np.abs(c - c.T).max() <= t) for c, t in cases] == [True, True, False, False]


def test_weighted_average_is_weights_times_values(run):
    w = sa.softmax(RNG.normal(0, 1, (4, 6)))
    v = RNG.normal(0, 1, (6, 3))
    got = run("(m, f, a) => m.weightedAverage(a.w, a.v)", {"w": w.tolist(), "v": v.tolist()})
    np.testing.assert_allclose(got, w @ v, rtol=1e-13, atol=1e-14)


def test_score_count_equals_the_package(run):
    ns = list(range(1, 301)) + [4096, 128_000]
    assert run("(m, f, ns) => ns.map(m.scoreCount)", ns) == [sa.cost.score_count(n) for n in ns]


def test_every_float16_bit_pattern_decodes_exactly(run):
    bits = np.arange(2**16, dtype="<u2")
    text = base64.b64encode(bits.tobytes()).decode("ascii")
    got = run("(m, f, t) => Array.from(m.decodeFloat16(t), v => Number.isNaN(v) ? 'nan' : v)", text)
    expected = bits.view("<f2").astype(np.float64)
    nan = np.isnan(expected)
    assert [i for i, v in enumerate(got) if v == "nan"] == np.flatnonzero(nan).tolist()
    finite = [v if v != "nan" else 0.0 for v in got]
    js = np.array([float("inf") if v == "Infinity" else v for v in finite], dtype=np.float64)
    np.testing.assert_array_equal(js[~nan], expected[~nan])


def test_one_head_and_the_mean_of_heads_equal_the_package(run):
    stored = compact_scores(RNG.normal(0, 4, (2, 3, 5, 5)))
    text = encode_scores(stored)
    flat = decode_scores(text, stored.shape)
    cases = [(0, 0, 1.0), (1, 2, 0.25), (1, MEAN, 2.0), (0, MEAN, 1.0)]
    got = run("""(m, f, a) => {
        const flat = m.decodeFloat16(a.text);
        const [layers, heads, L] = a.shape;
        const block = (l, h, T) => m.softmaxBlock(flat, (l * heads + h) * L * L, L, T);
        return a.cases.map(([l, h, T]) => h === "mean"
            ? m.meanOf(Array.from({length: heads}, (_, k) => block(l, k, T))) : block(l, h, T));
    }""", {"text": text, "shape": list(stored.shape), "cases": cases})
    for (layer, head, t), js in zip(cases, got):
        np.testing.assert_allclose(js, head_weights(flat, layer, head, temperature=t), rtol=1e-12, atol=1e-15)


def test_number_formats_equal_the_package(run):
    # Exact ties (0.125, 1.25, 2.5, -0.5) round to even in Python: the JavaScript must too.
    values = [0.76805, 0.1875, -0.0004, -0.004, 2, 1e-9, -1.25, 1.25, 0.125, 2.5, 3.5, -0.5, 0.0625, 123.4567,
              0.0005, 0.9995, -0.9995, 1e-300]
    pairs = [(v, d) for v in values for d in (0, 1, 2, 3)]
    got = run("(m, f, pairs) => pairs.map(([v, d]) => f.fmt(v, d))", pairs)
    assert got == [fmt(v, d) for v, d in pairs]
    counts = [0, 7, 999, 1000, 4096, 65536, 16_384_000_000]
    assert run("(m, f, c) => c.map(f.formatCount)", counts) == [format_count(c) for c in counts]


# --- learning-where-to-look: the apple/sweet head and gradient descent on c.

@pytest.mark.parametrize("c", [-3.0, -0.5, 0.0, 0.35355, 1.0, 4.57, 9.0])
def test_apple_sweet_loss_and_gradient_equal_the_package(run, c):
    got = run("(m, f, c) => m.appleSweet(c)", c)
    r = sa.apple_sweet_loss(c)
    np.testing.assert_allclose(got["weight"], r["weight"], rtol=1e-14)
    np.testing.assert_allclose(got["output"], r["output"], rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(got["loss"], r["loss"], rtol=1e-12, atol=1e-16)
    np.testing.assert_allclose(got["gradient"], sa.apple_sweet_gradient(c), rtol=1e-12, atol=1e-16)


@pytest.mark.parametrize("c0, steps, lr", [(0.0, 1, 1.0), (0.0, 10, 1.0), (0.0, 200, 1.0), (-2.0, 50, 0.5)])
def test_gradient_descent_on_c_equals_the_package(run, c0, steps, lr):
    got = run("(m, f, a) => ({path: m.descend(a.c0, a.steps, a.lr), one: m.gradientStep(a.c0, a.lr)})",
              {"c0": c0, "steps": steps, "lr": lr})
    np.testing.assert_allclose(got["path"], sa.descend(c0, steps, lr), rtol=1e-12)
    np.testing.assert_allclose(got["one"], sa.gradient_step(c0, lr), rtol=1e-13)


# --- why-divide-by-sqrt-dk ------------------------------------------------------------------------

@pytest.mark.parametrize("t", [1.0, float(np.sqrt(2)), 0.05, 0.25, 3.35, 100.0])
def test_softmax_with_temperature_equals_the_package(run, t):
    rows = [[4.0, 2.0, 0.0], RNG.normal(0, 3, 9).tolist(), [1000.0, 999.0, -1000.0], [-2.0, -2.0]]
    got = run("(m, f, a) => a.rows.map((r) => m.softmaxTemperature(r, a.t))", {"rows": rows, "t": t})
    for row, js in zip(rows, got):
        np.testing.assert_allclose(js, sa.softmax_with_temperature(np.array(row), t), rtol=1e-12, atol=1e-300)


# --- causal-masking: the causal mask and the masked softmax -----------------

@pytest.mark.parametrize("L, S", [(1, 1), (3, 3), (2, 4), (5, 3)])
def test_causal_mask_equals_the_package(run, L, S):
    got = run("(m, f, a) => m.causalMask(a.L, a.S)", {"L": L, "S": S})
    np.testing.assert_array_equal(np.array(got, dtype=bool), sa.causal_mask(L, S))


def test_masked_weights_equal_the_package_even_for_fully_blocked_rows(run):
    q, k = RNG.normal(0, 2, (2, 5, 3))
    scores = sa.attention_scores(q, k)
    allowed = RNG.random((5, 5)) < 0.6
    allowed[2] = False                    # a row with nothing to read
    allowed[4] = True
    got = run("(m, f, a) => m.maskedWeights(a.s, a.allowed)", {"s": scores.tolist(), "allowed": allowed.tolist()})
    expected = sa.scaled_dot_product_attention(q, k, k, mask=allowed, return_weights=True)[1]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300)
    assert (np.array(got)[2] == 0).all() and (np.array(got)[~allowed] == 0).all()
    big = [1000.0, -1000.0, 999.0]
    row = run("(m, f, a) => m.maskedSoftmax(a, [true, true, false])", big)
    np.testing.assert_allclose(row, sa.softmax(np.where([True, True, False], big, -np.inf)), rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("h", [1, 2, 4])
@pytest.mark.parametrize("split", [True, False])
def test_multi_head_equals_the_package(run, h, split):
    x, *mats = (RNG.normal(0, 1, shape) for shape in [(5, 8)] + [(8, 8)] * 4)
    got = run("""(m, f, a) => m.multiHead(a.x, ...a.mats, a.h, { splitColumns: a.split })""",
              {"x": x.tolist(), "mats": [w.tolist() for w in mats], "h": h, "split": split})
    out, weights = sa.multi_head_attention(x, *mats, h, return_weights=True)
    np.testing.assert_allclose(got["weights"], weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got["output"], out, rtol=1e-12, atol=1e-14)


# --- the copying model, read one symbol at a time with a KV cache (copyingStep) --------------------

#: Read ``a.tokens`` with the parameters ``a.params`` (rows) or ``a.stored`` (float16, decoded here), then
#: write ``a.steps`` guesses, each the most likely symbol; every step's logits and weights.
COPYING_RUN = """(m, f, a) => {
  const p = a.stored ? m.decodeMatrices(a.stored) : a.params;
  const cache = m.copyingCache(a.sizes.heads);
  const tokens = [...a.tokens];
  const steps = tokens.map((t, i) => m.copyingStep(p, a.sizes, cache, t, i));
  const probabilities = [];
  for (let s = 0; s < (a.steps ?? 0); s += 1) {
    const pr = m.softmax(steps.at(-1).logits);
    const best = pr.indexOf(Math.max(...pr));
    probabilities.push(pr[best]);
    tokens.push(best);
    if (tokens.length < a.sizes.nPositions) steps.push(m.copyingStep(p, a.sizes, cache, best, tokens.length - 1));
  }
  return { steps, tokens, probabilities };
}"""

COPYING_SIZES = {
    "the book's": SIZES,
    "positions in every q and k": SIZES._replace(positions="qk"),
    "three layers, positions in the stream": Sizes(vocab=7, n_positions=6, d_model=8, heads=(1, 3, 2), d_head=3,
                                                   positions="stream"),
    "one layer of three heads": Sizes(vocab=5, n_positions=5, d_model=6, heads=(3,), d_head=2, positions="qk0"),
}


@pytest.mark.parametrize("sizes", COPYING_SIZES.values(), ids=COPYING_SIZES.keys())
def test_copying_step_equals_the_package_for_any_sizes(run, sizes):
    """The same JavaScript reads any model of the kind: heads per layer and where positions enter come from sizes."""
    params = {k: v * 2.0 for k, v in init_params(3, sizes).items()}     # larger weights: sharper softmaxes
    tokens = RNG.integers(0, sizes.vocab, min(sizes.n_positions, 10))
    got = run(COPYING_RUN, {"params": {k: v.tolist() for k, v in params.items()}, "sizes": sizes_json(sizes),
                            "tokens": tokens.tolist()})["steps"]
    cache = empty_cache(sizes)
    for position, token in enumerate(tokens):
        logits, weights = read_symbol(params, int(token), position, cache, sizes=sizes)
        np.testing.assert_allclose(got[position]["logits"], logits, rtol=1e-12, atol=1e-12)
        assert [np.shape(w) for w in got[position]["weights"]] == [w.shape for w in weights]
        for js, py in zip(got[position]["weights"], weights, strict=True):
            np.testing.assert_allclose(js, py, rtol=1e-12, atol=1e-15)


def test_copying_step_names_a_wrong_design_and_a_wrong_position(run):
    got = run("""(m) => {
        const say = (fn) => { try { fn(); return null; } catch (e) { return e.message; } };
        const sizes = { heads: [1], dHead: 1, positions: "qk0" };
        return [say(() => m.positionsInQk("everywhere", 0)),
                say(() => m.copyingStep({}, sizes, m.copyingCache([1]), 0, 3))];
    }""")
    assert got == ['no positions design "everywhere"', "the cache holds 0 symbols, so the next is at position 0, not 3"]


def test_decode_matrices_reads_float16_exactly(run):
    values = {"W": np.concatenate([RNG.normal(0, 3, 30), [0.0, -0.0, 6e-8, -65504.0, 1e-5]]).reshape(5, 7),
              "V": RNG.normal(0, 1, (1, 3))}
    stored = encode_matrices(values)
    got = run("(m, f, a) => m.decodeMatrices(a)", stored)
    for name, want in decode_matrices(stored).items():
        np.testing.assert_array_equal(got[name], want)
        np.testing.assert_allclose(want, values[name], rtol=2.0**-11, atol=2.0**-25)   # float16's rounding


def test_the_chapters_float16_model_writes_what_the_shipped_model_writes(run, built_book):
    """On the lab's examples, the page's parameters give the package's numbers on them, and the shipped model's
    guesses, with every probability within ``ROUNDING_TOLERANCE`` of the shipped model's."""
    config = read_config(built_book, "two-heads-that-copy.html", "copy-lab")
    shipped = training.load()["params"]
    assert config["digest"] == training.digest(shipped), "the built page holds other weights: rebuild the book"
    page_params, symbols = decode_matrices(config["params"]), config["symbols"]
    for example in config["examples"]:
        text, steps = example["text"], 8
        got = run(COPYING_RUN, {"stored": config["params"], "sizes": config["sizes"], "steps": steps,
                                "tokens": [symbols.index(c) for c in text]})
        page = continue_sequence(page_params, text, steps)
        np.testing.assert_allclose(got["probabilities"], page["probabilities"], rtol=1e-12)
        want = continue_sequence(shipped, text, steps)
        assert "".join(symbols[t] for t in got["tokens"]) == want["text"], example["name"]
        np.testing.assert_allclose(got["probabilities"], want["probabilities"], rtol=0, atol=ROUNDING_TOLERANCE)
