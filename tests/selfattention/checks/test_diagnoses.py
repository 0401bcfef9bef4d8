"""Every diagnosis a checker declares can fire: one case per declared id, and no undeclared message.

The table :data:`CASES` holds, for each (checker, diagnosis id) of
``selfattention.checks._compare.REGISTRY``, a call that must get exactly
that diagnosis. A checker that declares a new diagnosis fails
:func:`test_every_declared_diagnosis_has_a_case` until a case triggers it,
and a checker cannot word a verdict without declaring it (its
``Diagnoses`` is the only way to build a message).
"""

from __future__ import annotations

import functools
import inspect
from pathlib import Path

import numpy as np
import pytest

import selfattention as sa
from selfattention import checks, cost, minilm, softmax
from selfattention.bert import attention_from_to
from selfattention.checks._compare import REGISTRY

X = sa.three_words()
SCORES = X @ X.T / np.sqrt(2)                                          # (3, 3)
NAN33 = np.full((3, 3), np.nan)

Q4, K4 = X @ np.eye(2), X @ np.array([[0.0, 0.0], [1.0, 0.0]])        # chapter 4's one-way keys
HEAD_SCORES = Q4 @ K4.T / np.sqrt(2)
W_Q2, W_K2 = np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [1.0, 1.0]])
W_Q3, W_K3 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]), np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])  # d_k = 3

#: A float64 answer off by float32's rounding (3 of its eps), as float32 inside gives.
F32 = 1 + 3 * float(np.finfo(np.float32).eps)

CAR_SCORES = X @ X[2] / np.sqrt(2)
CAR_SHARES = softmax(CAR_SCORES)
CAR_BLEND = CAR_SHARES @ X
CAT_BLEND = softmax(X @ X[0] / np.sqrt(2)) @ X

Q6, K6 = sa.scaling_example()
RAW6 = K6 @ Q6

X_Q, X_KV, WQ9, WK9, _ = sa.cat_is_sleeping()
Q9, K9 = X_Q @ WQ9, X_KV @ WK9
S9 = Q9 @ K9.T / np.sqrt(2)
CROSS = softmax(S9)

Q12 = np.random.default_rng(3).normal(size=(3, 4))                    # not whole numbers, so rounding shows
RIGHT12 = Q12.reshape(3, 2, 2).transpose(1, 0, 2)

RNN_X, RNN_W = [0.5, -1.0, 2.0], 0.5
RNN = sa.rnn_states(RNN_X, RNN_W)
LATER = RNN.copy()
LATER[2] += 0.1

G5 = sa.apple_sweet_gradient(1.0)
S5 = sa.apple_sweet_loss(1.0)["weight"]
STEP = sa.gradient_step(1.0)

QD, KD, VD, KC, VC = sa.decode_example()
KD_ALL, VD_ALL = np.vstack([KC, KD]), np.vstack([VC, VD])
BR = sa.causal_mask_bottom_right(2, 5)
DECODED = sa.scaled_dot_product_attention(QD, KD_ALL, VD_ALL, mask=BR)

MASK = sa.causal_mask(4)
ONE_CELL = MASK.copy()
ONE_CELL[3, 1] = False

MEM = cost.score_bytes(32_768, "bf16", heads=32)

X_ROPE = np.arange(1.0, 7.0)
ROPE = sa.rope(X_ROPE, [3])[0]
THETA = 10_000.0 ** (-np.arange(0, 6, 2) / 6)
EVERY_TWO = np.stack([-X_ROPE[1::2], X_ROPE[0::2]], axis=-1).reshape(6)   # partner of 2i is 2i + 1
HALVES = np.concatenate([-X_ROPE[3:], X_ROPE[:3]])                      # partner of i is i + 3
S5_UNSCALED = 1 / (1 + np.exp(-1.0))                                     # sigmoid(c), c = 1
SD = QD @ KD_ALL.T / np.sqrt(4)                                          # the decode step's scores, (2, 5)


TP_CHARS, TP, TP_P = sa.top_p_example()
TP_ORDER = np.argsort(-TP, kind="stable")                                # m, f, s, b, r, c, t, w


def top(ids, renormalise=True):
    """The top-p example's probabilities with only ``ids`` kept, renormalised or not."""
    kept = np.zeros_like(TP)
    kept[ids] = TP[ids]
    return kept / kept.sum() if renormalise else kept


TOP_P = top(TP_ORDER[:3])                                                # m, f, s reach 0.6
B_CHARS, B_TEXT, B_PROBS = sa.bits_example()
B_IDS = [B_CHARS.index(c) for c in B_TEXT]
B_NEXT = B_PROBS[np.arange(6), B_IDS[1:]]                                # the characters that came next
BPC = np.mean(-np.log2(B_NEXT))


def rope_by(angle, sign=1.0):
    """Pairs (2i, 2i + 1) of X_ROPE turned by sign * angle_i."""
    c, s = np.cos(angle), sign * np.sin(angle)
    e, o = X_ROPE[0::2], X_ROPE[1::2]
    return np.stack([e * c - o * s, e * s + o * c], axis=-1).reshape(6)


@functools.cache
def river():
    enc = minilm.encode(checks.model.RIVER)
    return enc, attention_from_to(enc.attentions, enc.tokens, "bank", ["river"])[..., 0]   # (6, 12)


@functools.cache
def keys():
    enc = minilm.encode(checks.model.KEYS)
    w = attention_from_to(enc.attentions, enc.tokens, "are", ["keys", "cabinet"])          # (6, 12, 2)
    more = w[..., 0] > w[..., 1]
    return w, more, int(more.sum()), int((more & (w[..., 0] >= 0.05)).sum())


@functools.cache
def layer1():
    """Layer 1 of MiniLM on the exercise's sentence: its input, and the parts of check_bert_layer."""
    x = minilm.encode(checks.block.SENTENCE).hidden_states[1].astype(np.float64)
    _, attention, norm1, norm2, mlp = checks.block._parts(1)
    first = norm1(x + attention(x))
    return x, attention, norm1, norm2, mlp, first, norm2(first + mlp(first))


