"""The induction circuit wired by hand (selfattention.wiring) and its checker (check_wiring)."""

from __future__ import annotations

import numpy as np
import pytest

import selfattention as sa
from selfattention import wiring
from selfattention.checks import wiring as checker
from selfattention.wiring import NAMES, POSITION, PREVIOUS, SYMBOL, D, N, V

#: The exercise's starter: four zero matrices, then the reader's lines.
STARTER = """\
import numpy as np
import selfattention as sa
from selfattention.wiring import D, N, V, SYMBOL, POSITION, PREVIOUS

W_Q0, W_K0, W_Q1, W_K1 = (np.zeros((D, D)) for _ in range(4))
# Layer 0, a previous-token head: the query of position i should match the key of position i - 1.
...
# Layer 1, an induction head: the query of symbol s should match the key of each
# position whose previous symbol (written by layer 0) is s.
...
"""

SOLUTION = """\
W_Q0[POSITION, POSITION] = np.eye(N, k=-1)   # position i asks for position i - 1 ...
W_K0[POSITION, POSITION] = np.eye(N)         # ... and position j answers to its own position
W_Q1[SYMBOL, SYMBOL] = np.eye(V)             # symbol s asks for s ...
W_K1[PREVIOUS, SYMBOL] = np.eye(V)           # ... in the previous symbol of each key
"""

#: The same solution, one entry at a time with the row helpers.
SOLUTION_BY_ROWS = """\
from selfattention.wiring import sym, pos, prev
for i in range(1, N):
    W_Q0[pos(i), pos(i - 1)] = 1   # position i asks for position i - 1
for j in range(N):
    W_K0[pos(j), pos(j)] = 1       # position j answers to its own position
for s in range(V):
    W_Q1[sym(s), sym(s)] = 1       # symbol s asks for s ...
    W_K1[prev(s), sym(s)] = 1      # ... in the previous symbol of each key
"""

CHECK = "verdict = sa.check_wiring(W_Q0, W_K0, W_Q1, W_K1)\n"

#: A first attempt: the induction key offers the key's own symbol (slip b).
FIRST_ATTEMPT = """\
W_K1 = np.zeros((D, D))
W_K1[SYMBOL, SYMBOL] = np.eye(V)             # the key offers its own symbol
"""


def run(*parts: str) -> dict:
    """Run the exercise's code, as a notebook would (``...`` is a statement that does nothing), and return its names."""
    names: dict = {}
    exec("".join(parts), names)   # noqa: S102 - the book's own exercise text
    return names


def verdict(W: dict):
    return sa.check_wiring(*(W[name] for name in NAMES))


def with_(W: dict, **changed) -> dict:
    return {**W, **changed}


def zeros() -> np.ndarray:
    return np.zeros((D, D))


@pytest.fixture(scope="module")
def W():
    return wiring.wired_weights()


@pytest.fixture(scope="module")
def slips(W):
    """Each slip of the exercise, as a reader would write it."""
    no_shift = zeros()
    no_shift[POSITION, POSITION] = np.eye(N)                   # position i asks for position i
    current_key = zeros()
    current_key[SYMBOL, SYMBOL] = np.eye(V)                    # the key offers its own symbol
    previous_query = zeros()
    previous_query[PREVIOUS, SYMBOL] = np.eye(V)               # the query asks for its previous symbol
    later = zeros()
    later[POSITION, POSITION] = np.eye(N, k=1)                 # position i asks for i + 1: masked
    return {
        "no-shift": with_(W, W_Q0=no_shift),
        "current-key": with_(W, W_K1=current_key),
        "current-key, by the query": with_(W, W_Q1=previous_query),
        "swapped": dict(zip(NAMES, (W["W_Q1"], W["W_K1"], W["W_Q0"], W["W_K0"]))),
        "too-soft": {name: 0.3 * W[name] for name in NAMES},
        "blank": {name: zeros() for name in NAMES},
        "blank, a later position": with_(W, W_Q0=later),
        "blank, layer 1": with_(W, W_Q1=zeros()),
        "wrong": dict(zip(NAMES, np.random.default_rng(0).normal(size=(4, D, 8)))),
    }


def with_key_previous() -> np.ndarray:
    """A key that offers its previous symbol in the PREVIOUS coordinates (to meet a query written there)."""
    k = zeros()
    k[PREVIOUS, PREVIOUS] = np.eye(V)
    return k


# --- the model ------------------------------------------------------------------------------------

def test_the_sizes_are_the_trained_models():
    from selfattention.induction import task

    assert (V, N) == (task.VOCAB, task.N_POSITIONS)
    assert D == V + N + V and (SYMBOL.stop, POSITION.stop, PREVIOUS.stop) == (V, V + N, D)


