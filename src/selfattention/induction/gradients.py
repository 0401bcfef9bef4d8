"""The loss of the copying model and its gradient, by the chain rule.

The loss is the mean cross-entropy of every next-symbol guess: position
``t`` scores the symbol at ``t + 1``; a uniform guess over ``V`` symbols costs
``log V``. The gradient is written out step by step, backwards through
:func:`~selfattention.induction.model.forward`, in the style of
:mod:`selfattention.learning`, for each of the three places the positions may
enter; :func:`check_gradients` compares every parameter with central finite
differences (so do the tests).
"""

from __future__ import annotations

import numpy as np

from .._validate import check_positive_int
from ..multihead import concat_heads, split_heads
from ..softmax import softmax
from .model import SIZES, Sizes, check_sizes, check_tokens, forward, positions_in_qk


def cross_entropy(logits, targets) -> tuple[float, np.ndarray]:
    """Mean of ``-log softmax(logits)[target]``, and its gradient with respect to the logits.

    Parameters
    ----------
    logits : numpy.ndarray, shape (..., V)
    targets : numpy.ndarray of int, shape (...)

    Returns
    -------
    loss : float
    d_logits : numpy.ndarray, shape (..., V)
        ``(softmax(logits) - one_hot(targets)) / count``.

    Raises
    ------
    ValueError
        If the shapes do not match or a target is out of range.

    Examples
    --------
    Two equal scores: the loss is log 2.

    >>> loss, d = cross_entropy(np.zeros((1, 2)), np.array([0]))
    >>> round(loss, 4), d.tolist()
    (0.6931, [[-0.5, 0.5]])
    """
    logits, targets = np.asarray(logits, dtype=np.float64), np.asarray(targets)
    if logits.shape[:-1] != targets.shape:
        raise ValueError(f"targets must have shape {logits.shape[:-1]} for logits {logits.shape}, got {targets.shape}")
    if targets.size and (targets.min() < 0 or targets.max() >= logits.shape[-1]):
        raise ValueError(f"targets must be 0 to {logits.shape[-1] - 1}")
    p = softmax(logits)                                                # (..., V)
    picked = np.take_along_axis(p, targets[..., None], axis=-1)[..., 0]
    d_logits = p.copy()
    np.put_along_axis(d_logits, targets[..., None], np.take_along_axis(p, targets[..., None], -1) - 1, axis=-1)
    return float(-np.log(picked).mean()), d_logits / targets.size


def token_losses(logits, tokens) -> np.ndarray:
    """The loss of each next-symbol guess, ``-log p(the symbol that came next)``: (B, n - 1).

    Row ``t`` of ``logits`` guesses ``tokens[:, t + 1]``; the last row guesses nothing.

    Examples
    --------
    >>> token_losses(np.zeros((1, 3, 4)), np.array([[0, 1, 2]])).round(4).tolist()   # uniform: log 4
    [[1.3863, 1.3863]]
    """
    logits, tokens = np.asarray(logits, dtype=np.float64), np.asarray(tokens)
    if logits.ndim != 3 or tokens.shape != logits.shape[:2]:
        raise ValueError(f"logits must be (B, n, V) and tokens (B, n), got {logits.shape} and {tokens.shape}")
    z = logits[:, :-1] - logits[:, :-1].max(axis=-1, keepdims=True)   # (B, n - 1, V)
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))         # (B, n - 1, V)
    return -np.take_along_axis(log_p, tokens[:, 1:, None], axis=-1)[..., 0]   # (B, n - 1)


