"""A small experiment: reverse strings of digits with a fixed-size summary, or with attention.

Chapter "Why not read left to right?" trains two tiny models in NumPy, at
build time, on the same task: read ``n`` random digits and write them
backwards. Both predict every output digit as a choice among the 10 digits.

* **Summary.** A recurrent network reads the digits left to right into one
  summary ``h`` of ``size`` numbers, ``h_t = tanh(h_{t-1} W + E[digit_t] + b)``;
  output position ``i`` reads only ``h`` (its own linear map ``U[i]``).
* **Attention.** Every position is its digit and its place, written as one
  row of 0s and 1s (``10 + n`` numbers). One self-attention layer with
  ``W_Q``, ``W_K``, ``W_V`` of ``size`` columns lets position ``i`` read every
  position directly; ``W_O`` turns what it read into scores for the 10 digits.

The gradients are written out by hand (the chain rule, step by step) and the
tests check them against finite differences. Training uses Adam with a fixed
seed and one BLAS thread, so two runs give the same numbers.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from threadpoolctl import threadpool_limits

from ._validate import check_positive_int
from .attention import scaled_dot_product_attention
from .softmax import softmax

#: Digits 0 to 9.
N_SYMBOLS = 10
#: The two models of the experiment.
MODELS = ("summary", "attention")


def reversal_strings(n_strings: int, n_digits: int, *, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random strings of digits and the same strings reversed.

    Parameters
    ----------
    n_strings, n_digits : int
        How many strings, and how many digits in each.
    seed : int, keyword-only
        Seed of the random generator.

    Returns
    -------
    digits, reversed : numpy.ndarray of int, shape (n_strings, n_digits)

    Raises
    ------
    TypeError, ValueError
        If a count is not a positive integer.

    Examples
    --------
    >>> digits, target = reversal_strings(2, 5, seed=0)
    >>> digits
    array([[8, 6, 5, 2, 3],
           [0, 0, 0, 1, 8]])
    >>> target
    array([[3, 2, 5, 6, 8],
           [8, 1, 0, 0, 0]])
    """
    n_strings = check_positive_int(n_strings, "n_strings")
    n_digits = check_positive_int(n_digits, "n_digits")
    digits = np.random.default_rng(seed).integers(0, N_SYMBOLS, size=(n_strings, n_digits))
    return digits, digits[:, ::-1].copy()