def test_the_rows_of_a_symbol_and_a_position():
    assert [wiring.sym(3), wiring.pos(3), wiring.prev(3)] == [3, V + 3, V + N + 3]
    with pytest.raises(ValueError, match=r"i must be a whole number from 0 to 31, got 32"):
        wiring.pos(N)
    with pytest.raises(TypeError, match=r"s must be a whole number"):
        wiring.sym(1.0)


def test_the_embedding_holds_one_symbol_and_one_position_and_an_empty_previous_block():
    x = wiring.embed([[5, 7, 5]])
    assert x.shape == (1, 3, D)
    np.testing.assert_array_equal(x.sum(axis=-1), 2)
    assert x[0, 2, wiring.sym(5)] == 1 and x[0, 2, wiring.pos(2)] == 1
    assert not x[..., PREVIOUS].any()


def test_layer_0_writes_the_previous_symbol_and_layer_1_copies_the_one_after_the_match(W):
    tokens = sa.induction.symbols_to_tokens("XABCDEFGHXA")       # X then A recur: the head should guess B
    logits, (w0, w1) = wiring.wired_forward(W, tokens)
    assert logits.shape == (11, V) and w0.shape == w1.shape == (11, 11)
    np.testing.assert_allclose(w0[np.arange(1, 11), np.arange(10)], 1, atol=1e-6)   # i looks at i - 1
    assert int(w1[10].argmax()) == 2                                                 # after the first A
    assert sa.induction.tokens_to_symbols([logits[10].argmax()]) == "B"


def test_the_weights_rows_sum_to_one_and_never_look_ahead(W):
    _, weights = wiring.wired_forward(W, wiring.classic_sequences(ks=[4], n_sequences=3).tokens)
    for w in weights:
        np.testing.assert_allclose(w.sum(axis=-1), 1, atol=1e-12)
        assert not np.triu(w, k=1).any()


def test_the_classic_sequences_are_the_research_codes_classic_batches():
    from selfattention.induction.task import classic_batch

    batch = wiring.classic_sequences(ks=[4, 5], n_sequences=2, seed=9)
    rng = np.random.default_rng(9)
    expected = [classic_batch(k, offset, 2, rng, N, V).tokens for k in (4, 5) for offset in range(N - 2 * k + 1)]
    np.testing.assert_array_equal(batch.tokens, np.concatenate(expected))
    assert len(batch.tokens) == 2 * ((N - 7) + (N - 9))


def test_the_ceiling_splits_the_weight_over_every_look_alike_key():
    # One query (t = 5, "A") of a repeat of k = 3 at offset 0: keys 1 ("after A") and 4 ("after A") look alike.
    from selfattention.induction.task import Batch

    tokens = np.array([[0, 1, 0, 0, 1, 0, 7]])
    second = np.zeros((1, 6), bool)
    second[0, 5] = True
    batch = Batch(tokens, np.zeros_like(second), second, np.where(second, 3, -1))
    # keys j = 1..5 whose previous symbol is A (0): j = 1, 3, 4, 6 -> j <= 5 gives 1, 3, 4
    assert wiring.matching_ceiling(batch) == pytest.approx(1 / 3)


def test_the_reference_passes_the_classic_test(W):
    scores = wiring.classic_test(W)
    assert scores["previous_token"] >= 0.99
    assert scores["induction"] >= 0.98 * scores["ceiling"]
    assert 0.8 <= scores["ceiling"] <= 0.9          # chance repeats among 52 symbols: no head reaches 0.9
    assert scores["ratio"] < 0.1 and scores["earlier"] < 0.05


def test_chance_repeats_are_why_the_reference_stays_below_0_9(W):
    # With no chance repeat (every symbol drawn at most once outside the copy), the same head scores ~1.
    tokens = np.arange(N)[None, :] % V
    tokens[0, 12:20] = tokens[0, 4:12]
    _, (_, w1) = wiring.wired_forward(W, tokens)
    t = np.arange(12, 19)
    assert w1[0, t, t - 8 + 1].min() > 0.999


# --- the checker ----------------------------------------------------------------------------------

def test_the_exercises_solution_passes_and_its_first_attempt_is_named():
    solved = run(STARTER, SOLUTION, CHECK)
    assert solved["verdict"].ok, solved["verdict"].message
    assert str(solved["verdict"]).startswith("✓ Right: the induction head scores 0.8")
    first = run(STARTER, SOLUTION, FIRST_ATTEMPT, CHECK)["verdict"]
    assert not first.ok and first.slip == "current-key"
    assert "t - k" in first.message