def forward_backward(params, tokens, *, sizes: Sizes = SIZES) -> tuple[np.ndarray, float, dict[str, np.ndarray]]:
    """The forward pass, the mean next-symbol loss, and the loss's gradient for every parameter.

    Parameters
    ----------
    params : dict of numpy.ndarray
    tokens : array_like of int, shape (B, n)
    sizes : Sizes, keyword-only

    Returns
    -------
    logits : numpy.ndarray, shape (B, n, vocab)
    loss : float
    grads : dict of numpy.ndarray
        One array per parameter, of its shape.

    Examples
    --------
    >>> from selfattention.induction.model import init_params
    >>> logits, loss, grads = forward_backward(init_params(0), [[0, 1, 2, 0, 1]])
    >>> logits.shape, grads["W_Q0"].shape, grads["W_Q1"].shape
    ((1, 5, 52), (64, 64), (64, 32))
    """
    sizes = check_sizes(sizes)
    tokens = check_tokens(tokens, sizes)
    logits, trace = forward(params, tokens, sizes=sizes)
    loss, d_tail = cross_entropy(logits[:, :-1], tokens[:, 1:])       # (B, n - 1, V): the last row guesses nothing
    d_logits = np.zeros_like(logits)
    d_logits[:, :-1] = d_tail                                         # (B, n, V)
    x_last = trace[-1]["x_out"]
    d_model, n = x_last.shape[-1], tokens.shape[1]
    grads = {name: np.zeros_like(params[name], dtype=np.float64) for name in params}
    grads["W_U"] = x_last.reshape(-1, d_model).T @ d_logits.reshape(-1, logits.shape[-1])
    d_x = d_logits @ params["W_U"].T                                  # (B, n, d_model)
    for layer in reversed(range(sizes.layers)):
        t, h = trace[layer], sizes.heads[layer]
        # x_out = x + z @ W_O: the residual passes d_x straight through.
        grads[f"W_O{layer}"] = t["z"].reshape(-1, t["z"].shape[-1]).T @ d_x.reshape(-1, d_model)
        d_heads = split_heads(d_x @ params[f"W_O{layer}"].T, h)       # (B, h, n, d_head)
        # heads = weights @ v
        d_weights = d_heads @ np.swapaxes(t["v"], -1, -2)              # (B, h, n, n)
        d_v = np.swapaxes(t["weights"], -1, -2) @ d_heads              # (B, h, n, d_head)
        # weights = softmax(scores), row by row; masked weights are 0 and pass nothing back.
        w = t["weights"]
        d_scores = w * (d_weights - (d_weights * w).sum(axis=-1, keepdims=True)) / np.sqrt(sizes.d_head)
        d_q = concat_heads(d_scores @ t["k"])                          # (B, n, h * d_head)
        d_k = concat_heads(np.swapaxes(d_scores, -1, -2) @ t["q"])     # (B, n, h * d_head)
        d_v = concat_heads(d_v)                                        # (B, n, h * d_head)
        flat_qk, flat_x = t["qk_in"].reshape(-1, d_model), t["x"].reshape(-1, d_model)
        grads[f"W_Q{layer}"] = flat_qk.T @ d_q.reshape(-1, d_q.shape[-1])
        grads[f"W_K{layer}"] = flat_qk.T @ d_k.reshape(-1, d_k.shape[-1])
        grads[f"W_V{layer}"] = flat_x.T @ d_v.reshape(-1, d_v.shape[-1])
        d_qk_in = d_q @ params[f"W_Q{layer}"].T + d_k @ params[f"W_K{layer}"].T   # (B, n, d_model)
        if positions_in_qk(sizes, layer):
            grads["W_pos"][:n] += d_qk_in.sum(axis=0)                 # qk_in = x + W_pos
        d_x = d_x + d_qk_in + d_v @ params[f"W_V{layer}"].T           # qk_in and v both read x
    if sizes.positions == "stream":
        grads["W_pos"][:n] += d_x.sum(axis=0)                         # x = W_E[tokens] + W_pos
    np.add.at(grads["W_E"], tokens.ravel(), d_x.reshape(-1, d_model))  # x = W_E[tokens] (+ W_pos)
    return logits, loss, grads


def loss_and_gradients(params, tokens, *, sizes: Sizes = SIZES) -> tuple[float, dict[str, np.ndarray]]:
    """The model's mean next-symbol loss on ``tokens``, and its gradient for every parameter.

    Parameters
    ----------
    params : dict of numpy.ndarray
    tokens : array_like of int, shape (B, n)
    sizes : Sizes, keyword-only

    Returns
    -------
    loss : float
    grads : dict of numpy.ndarray
        One array per parameter, of its shape (see :func:`forward_backward`).

    Examples
    --------
    >>> from selfattention.induction.model import init_params
    >>> loss, grads = loss_and_gradients(init_params(0), [[0, 1, 2, 0, 1]])
    >>> round(loss, 1), grads["W_O1"].shape
    (7.7, (32, 64))
    """
    _, loss, grads = forward_backward(params, tokens, sizes=sizes)
    return loss, grads


def check_gradients(params, tokens, *, sizes: Sizes = SIZES, per_parameter: int = 6, seed: int = 1,
                    eps: float = 1e-6) -> float:
    """The largest gap between the chain-rule gradient and central finite differences.

    ``per_parameter`` random entries of every parameter are nudged by ``±eps``.
    The gradients are about 1e-3 to 1e-1; the differences' own error is about 1e-10.

    Examples
    --------
    >>> from selfattention.induction.model import init_params
    >>> from selfattention.induction.task import copying_batch
    >>> tokens = copying_batch(3, np.random.default_rng(0)).tokens
    >>> check_gradients(init_params(3), tokens) < 1e-8
    True
    """
    params = {k: np.array(v, dtype=np.float64) for k, v in params.items()}
    _, grads = loss_and_gradients(params, tokens, sizes=sizes)
    rng, worst = np.random.default_rng(seed), 0.0
    for name, value in params.items():
        for _ in range(check_positive_int(per_parameter, "per_parameter")):
            i = tuple(int(rng.integers(0, s)) for s in value.shape)
            old = value[i]
            value[i] = old + eps
            up, _ = loss_and_gradients(params, tokens, sizes=sizes)
            value[i] = old - eps
            down, _ = loss_and_gradients(params, tokens, sizes=sizes)
            value[i] = old
            worst = max(worst, abs(grads[name][i] - (up - down) / (2 * eps)))
    return float(worst)