def pre_ln():
    x, attention, norm1, norm2, mlp, _, _ = layer1()
    y = x + attention(norm1(x))
    return y + mlp(norm2(y))


def no_residual():
    x, attention, norm1, norm2, mlp, _, _ = layer1()
    y = norm1(attention(x))
    return norm2(y + mlp(y))


def bert_heads(x, *, h=12, divide_by=None, axis=-1, causal=False):
    """Layer 1's heads written out here, with one slip: another h, another divisor, softmax axis or a mask."""
    W = minilm.load_weights()
    a = "encoder.layer.1.attention."

    def project(name):                                                   # (h, L, d_head)
        y = x @ W[a + name + ".weight"].T.astype(np.float64) + W[a + name + ".bias"]
        return y.reshape(len(x), h, -1).transpose(1, 0, 2)

    q, k, v = project("self.query"), project("self.key"), project("self.value")
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1] if divide_by is None else divide_by)
    if causal:
        scores = np.where(np.tri(len(x), dtype=bool), scores, -np.inf)
    joined = (softmax(scores, axis=axis) @ v).transpose(1, 0, 2).reshape(x.shape)
    return joined @ W[a + "output.dense.weight"].T + W[a + "output.dense.bias"]


def bert_layer_with(**slip):
    x, _, norm1, norm2, mlp, _, _ = layer1()
    y = norm1(x + bert_heads(x, **slip))
    return norm2(y + mlp(y))


def loop(x, step):
    h, out = np.zeros(np.shape(x)[1:]), []
    for x_t in np.asarray(x, dtype=float):
        h = step(h, x_t)
        out.append(h)
    return np.array(out)


def head_in_float32(X, W_Q, W_K, W_V):
    """T2-14: a head cast to float32, divided by np.sqrt (a float64): float64 out, float32 inside."""
    X, W_Q, W_K, W_V = (a.astype(np.float32) for a in (X, W_Q, W_K, W_V))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return softmax(Q @ K.T / np.sqrt(Q.shape[-1])) @ V


def best_head():
    table = river()[1]
    return tuple(int(i) for i in np.unravel_index(table.argmax(), table.shape))


def head(body):
    """A reader's head(X, W_Q, W_K, W_V) whose last steps are ``body(Q, K, V, X)``."""
    def f(X, W_Q, W_K, W_V):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        return body(Q, K, V, X)
    return f


def raises(error):
    def f(*args):
        raise error
    return f


def rt(Q):
    return np.sqrt(Q.shape[-1])


@functools.cache
def induction_scores() -> dict:
    """The copying model's scores on the exercise's sequences, and the two slips of the checker."""
    from selfattention.checks.induction import exercise_batch
    from selfattention.induction import circuits, forward, load

    params, batch = load()["params"], exercise_batch()
    w = forward(params, batch.tokens)[1][1]["weights"][:, 0]
    b, t, j = circuits.induction_targets(batch)
    return {"ind": circuits.induction_scores(params, batch), "duplicate": w[b, t, j - 1].mean(),
            "previous": circuits.previous_token_scores(params, batch)[1, 0]}


@functools.cache
def ablated() -> dict:
    from selfattention.checks.induction import exercise_batch
    from selfattention.induction import ablation_table, load

    return ablation_table(load()["params"], exercise_batch())


def wiring_with(**changed):
    """check_wiring on the reference wiring with some of its four matrices changed."""
    from selfattention.wiring import NAMES, wired_weights

    W = {**wired_weights(), **changed}
    return sa.check_wiring(*(W[name] for name in NAMES))


def block_eye(rows: slice, columns: slice, k: int = 0) -> np.ndarray:
    """A (D, D) matrix of zeros with an identity (shifted by ``k``) from the block ``rows`` to ``columns``."""
    from selfattention.wiring import D

    m = np.zeros((D, D))
    m[rows, columns] = np.eye(rows.stop - rows.start, columns.stop - columns.start, k=k)
    return m