def test_the_solution_written_entry_by_entry_is_the_reference(W):
    names = run(STARTER, SOLUTION_BY_ROWS, CHECK)
    assert names["verdict"].ok, names["verdict"].message
    for name in NAMES:
        np.testing.assert_array_equal(names[name], W[name])


def test_the_starter_run_unedited_is_blank():
    assert run(STARTER, CHECK)["verdict"].slip == "blank"


@pytest.mark.parametrize("scale", [0.7, 1.0, 3.0, 50.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_scaled_solution_in_either_dtype_passes(W, scale, dtype):
    assert verdict({name: (scale * W[name]).astype(dtype) for name in NAMES}).ok


def test_equivalent_layouts_pass(W):
    # Layer 0 with d_head = N (queries and keys in position space only), layer 1 written in the PREVIOUS
    # coordinates (the query puts s where the key's previous symbol is), and the layers' d_head different.
    Q0, K0 = np.zeros((D, N)), np.zeros((D, N))
    Q0[POSITION] = np.eye(N, k=-1)
    K0[POSITION] = np.eye(N)
    Q1 = np.zeros((D, D))
    Q1[SYMBOL, PREVIOUS] = np.eye(V)
    assert verdict({"W_Q0": Q0, "W_K0": K0, "W_Q1": Q1, "W_K1": with_key_previous()}).ok
    # The product of query and key is all that counts: W_Q R, W_K R with R orthogonal gives the same scores.
    R = np.linalg.qr(np.random.default_rng(1).normal(size=(D, D)))[0]
    assert verdict({name: W[name] @ R for name in NAMES}).ok
    # Every key also offering 1 in the column where the query of symbol 0 has its 1: the same bonus for
    # every key of that query, which the softmax does not see.
    bonus = zeros()
    bonus[POSITION, wiring.sym(0)] = 1.0
    assert verdict(with_(W, W_K1=W["W_K1"] + bonus)).ok


@pytest.mark.parametrize("name, slip", [
    ("no-shift", "no-shift"),
    ("current-key", "current-key"),
    ("current-key, by the query", "current-key"),
    ("swapped", "swapped"),
    ("too-soft", "too-soft"),
    ("blank", "blank"),
    ("blank, a later position", "blank"),
    ("blank, layer 1", "blank"),
    ("wrong", "wrong"),
])
def test_each_slip_is_named(slips, name, slip):
    got = verdict(slips[name])
    assert not got.ok and got.slip == slip, got.message


def test_the_blank_message_names_the_head_that_is_blank(slips):
    assert verdict(slips["blank, layer 1"]).message.startswith("Layer 1's head")
    assert verdict(slips["blank, a later position"]).message.startswith("Layer 0's head")
    assert verdict(slips["blank"]).message.startswith("Each head")


def test_the_no_shift_slip_leaves_the_current_symbol_in_the_previous_block(slips):
    scores = wiring.classic_test(slips["no-shift"])
    assert scores["current"] > 0.99 and scores["previous_token"] < 0.01


def test_the_current_key_slip_looks_at_t_minus_k(slips):
    scores = wiring.classic_test(slips["current-key"])
    assert scores["earlier"] > 0.4 and scores["induction"] < 0.05


@pytest.mark.parametrize("name, bad, match", [
    ("W_Q0", np.zeros((V, D)), r"W_Q0 must have shape \(136, d_head\).*got \(52, 136\)"),
    ("W_K1", np.zeros(D), r"W_K1 must have shape \(136, d_head\).*got \(136,\)"),
    ("W_K0", np.zeros((D, 3)), r"W_K0 has d_head=3 but W_Q0 has d_head=136"),
    ("W_Q1", np.full((D, D), np.nan), r"W_Q1 contains"),
])
def test_a_bad_matrix_raises_a_value_error_naming_it(W, name, bad, match):
    with pytest.raises(ValueError, match=match):
        verdict(with_(W, **{name: bad}))


def test_a_matrix_of_strings_raises_a_type_error_naming_it(W):
    with pytest.raises(TypeError, match="W_K1 must be numeric"):
        verdict(with_(W, W_K1=np.full((D, D), "1")))


def test_bad_tokens_raise(W):
    with pytest.raises(ValueError, match="tokens must be symbols 0 to 51"):
        wiring.wired_forward(W, [0, 52])
    with pytest.raises(ValueError, match=r"tokens must have shape \(\.\.\., n\) with 1 <= n <= 32"):
        wiring.wired_forward(W, np.zeros(33, int))
    with pytest.raises(TypeError, match="tokens must be whole numbers"):
        wiring.wired_forward(W, [0.0, 1.0])


def test_the_checker_thresholds_are_documented():
    doc = sa.check_wiring.__doc__
    assert "90%" in doc and checker.PASS == 0.9 and checker.SHARPER == 10.0