def _cross_entropy(logits: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of (B, n, 10) scores against (B, n) digits, and its gradient."""
    p = softmax(logits)                                               # (B, n, 10)
    picked = np.take_along_axis(p, target[..., None], axis=-1)        # (B, n, 1)
    loss = float(-np.log(picked).mean())
    grad = p.copy()
    np.put_along_axis(grad, target[..., None], picked - 1.0, axis=-1)
    return loss, grad / target.size


# --- the fixed-size summary ---------------------------------------------------------------


def summary_init(size: int, n_digits: int, *, seed: int) -> dict[str, np.ndarray]:
    """Random starting weights of the summary model (a summary ``h`` of ``size`` numbers).

    Examples
    --------
    >>> {name: w.shape for name, w in summary_init(4, 6, seed=0).items()}
    {'E': (10, 4), 'W': (4, 4), 'b': (4,), 'U': (6, 4, 10), 'c': (6, 10)}
    """
    size, n_digits = check_positive_int(size, "size"), check_positive_int(n_digits, "n_digits")
    rng = np.random.default_rng(seed)
    return {"E": rng.normal(0, 0.5, (N_SYMBOLS, size)),              # one row per digit
            "W": rng.normal(0, size ** -0.5, (size, size)),
            "b": np.zeros(size),
            "U": rng.normal(0, size ** -0.5, (n_digits, size, N_SYMBOLS)),   # one map per output
            "c": np.zeros((n_digits, N_SYMBOLS))}


def summary_forward(params, digits) -> tuple[np.ndarray, list[np.ndarray]]:
    """Scores of the 10 digits at every output position, read from the last summary only.

    Returns
    -------
    logits : numpy.ndarray, shape (B, n, 10)
    states : list of numpy.ndarray, each (B, size)
        The summary before the first digit (zeros) and after each digit.

    Examples
    --------
    >>> params = summary_init(4, 6, seed=0)
    >>> logits, states = summary_forward(params, np.zeros((3, 6), dtype=int))
    >>> logits.shape, len(states), states[-1].shape
    ((3, 6, 10), 7, (3, 4))
    """
    digits = np.asarray(digits)
    states = [np.zeros((digits.shape[0], params["W"].shape[0]))]      # h_0: (B, size)
    for t in range(digits.shape[1]):
        states.append(np.tanh(states[-1] @ params["W"] + params["E"][digits[:, t]] + params["b"]))
    n, size, k = params["U"].shape
    u = params["U"].transpose(1, 0, 2).reshape(size, n * k)           # (size, n 10): every readout at once
    logits = (states[-1] @ u).reshape(-1, n, k) + params["c"]          # (B, n, 10)
    return logits, states


def summary_loss_and_grads(params, digits, target) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy of the summary model, and its gradient (backpropagation through time).

    Examples
    --------
    >>> params = summary_init(4, 6, seed=0)
    >>> digits, target = reversal_strings(8, 6, seed=1)
    >>> loss, grads = summary_loss_and_grads(params, digits, target)
    >>> round(loss, 1), grads["W"].shape
    (2.4, (4, 4))
    """
    digits = np.asarray(digits)
    logits, states = summary_forward(params, digits)
    loss, d_logits = _cross_entropy(logits, np.asarray(target))
    n, size, k = params["U"].shape
    d_flat = d_logits.reshape(-1, n * k)                               # (B, n 10)
    grads = {"U": (states[-1].T @ d_flat).reshape(size, n, k).transpose(1, 0, 2), "c": d_logits.sum(axis=0),
             "W": np.zeros_like(params["W"]), "b": np.zeros_like(params["b"]), "E": np.zeros_like(params["E"])}
    d_h = d_flat @ params["U"].transpose(1, 0, 2).reshape(size, n * k).T   # (B, size)
    one_hot = np.eye(N_SYMBOLS)[digits]                                # (B, n, 10)
    for t in range(digits.shape[1], 0, -1):
        d_a = d_h * (1.0 - states[t] ** 2)                             # through tanh
        grads["W"] += states[t - 1].T @ d_a
        grads["b"] += d_a.sum(axis=0)
        grads["E"] += one_hot[:, t - 1].T @ d_a
        d_h = d_a @ params["W"].T                                      # to the summary before
    return loss, grads


# --- attention ------------------------------------------------------------------------------


def digits_and_places(digits) -> np.ndarray:
    """Each position as its digit and its place: two blocks of 0s and 1s, (B, n, 10 + n).

    Examples
    --------
    >>> digits_and_places([[2, 0]]).astype(int)
    array([[[0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0],
            [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]]])
    """
    digits = np.asarray(digits)
    n = digits.shape[1]
    what = np.eye(N_SYMBOLS)[digits]                                   # (B, n, 10)
    where = np.broadcast_to(np.eye(n), digits.shape + (n,))            # (B, n, n)
    return np.concatenate([what, where], axis=-1)                      # (B, n, 10 + n)


def attention_init(size: int, n_digits: int, *, seed: int) -> dict[str, np.ndarray]:
    """Random starting weights of the attention model (queries, keys and values of ``size`` numbers).

    Examples
    --------
    >>> {name: w.shape for name, w in attention_init(4, 6, seed=0).items()}
    {'W_Q': (16, 4), 'W_K': (16, 4), 'W_V': (16, 4), 'W_O': (4, 10), 'c': (10,)}
    """
    size, n_digits = check_positive_int(size, "size"), check_positive_int(n_digits, "n_digits")
    rng = np.random.default_rng(seed)
    d_in = N_SYMBOLS + n_digits
    return {"W_Q": rng.normal(0, d_in ** -0.5, (d_in, size)),
            "W_K": rng.normal(0, d_in ** -0.5, (d_in, size)),
            "W_V": rng.normal(0, d_in ** -0.5, (d_in, size)),
            "W_O": rng.normal(0, size ** -0.5, (size, N_SYMBOLS)),
            "c": np.zeros(N_SYMBOLS)}


def attention_forward(params, digits) -> tuple[np.ndarray, tuple]:
    """Scores of the 10 digits at every position, after one self-attention layer.

    Returns
    -------
    logits : numpy.ndarray, shape (B, n, 10)
    saved : tuple
        ``(x, q, k, v, weights, out)``, kept for the gradient; ``weights`` is
        (B, n, n): row ``i`` says where position ``i`` reads.

    Examples
    --------
    >>> params = attention_init(4, 6, seed=0)
    >>> logits, saved = attention_forward(params, np.zeros((3, 6), dtype=int))
    >>> logits.shape, saved[4].shape
    ((3, 6, 10), (3, 6, 6))
    """
    x = digits_and_places(digits)                                      # (B, n, 10 + n)
    q, k, v = x @ params["W_Q"], x @ params["W_K"], x @ params["W_V"]  # (B, n, size) each
    out, weights = scaled_dot_product_attention(q, k, v, return_weights=True)   # (B, n, size), (B, n, n)
    return out @ params["W_O"] + params["c"], (x, q, k, v, weights, out)


def attention_loss_and_grads(params, digits, target) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy of the attention model, and its gradient.

    Examples
    --------
    >>> params = attention_init(4, 6, seed=0)
    >>> digits, target = reversal_strings(8, 6, seed=1)
    >>> loss, grads = attention_loss_and_grads(params, digits, target)
    >>> round(loss, 1), grads["W_Q"].shape
    (2.3, (16, 4))
    """
    logits, (x, q, k, v, weights, out) = attention_forward(params, digits)
    loss, d_logits = _cross_entropy(logits, np.asarray(target))
    d_k = q.shape[-1]
    d_out = d_logits @ params["W_O"].T                                 # (B, n, size)
    d_weights = d_out @ v.transpose(0, 2, 1)                           # (B, n, n)
    d_v = weights.transpose(0, 2, 1) @ d_out                           # (B, n, size)
    # Through softmax, row by row, then through the division by sqrt(d_k).
    d_scores = weights * (d_weights - (d_weights * weights).sum(axis=-1, keepdims=True)) / np.sqrt(d_k)
    d_q, d_k_ = d_scores @ k, d_scores.transpose(0, 2, 1) @ q          # (B, n, size) each
    flat = x.reshape(-1, x.shape[-1])                                  # (B n, 10 + n)
    return loss, {"W_Q": flat.T @ d_q.reshape(-1, d_k), "W_K": flat.T @ d_k_.reshape(-1, d_k),
                  "W_V": flat.T @ d_v.reshape(-1, d_k),
                  "W_O": out.reshape(-1, d_k).T @ d_logits.reshape(-1, N_SYMBOLS), "c": d_logits.sum(axis=(0, 1))}


# --- training --------------------------------------------------------------------------------

_FUNCTIONS = {"summary": (summary_init, summary_forward, summary_loss_and_grads),
              "attention": (attention_init, attention_forward, attention_loss_and_grads)}


class Trained(NamedTuple):
    """One trained model and what it scored on fresh strings."""

    #: "summary" or "attention".
    model: str
    #: The trained weights.
    params: dict
    #: Wall-clock seconds of the training loop on this machine.
    seconds: float
    #: Mean training loss of each step.
    losses: np.ndarray
    #: Share of output digits right, on the test strings.
    digit_accuracy: float
    #: Share of test strings reversed with every digit right.
    string_accuracy: float
    #: (n,) share right at each output position (position 0 is the last digit read).
    position_accuracy: np.ndarray
    #: Numbers in the summary, or in each query, key and value.
    size: int
    #: Strings per training step, and test strings.
    batch: int
    n_test: int


def _check_model(model) -> str:
    if model not in _FUNCTIONS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    return model


def predict(model: str, params, digits) -> np.ndarray:
    """The digits a trained model writes, (B, n).

    Examples
    --------
    >>> predict("summary", summary_init(4, 6, seed=0), np.zeros((2, 6), dtype=int)).shape
    (2, 6)
    """
    _, forward, _ = _FUNCTIONS[_check_model(model)]
    return forward(params, digits)[0].argmax(axis=-1)


def train_reversal(model: str, *, size: int, n_digits: int, steps: int, batch: int = 64,
                   lr: float = 0.01, seed: int = 0, n_test: int = 2000) -> Trained:
    """Train one model to reverse ``n_digits``-digit strings with Adam, then test it on fresh strings.

    Every step draws ``batch`` new random strings. The test strings come from
    another seed, so the model has never seen them.

    Parameters
    ----------
    model : {"summary", "attention"}
    size : int, keyword-only
        Numbers in the summary ``h``, or in each query, key and value.
    n_digits, steps, batch : int, keyword-only
    lr : float, keyword-only
        Adam's step size.
    seed : int, keyword-only
    n_test : int, keyword-only
        How many test strings.

    Returns
    -------
    Trained

    Raises
    ------
    ValueError
        If ``model`` is unknown or a count is not positive.

    Examples
    --------
    >>> run = train_reversal("attention", size=8, n_digits=4, steps=150, n_test=200)
    >>> run.string_accuracy > 0.9, run.position_accuracy.shape
    (True, (4,))
    """
    init, forward, loss_and_grads = _FUNCTIONS[_check_model(model)]
    steps, batch, n_test = (check_positive_int(n, name) for n, name in
                            ((steps, "steps"), (batch, "batch"), (n_test, "n_test")))
    params = init(size, n_digits, seed=seed)
    rng = np.random.default_rng(seed + 1)
    first, second = {k: np.zeros_like(w) for k, w in params.items()}, {k: np.zeros_like(w) for k, w in params.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    losses = np.empty(steps)
    with threadpool_limits(limits=1):      # tiny matrices: one thread is faster, and deterministic
        start = time.perf_counter()
        for step in range(1, steps + 1):
            digits = rng.integers(0, N_SYMBOLS, size=(batch, n_digits))
            losses[step - 1], grads = loss_and_grads(params, digits, digits[:, ::-1])
            for name, g in grads.items():  # Adam
                first[name] = beta1 * first[name] + (1 - beta1) * g
                second[name] = beta2 * second[name] + (1 - beta2) * g * g
                m_hat, v_hat = first[name] / (1 - beta1 ** step), second[name] / (1 - beta2 ** step)
                params[name] -= lr * m_hat / (np.sqrt(v_hat) + eps)
        seconds = time.perf_counter() - start
        digits, target = reversal_strings(n_test, n_digits, seed=seed + 10_000)
        right = predict(model, params, digits) == target                    # (n_test, n)
    return Trained(model, params, seconds, losses, float(right.mean()), float(right.all(axis=1).mean()),
                   right.mean(axis=0), int(size), batch, n_test)