CASES = {
    # chapter 1 -------------------------------------------------------------------------------
    ("check_blend", "shares"): lambda: sa.check_blend(CAR_SHARES),
    ("check_blend", "plain-average"): lambda: sa.check_blend(X.mean(axis=0)),
    ("check_blend", "itself"): lambda: sa.check_blend(X[2]),
    ("check_blend", "scores-as-shares"): lambda: sa.check_blend(CAR_SCORES @ X),
    ("check_blend", "no-scale"): lambda: sa.check_blend(softmax(X @ X[2]) @ X),
    ("check_blend", "other-word"): lambda: sa.check_blend(CAT_BLEND),
    ("check_blend", "not-numbers"): lambda: sa.check_blend("car"),
    ("check_blend", "shape"): lambda: sa.check_blend(np.ones((1, 2))),
    ("check_blend", "not-finite"): lambda: sa.check_blend([np.nan, 1.0]),
    ("check_blend", "rounded"): lambda: sa.check_blend(CAR_BLEND.round(2)),
    ("check_blend", "value"): lambda: sa.check_blend(CAR_BLEND + [0, 1e-3]),
    ("check_blend", "by-d_k"): lambda: sa.check_blend(softmax(X @ X[2] / 2) @ X),
    ("check_blend", "not-normalised"): lambda: sa.check_blend(np.exp(CAR_SCORES) @ X),
    ("check_blend", "float32-inside"): lambda: sa.check_blend(CAR_BLEND * F32),
    # chapter 2 -------------------------------------------------------------------------------
    ("check_rnn_states", "only-last"): lambda: sa.check_rnn_states(RNN[-1], RNN_X, RNN_W),
    ("check_rnn_states", "no-tanh"): lambda: sa.check_rnn_states([0.5, -0.75, 1.625], RNN_X, RNN_W),
    ("check_rnn_states", "not-carried"): lambda: sa.check_rnn_states(np.tanh(RNN_X), RNN_X, RNN_W),
    ("check_rnn_states", "later-wrong"): lambda: sa.check_rnn_states(LATER, RNN_X, RNN_W),
    ("check_rnn_states", "first-wrong"): lambda: sa.check_rnn_states(RNN + 0.1, RNN_X, RNN_W),
    ("check_rnn_states", "not-numbers"): lambda: sa.check_rnn_states("abc", RNN_X, RNN_W),
    ("check_rnn_states", "shape"): lambda: sa.check_rnn_states(np.ones(4), RNN_X, RNN_W),
    ("check_rnn_states", "not-finite"): lambda: sa.check_rnn_states([np.inf, 0, 0], RNN_X, RNN_W),
    ("check_rnn_states", "rounded"): lambda: sa.check_rnn_states(RNN.round(3), RNN_X, RNN_W),
    ("check_rnn_states", "w-on-word"):
        lambda: sa.check_rnn_states(loop(RNN_X, lambda h, x: np.tanh(h + RNN_W * x)), RNN_X, RNN_W),
    ("check_rnn_states", "tanh-inside"):
        lambda: sa.check_rnn_states(loop(RNN_X, lambda h, x: RNN_W * np.tanh(h) + x), RNN_X, RNN_W),
    ("check_rnn_states", "float32-inside"): lambda: sa.check_rnn_states(RNN * F32, RNN_X, RNN_W),
    # chapter 3 -------------------------------------------------------------------------------
    ("check_scores", "no-scale"): lambda: sa.check_scores(X @ X.T),
    ("check_scores", "by-d_k"): lambda: sa.check_scores(X @ X.T / 2),
    ("check_scores", "X.T@X"): lambda: sa.check_scores(X.T @ X / np.sqrt(2)),
    ("check_scores", "X*X"): lambda: sa.check_scores(X * X),
    ("check_scores", "not-numbers"): lambda: sa.check_scores("scores"),
    ("check_scores", "shape"): lambda: sa.check_scores(np.ones(9)),
    ("check_scores", "not-finite"): lambda: sa.check_scores(NAN33),
    ("check_scores", "rounded"): lambda: sa.check_scores(SCORES.round(2)),
    ("check_scores", "value"): lambda: sa.check_scores(SCORES + np.eye(3) * 1e-3),
    ("check_scores", "float32-inside"): lambda: sa.check_scores(SCORES * F32),
    # chapter 4 -------------------------------------------------------------------------------
    ("check_head_scores", "no-scale"): lambda: sa.check_head_scores(Q4 @ K4.T),
    ("check_head_scores", "K@Q.T"): lambda: sa.check_head_scores(K4 @ Q4.T / np.sqrt(2)),
    ("check_head_scores", "Q@Q.T"): lambda: sa.check_head_scores((X @ W_Q2) @ (X @ W_Q2).T / np.sqrt(2),
                                                                 w_q=W_Q2, w_k=W_K2),
    ("check_head_scores", "Q@Q.T=X@X.T"): lambda: sa.check_head_scores(Q4 @ Q4.T / np.sqrt(2)),
    ("check_head_scores", "K@K.T"): lambda: sa.check_head_scores(K4 @ K4.T / np.sqrt(2)),
    ("check_head_scores", "raw-words"): lambda: sa.check_head_scores(SCORES, w_q=W_Q2, w_k=W_K2),
    ("check_head_scores", "by-d_k"): lambda: sa.check_head_scores(Q4 @ K4.T / 2),
    ("check_head_scores", "Q.T@K"): lambda: sa.check_head_scores(Q4.T @ K4),
    ("check_head_scores", "not-numbers"): lambda: sa.check_head_scores("cat"),
    ("check_head_scores", "shape"): lambda: sa.check_head_scores(np.ones((3, 4))),
    ("check_head_scores", "not-finite"): lambda: sa.check_head_scores(NAN33),
    ("check_head_scores", "rounded"): lambda: sa.check_head_scores(HEAD_SCORES.round(1)),
    ("check_head_scores", "value"): lambda: sa.check_head_scores(HEAD_SCORES + 1e-3),
    ("check_head_scores", "by-sqrt-d_model"):
        lambda: sa.check_head_scores((X @ W_Q3) @ (X @ W_K3).T / np.sqrt(2), w_q=W_Q3, w_k=W_K3),
    ("check_head_scores", "float32-inside"): lambda: sa.check_head_scores(HEAD_SCORES * F32),
    # chapter 5 -------------------------------------------------------------------------------
    ("check_gradient_step", "not-numbers"): lambda: sa.check_gradient_step("abc"),
    ("check_gradient_step", "shape"): lambda: sa.check_gradient_step([STEP, STEP]),
    ("check_gradient_step", "not-finite"): lambda: sa.check_gradient_step(float("nan")),
    ("check_gradient_step", "uphill"): lambda: sa.check_gradient_step(1.0 + G5),
    ("check_gradient_step", "gradient"): lambda: sa.check_gradient_step(G5),
    ("check_gradient_step", "step-alone"): lambda: sa.check_gradient_step(-G5),
    ("check_gradient_step", "no-learning-rate"): lambda: sa.check_gradient_step(1.0 - G5, learning_rate=0.5),
    ("check_gradient_step", "half-for-root"): lambda: sa.check_gradient_step(1.0 + 2 * S5 * (1 - S5) ** 2),
    ("check_gradient_step", "no-root"): lambda: sa.check_gradient_step(1.0 + 4 * S5 * (1 - S5) ** 2),
    ("check_gradient_step", "not-yet"): lambda: sa.check_gradient_step(5.0),
    ("check_gradient_step", "rounded"): lambda: sa.check_gradient_step(round(STEP, 2)),
    ("check_gradient_step", "s-unscaled"):
        lambda: sa.check_gradient_step(1.0 + 2 * np.sqrt(2) * S5_UNSCALED * (1 - S5_UNSCALED) ** 2),
    ("check_gradient_step", "s-unscaled-no-root"):
        lambda: sa.check_gradient_step(1.0 + 4 * S5_UNSCALED * (1 - S5_UNSCALED) ** 2),
    ("check_gradient_step", "float32-inside"): lambda: sa.check_gradient_step(STEP * F32),
    # chapter 6 -------------------------------------------------------------------------------
    ("check_scaled_row", "no-scale"): lambda: sa.check_scaled_row(RAW6),
    ("check_scaled_row", "by-d_k"): lambda: sa.check_scaled_row(RAW6 / 64),
    ("check_scaled_row", "times-root"): lambda: sa.check_scaled_row(RAW6 * 8),
    ("check_scaled_row", "by-sqrt-S"): lambda: sa.check_scaled_row(RAW6 / 2),
    ("check_scaled_row", "weights"): lambda: sa.check_scaled_row(softmax(RAW6 / 8)),
    ("check_scaled_row", "raw-weights"): lambda: sa.check_scaled_row(softmax(RAW6)),
    ("check_scaled_row", "not-numbers"): lambda: sa.check_scaled_row("row"),
    ("check_scaled_row", "shape"): lambda: sa.check_scaled_row(np.outer(RAW6, RAW6)),
    ("check_scaled_row", "not-finite"): lambda: sa.check_scaled_row(RAW6 * np.nan),
    ("check_scaled_row", "rounded"): lambda: sa.check_scaled_row((RAW6 / 8).round(2)),
    ("check_scaled_row", "value"): lambda: sa.check_scaled_row(RAW6.round(2) / 8),
    ("check_scaled_row", "float32-inside"): lambda: sa.check_scaled_row(RAW6 / 8 * F32),
    # chapter 7 -------------------------------------------------------------------------------
    ("check_head", "not-callable"): lambda: sa.check_head(np.zeros((3, 2))),
    ("check_head", "tuple"): lambda: sa.check_head(head(lambda Q, K, V, X: (softmax(Q @ K.T / rt(Q)) @ V, 0))),
    ("check_head", "not-numbers"): lambda: sa.check_head(head(lambda Q, K, V, X: ...)),
    ("check_head", "shape"): lambda: sa.check_head(head(lambda Q, K, V, X: np.zeros(3))),
    ("check_head", "weights-shape"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K.T / rt(Q)))),
    ("check_head", "X-shape"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K.T / rt(Q)) @ X)),
    ("check_head", "transposed-shape"):
        lambda: sa.check_head(head(lambda Q, K, V, X: (softmax(Q @ K.T / rt(Q)) @ V).T)),
    ("check_head", "not-finite"): lambda: sa.check_head(head(lambda Q, K, V, X: np.full((len(Q), 2), np.nan))),
    ("check_head", "Q@K"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K / rt(Q)) @ V)),
    ("check_head", "Q*K.T"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q * K.T / rt(Q)) @ V)),
    ("check_head", "no-scale"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K.T) @ V)),
    ("check_head", "by-d_k"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K.T / Q.shape[-1]) @ V)),
    ("check_head", "by-sqrt-d_model"):
        lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K.T / np.sqrt(X.shape[-1])) @ V)),
    ("check_head", "by-sqrt-L"):
        lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K.T / np.sqrt(X.shape[0])) @ V)),
    ("check_head", "axis-0"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K.T / rt(Q), axis=0) @ V)),
    ("check_head", "whole-table"): lambda: sa.check_head(
        head(lambda Q, K, V, X: softmax((Q @ K.T / rt(Q)).ravel()).reshape(len(Q), len(K)) @ V)),
    ("check_head", "weights.T"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K.T / rt(Q)).T @ V)),
    ("check_head", "K@Q.T"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(K @ Q.T / rt(Q)) @ V)),
    ("check_head", "no-softmax"): lambda: sa.check_head(head(lambda Q, K, V, X: (Q @ K.T / rt(Q)) @ V)),
    ("check_head", "raised"): lambda: sa.check_head(raises(ZeroDivisionError("oops"))),
    ("check_head", "raised-broadcast"): lambda: sa.check_head(raises(ValueError("operands could not be broadcast"))),
    ("check_head", "raised-matmul"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q.T @ K / rt(Q)) @ V)),
    ("check_head", "value"): lambda: sa.check_head(head(lambda Q, K, V, X: softmax(Q @ K.T / rt(Q)) @ V + 1e-3)),
    ("check_head", "float32-inside"): lambda: sa.check_head(head_in_float32),
    # chapter 8 -------------------------------------------------------------------------------
    ("check_causal_mask", "not-booleans"): lambda: sa.check_causal_mask("mask"),
    ("check_causal_mask", "shape"): lambda: sa.check_causal_mask(np.ones((4, 5), dtype=bool)),
    ("check_causal_mask", "float-pattern"): lambda: sa.check_causal_mask(np.tri(4)),
    ("check_causal_mask", "int-pattern"): lambda: sa.check_causal_mask(np.tri(4, dtype=int)),
    ("check_causal_mask", "numbers"): lambda: sa.check_causal_mask(np.ones((4, 4))),
    ("check_causal_mask", "no-diagonal"): lambda: sa.check_causal_mask(np.tri(4, k=-1, dtype=bool)),
    ("check_causal_mask", "upper"): lambda: sa.check_causal_mask(MASK.T),
    ("check_causal_mask", "swapped"): lambda: sa.check_causal_mask(~MASK),
    ("check_causal_mask", "cell"): lambda: sa.check_causal_mask(ONE_CELL),
    ("check_causal_mask", "all-true"): lambda: sa.check_causal_mask(np.ones((4, 4), dtype=bool)),
    ("check_causal_mask", "future"): lambda: sa.check_causal_mask(np.tri(4, k=1, dtype=bool)),
    ("check_causal_mask", "future-cell"): lambda: sa.check_causal_mask(MASK | np.eye(4, k=3, dtype=bool)),
    # chapter 9 -------------------------------------------------------------------------------
    ("check_cross_weights", "columns"): lambda: sa.check_cross_weights(softmax(S9, axis=0)),
    ("check_cross_weights", "scores"): lambda: sa.check_cross_weights(S9),
    ("check_cross_weights", "no-scale"): lambda: sa.check_cross_weights(softmax(Q9 @ K9.T)),
    ("check_cross_weights", "projection"): lambda: sa.check_cross_weights(softmax(X_Q @ K9.T / np.sqrt(2))),
    ("check_cross_weights", "K@Q.T"): lambda: sa.check_cross_weights(softmax(K9 @ Q9.T / np.sqrt(2))),
    ("check_cross_weights", "self-q"): lambda: sa.check_cross_weights(softmax(Q9 @ Q9.T / np.sqrt(2))),
    ("check_cross_weights", "self-kv"): lambda: sa.check_cross_weights(softmax(K9 @ K9.T / np.sqrt(2))),
    ("check_cross_weights", "not-numbers"): lambda: sa.check_cross_weights("weights"),
    ("check_cross_weights", "shape"): lambda: sa.check_cross_weights(np.ones(12)),
    ("check_cross_weights", "not-finite"): lambda: sa.check_cross_weights(np.full((3, 4), np.nan)),
    ("check_cross_weights", "rounded"): lambda: sa.check_cross_weights(CROSS.round(2)),
    ("check_cross_weights", "value"): lambda: sa.check_cross_weights(CROSS + 1e-3),
    ("check_cross_weights", "whole-table"):
        lambda: sa.check_cross_weights(np.exp(S9) / np.exp(S9).sum()),
    ("check_cross_weights", "causal"):
        lambda: sa.check_cross_weights(softmax(np.where(np.tri(3, 4, dtype=bool), S9, -np.inf))),
    ("check_cross_weights", "float32-inside"): lambda: sa.check_cross_weights(CROSS * F32),
    # chapter 12 (one word at a time) ---------------------------------------------------------
    ("check_decode_step", "before-append"): lambda: sa.check_decode_step(sa.scaled_dot_product_attention(QD, KC, VC)),
    ("check_decode_step", "top-left"):
        lambda: sa.check_decode_step(sa.scaled_dot_product_attention(QD, KD_ALL, VD_ALL, causal=True)),
    ("check_decode_step", "no-mask"): lambda: sa.check_decode_step(sa.scaled_dot_product_attention(QD, KD_ALL, VD_ALL)),
    ("check_decode_step", "no-scale"):
        lambda: sa.check_decode_step(sa.scaled_dot_product_attention(QD, KD_ALL, VD_ALL, mask=BR, scale=1.0)),
    ("check_decode_step", "kv-swapped"):
        lambda: sa.check_decode_step(sa.scaled_dot_product_attention(QD, VD_ALL, KD_ALL, mask=BR)),
    ("check_decode_step", "weights"): lambda: sa.check_decode_step(
        sa.scaled_dot_product_attention(QD, KD_ALL, VD_ALL, mask=BR, return_weights=True)[1]),
    ("check_decode_step", "not-numbers"): lambda: sa.check_decode_step("out"),
    ("check_decode_step", "shape"): lambda: sa.check_decode_step(np.ones((5, 4))),
    ("check_decode_step", "not-finite"): lambda: sa.check_decode_step(DECODED * np.nan),
    ("check_decode_step", "rounded"): lambda: sa.check_decode_step(DECODED.round(2)),
    ("check_decode_step", "value"): lambda: sa.check_decode_step(DECODED + 1e-3),
    ("check_decode_step", "columns"):
        lambda: sa.check_decode_step(softmax(np.where(BR, SD, -np.inf), axis=0) @ VD_ALL),
    ("check_decode_step", "whole-table"): lambda: sa.check_decode_step(
        np.exp(np.where(BR, SD, -np.inf)) / np.exp(np.where(BR, SD, -np.inf)).sum() @ VD_ALL),
    ("check_decode_step", "mask-after-softmax"): lambda: sa.check_decode_step(softmax(SD) * BR @ VD_ALL),
    ("check_decode_step", "float32-inside"): lambda: sa.check_decode_step(DECODED * F32),
    # chapter 10 ------------------------------------------------------------------------------
    ("check_strongest_head", "extra-axis"): lambda: sa.check_strongest_head(river()[1][..., None], *best_head()),
    ("check_strongest_head", "heads-first"): lambda: sa.check_strongest_head(river()[1].T, *best_head()),
    ("check_strongest_head", "one-head"): lambda: sa.check_strongest_head(river()[0].attentions[0, 0], 0, 0),
    ("check_strongest_head", "reversed"): lambda: sa.check_strongest_head(
        attention_from_to(river()[0].attentions, river()[0].tokens, "river", ["bank"])[..., 0], *best_head()),
    ("check_strongest_head", "not-numbers"): lambda: sa.check_strongest_head("to_river", 0, 0),
    ("check_strongest_head", "shape"): lambda: sa.check_strongest_head(np.ones(3), 0, 0),
    ("check_strongest_head", "not-finite"): lambda: sa.check_strongest_head(river()[1] * np.nan, 0, 0),
    ("check_strongest_head", "rounded"): lambda: sa.check_strongest_head(river()[1].round(2), 0, 0),
    ("check_strongest_head", "value"): lambda: sa.check_strongest_head(river()[1] + 1e-3, 0, 0),
    ("check_strongest_head", "not-index"): lambda: sa.check_strongest_head(river()[1], "0", 4),
    ("check_strongest_head", "no-head"): lambda: sa.check_strongest_head(river()[1], river()[1].argmax() + 1),
    ("check_strongest_head", "flat-index"): lambda: sa.check_strongest_head(river()[1], river()[1].argmax()),
    ("check_strongest_head", "out-of-range"): lambda: sa.check_strongest_head(river()[1], 50, 50),
    ("check_strongest_head", "head-layer"): lambda: sa.check_strongest_head(river()[1], *best_head()[::-1]),
    ("check_strongest_head", "one-based"):
        lambda: sa.check_strongest_head(river()[1], *(i + 1 for i in best_head())),
    ("check_strongest_head", "smallest"): lambda: sa.check_strongest_head(
        river()[1], np.unravel_index(river()[1].argmin(), river()[1].shape)),
    ("check_strongest_head", "other-head"): lambda: sa.check_strongest_head(river()[1], 3, 3),
    ("check_strongest_head", "float32-inside"):
        lambda: sa.check_strongest_head(river()[1].astype(np.float64) * F32, 0, 0),
    ("check_head_counts", "not-count"): lambda: sa.check_head_counts("31", 20),
    ("check_head_counts", "more-complement"): lambda: sa.check_head_counts(72 - keys()[2], keys()[3]),
    ("check_head_counts", "more-wrong"): lambda: sa.check_head_counts(keys()[2] + 1, keys()[3]),
    ("check_head_counts", "strong-alone"):
        lambda: sa.check_head_counts(keys()[2], int((keys()[0][..., 0] >= 0.05).sum())),
    ("check_head_counts", "strong-second"):
        lambda: sa.check_head_counts(keys()[2], int((keys()[1] & (keys()[0][..., 1] >= 0.05)).sum())),
    ("check_head_counts", "swapped"): lambda: sa.check_head_counts(keys()[3], keys()[2]),
    ("check_head_counts", "strong-more"): lambda: sa.check_head_counts(keys()[2], keys()[2] + 1),
    ("check_head_counts", "strong-wrong"): lambda: sa.check_head_counts(keys()[2], keys()[3] - 1),
    # chapter "Where each word stands" ------------------------------------------------------
    ("check_rope", "rotate-half"): lambda: sa.check_rope(sa.rope_rotate_half(X_ROPE, [3])[0]),
    ("check_rope", "no-pairing"): lambda: sa.check_rope(X_ROPE * np.repeat(np.cos(3 * THETA), 2)),
    ("check_rope", "base"): lambda: sa.check_rope(rope_by(3 * 1000.0 ** (-np.arange(0, 6, 2) / 6))),
    ("check_rope", "no-2"): lambda: sa.check_rope(rope_by(3 * 10_000.0 ** (-np.arange(3) / 6))),
    ("check_rope", "position+1"): lambda: sa.check_rope(rope_by(4 * THETA)),
    ("check_rope", "backwards"): lambda: sa.check_rope(rope_by(3 * THETA, -1.0)),
    ("check_rope", "one-row"): lambda: sa.check_rope(ROPE[None, :]),
    ("check_rope", "not-numbers"): lambda: sa.check_rope("rope"),
    ("check_rope", "shape"): lambda: sa.check_rope(ROPE[:4]),
    ("check_rope", "not-finite"): lambda: sa.check_rope(ROPE * np.nan),
    ("check_rope", "rounded"): lambda: sa.check_rope(ROPE.round(3)),
    ("check_rope", "value"): lambda: sa.check_rope(ROPE + [0, 0, 0, 0, 0, 1e-3]),
    ("check_rope", "mixed-angles"):
        lambda: sa.check_rope(X_ROPE * np.cos(np.tile(3 * THETA, 2)) + EVERY_TWO * np.sin(np.tile(3 * THETA, 2))),
    ("check_rope", "mixed-pairs"):
        lambda: sa.check_rope(X_ROPE * np.cos(np.repeat(3 * THETA, 2)) + HALVES * np.sin(np.repeat(3 * THETA, 2))),
    ("check_rope", "float32-inside"): lambda: sa.check_rope(ROPE * F32),
    # chapter 11 ------------------------------------------------------------------------------
    ("check_score_memory", "not-count"): lambda: sa.check_score_memory("64 GiB"),
    ("check_score_memory", "one-head"): lambda: sa.check_score_memory(cost.score_bytes(32_768, "bf16")),
    ("check_score_memory", "float32"): lambda: sa.check_score_memory(2 * MEM),
    ("check_score_memory", "float64"): lambda: sa.check_score_memory(4 * MEM),
    ("check_score_memory", "scores-not-bytes"): lambda: sa.check_score_memory(MEM // 2),
    ("check_score_memory", "no-square"): lambda: sa.check_score_memory(32_768 * 2 * 32),
    ("check_score_memory", "bits"): lambda: sa.check_score_memory(8 * MEM),
    ("check_score_memory", "gib"): lambda: sa.check_score_memory(64),
    ("check_score_memory", "gb"): lambda: sa.check_score_memory(68.72),
    ("check_score_memory", "causal-half"): lambda: sa.check_score_memory(32_768 * 32_769 // 2 * 2 * 32),
    ("check_score_memory", "value"): lambda: sa.check_score_memory(MEM + 1),
    ("check_window_count", "not-count"): lambda: sa.check_window_count("95950"),
    ("check_window_count", "rule-of-thumb"): lambda: sa.check_window_count(1000 * 101),
    ("check_window_count", "no-self"): lambda: sa.check_window_count(1000 * 100 - 100 * 101 // 2),
    ("check_window_count", "w-in-all"): lambda: sa.check_window_count(1000 * 100 - 100 * 99 // 2),
    ("check_window_count", "full-causal"): lambda: sa.check_window_count(1000 * 1001 // 2),
    ("check_window_count", "both-sides"): lambda: sa.check_window_count(2 * 95_950 - 1000),
    ("check_window_count", "value"): lambda: sa.check_window_count(95_951),
    # chapter 13 ------------------------------------------------------------------------------
    ("check_split_heads", "Q-itself"): lambda: sa.check_split_heads(Q12, Q12),
    ("check_split_heads", "heads-middle"): lambda: sa.check_split_heads(Q12.reshape(3, 2, 2), Q12),
    ("check_split_heads", "plain-reshape"): lambda: sa.check_split_heads(Q12.reshape(2, 3, 2), Q12),
    ("check_split_heads", "dealt-out"): lambda: sa.check_split_heads(Q12.reshape(3, 2, 2).transpose(2, 0, 1), Q12),
    ("check_split_heads", "head-wrong"): lambda: sa.check_split_heads(RIGHT12 * [[[1]], [[2]]], Q12),
    ("check_split_heads", "not-numbers"): lambda: sa.check_split_heads("q", Q12),
    ("check_split_heads", "shape"): lambda: sa.check_split_heads(np.ones((2, 2, 3)), Q12),
    ("check_split_heads", "not-finite"): lambda: sa.check_split_heads(RIGHT12 * np.nan, Q12),
    ("check_split_heads", "rounded"): lambda: sa.check_split_heads(RIGHT12.round(2), Q12),
    # two heads that learned to copy ----------------------------------------------------------
    ("check_induction_score", "previous"): lambda: sa.check_induction_score(induction_scores()["previous"]),
    ("check_induction_score", "duplicate"): lambda: sa.check_induction_score(induction_scores()["duplicate"]),
    ("check_induction_score", "other-head"): lambda: sa.check_induction_score(induction_scores()["ind"][0, 1]),
    ("check_induction_score", "not-numbers"): lambda: sa.check_induction_score("0.5"),
    ("check_induction_score", "shape"): lambda: sa.check_induction_score([0.5, 0.5]),
    ("check_induction_score", "not-finite"): lambda: sa.check_induction_score(np.nan),
    ("check_induction_score", "rounded"): lambda: sa.check_induction_score(induction_scores()["ind"][1, 0].round(2)),
    ("check_induction_score", "value"): lambda: sa.check_induction_score(induction_scores()["ind"][1, 0] + 1e-3),
    ("check_ablated_loss", "not-ablated"): lambda: sa.check_ablated_loss(ablated()[None][1]),
    ("check_ablated_loss", "first-copy"): lambda: sa.check_ablated_loss(ablated()[0, 0][0]),
    ("check_ablated_loss", "other-head"): lambda: sa.check_ablated_loss(ablated()[0, 1][1]),
    ("check_ablated_loss", "not-numbers"): lambda: sa.check_ablated_loss(None),
    ("check_ablated_loss", "shape"): lambda: sa.check_ablated_loss([1.0, 2.0]),
    ("check_ablated_loss", "not-finite"): lambda: sa.check_ablated_loss(np.inf),
    ("check_ablated_loss", "rounded"): lambda: sa.check_ablated_loss(round(ablated()[0, 0][1], 2)),
    ("check_ablated_loss", "value"): lambda: sa.check_ablated_loss(ablated()[0, 0][1] + 1e-3),
    # wire it by hand ------------------------------------------------------------------------
    ("check_wiring", "swapped"): lambda: sa.check_wiring(*(sa.wiring.wired_weights()[name]
                                                           for name in ("W_Q1", "W_K1", "W_Q0", "W_K0"))),
    ("check_wiring", "blank"): lambda: sa.check_wiring(*np.zeros((4, sa.wiring.D, sa.wiring.D))),
    ("check_wiring", "too-soft"): lambda: sa.check_wiring(*(0.3 * w for w in sa.wiring.wired_weights().values())),
    ("check_wiring", "no-shift"): lambda: wiring_with(W_Q0=block_eye(sa.wiring.POSITION, sa.wiring.POSITION)),
    ("check_wiring", "current-key"): lambda: wiring_with(W_K1=block_eye(sa.wiring.SYMBOL, sa.wiring.SYMBOL)),
    ("check_wiring", "wrong"): lambda: sa.check_wiring(*np.random.default_rng(0).normal(size=(4, sa.wiring.D, 8))),
    # chapter "A model that writes" -------------------------------------------------------------
    ("check_top_p", "not-renormalised"): lambda: sa.check_top_p(top(TP_ORDER[:3], renormalise=False)),
    ("check_top_p", "one-short"): lambda: sa.check_top_p(top(TP_ORDER[:2])),
    ("check_top_p", "one-too-many"): lambda: sa.check_top_p(top(TP_ORDER[:4])),
    ("check_top_p", "reversed"): lambda: sa.check_top_p(top(TP_ORDER[1:])),   # least likely first: all but m
    ("check_top_p", "unsorted"): lambda: sa.check_top_p(top([0, 1, 2, 3])),   # b, c, f, m in chars' order
    ("check_top_p", "probs-as-logits"): lambda: sa.check_top_p(sa.writer.next_distribution(TP, top_p=TP_P)),
    ("check_top_p", "by-p"): lambda: sa.check_top_p(top(TP_ORDER[:3], renormalise=False) / TP_P),
    ("check_top_p", "sorted-order"): lambda: sa.check_top_p(np.sort(TOP_P)[::-1]),
    ("check_top_p", "nothing-cut"): lambda: sa.check_top_p(TP),
    ("check_top_p", "greedy"): lambda: sa.check_top_p(top(TP_ORDER[:1])),
    ("check_top_p", "top-k"): lambda: sa.check_top_p(top(TP_ORDER[:5])),
    ("check_top_p", "kept-only"): lambda: sa.check_top_p(TOP_P[TOP_P > 0]),
    ("check_top_p", "not-one"): lambda: sa.check_top_p(TOP_P * 1.1),
    ("check_top_p", "not-numbers"): lambda: sa.check_top_p("kept"),
    ("check_top_p", "shape"): lambda: sa.check_top_p(TOP_P[None, :]),
    ("check_top_p", "not-finite"): lambda: sa.check_top_p(TOP_P * np.nan),
    ("check_top_p", "rounded"): lambda: sa.check_top_p(TOP_P.round(2)),
    ("check_top_p", "value"): lambda: sa.check_top_p(TOP_P[[0, 1, 3, 2, 4, 5, 6, 7]]),   # m and f swapped
    ("check_top_p", "float32-inside"): lambda: sa.check_top_p(TOP_P * F32),
    ("check_bits_per_character", "ln"): lambda: sa.check_bits_per_character(np.mean(-np.log(B_NEXT))),
    ("check_bits_per_character", "log10"): lambda: sa.check_bits_per_character(np.mean(-np.log10(B_NEXT))),
    ("check_bits_per_character", "sum"): lambda: sa.check_bits_per_character(np.sum(-np.log2(B_NEXT))),
    ("check_bits_per_character", "sign"): lambda: sa.check_bits_per_character(np.mean(np.log2(B_NEXT))),
    ("check_bits_per_character", "most-likely"):
        lambda: sa.check_bits_per_character(np.mean(-np.log2(B_PROBS.max(axis=1)))),
    ("check_bits_per_character", "read-char"):
        lambda: sa.check_bits_per_character(np.mean(-np.log2(B_PROBS[np.arange(6), B_IDS[:-1]]))),
    ("check_bits_per_character", "count-first"): lambda: sa.check_bits_per_character(np.sum(-np.log2(B_NEXT)) / 7),
    ("check_bits_per_character", "every-row"):
        lambda: sa.check_bits_per_character(np.mean(-np.log2(B_PROBS[:, B_IDS[1:]]))),
    ("check_bits_per_character", "log-of-mean"): lambda: sa.check_bits_per_character(-np.log2(np.mean(B_NEXT))),
    ("check_bits_per_character", "per-position"): lambda: sa.check_bits_per_character(-np.log2(B_NEXT)),
    ("check_bits_per_character", "choices"): lambda: sa.check_bits_per_character(2.0 ** BPC),
    ("check_bits_per_character", "not-numbers"): lambda: sa.check_bits_per_character("1.18"),
    ("check_bits_per_character", "shape"): lambda: sa.check_bits_per_character([BPC, BPC]),
    ("check_bits_per_character", "not-finite"): lambda: sa.check_bits_per_character(np.inf),
    ("check_bits_per_character", "rounded"): lambda: sa.check_bits_per_character(round(BPC, 2)),
    ("check_bits_per_character", "value"): lambda: sa.check_bits_per_character(BPC + 1e-3),
    ("check_bits_per_character", "float32-inside"): lambda: sa.check_bits_per_character(BPC * F32),
    # chapter "The whole block" ----------------------------------------------------------------
    ("check_bert_layer", "input"): lambda: sa.check_bert_layer(layer1()[0]),
    ("check_bert_layer", "attention-only"): lambda: sa.check_bert_layer(layer1()[1](layer1()[0])),
    ("check_bert_layer", "first-half"): lambda: sa.check_bert_layer(layer1()[5]),
    ("check_bert_layer", "no-second-norm"): lambda: sa.check_bert_layer(layer1()[5] + layer1()[4](layer1()[5])),
    ("check_bert_layer", "no-residual"): lambda: sa.check_bert_layer(no_residual()),
    ("check_bert_layer", "no-second-residual"): lambda: sa.check_bert_layer(layer1()[3](layer1()[4](layer1()[5]))),
    ("check_bert_layer", "pre-ln"): lambda: sa.check_bert_layer(pre_ln()),
    ("check_bert_layer", "other-layer"): lambda: sa.check_bert_layer(
        sa.bert.bert_layer(layer1()[0], minilm.load_weights(), 0, minilm.load_config())[0]),
    ("check_bert_layer", "not-numbers"): lambda: sa.check_bert_layer("out"),
    ("check_bert_layer", "shape"): lambda: sa.check_bert_layer(layer1()[6][1:]),
    ("check_bert_layer", "not-finite"): lambda: sa.check_bert_layer(layer1()[6] * np.nan),
    ("check_bert_layer", "rounded"): lambda: sa.check_bert_layer(layer1()[6].round(3)),
    ("check_bert_layer", "value"): lambda: sa.check_bert_layer(layer1()[6] + 1e-2),
    ("check_bert_layer", "by-sqrt-d_model"): lambda: sa.check_bert_layer(bert_layer_with(divide_by=384)),
    ("check_bert_layer", "one-head"): lambda: sa.check_bert_layer(bert_layer_with(h=1)),
    ("check_bert_layer", "causal"): lambda: sa.check_bert_layer(bert_layer_with(causal=True)),
    ("check_bert_layer", "columns"): lambda: sa.check_bert_layer(bert_layer_with(axis=-2)),
    ("check_bert_layer", "float32-inside"): lambda: sa.check_bert_layer(layer1()[6] * F32),
}


def test_every_checker_declares_its_diagnoses():
    public = {name for name in checks.__all__ if name.startswith("check_")}
    assert public == set(REGISTRY)
    assert {name for name in sa.__all__ if name.startswith("check_")} == public


def test_every_declared_diagnosis_has_a_case():
    declared = {(checker, slip) for checker, d in REGISTRY.items() for slip in d.ids}
    assert declared - set(CASES) == set(), "add a case that triggers each new diagnosis"
    assert set(CASES) - declared == set(), "a case for a diagnosis nobody declares"


@pytest.mark.parametrize("key", sorted(CASES), ids=lambda key: "/".join(key))
def test_each_declared_diagnosis_fires(key):
    verdict = CASES[key]()
    assert not verdict.ok
    assert verdict.slip == key[1], verdict.message
    assert verdict.message and "{" not in verdict.message


def test_checkers_word_verdicts_only_through_their_diagnoses():
    folder = Path(inspect.getfile(checks)).parent
    for path in sorted(folder.glob("*.py")):
        if path.name != "_compare.py":
            assert "Feedback(" not in path.read_text(encoding="utf-8"), path.name


def test_an_undeclared_diagnosis_is_an_error():
    with pytest.raises(KeyError, match="declares no diagnosis 'made-up'"):
        REGISTRY["check_scores"].wrong("made-up")
