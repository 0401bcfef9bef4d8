"""The loss of the copying model and its gradient, by the chain rule.

The loss is the mean cross-entropy of every next-symbol guess: position
``t`` scores the symbol at ``t + 1``. The gradient is written out step by
step, backwards through :func:`~selfattention.induction.model.forward`, in
the style of :mod:`selfattention.learning`; the tests check every parameter
against finite differences.
"""

from __future__ import annotations

import numpy as np

from ..multihead import concat_heads, split_heads
from ..softmax import softmax
from .model import D_HEAD, HEADS, LAYERS, check_tokens, forward


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


def loss_and_gradients(params, tokens) -> tuple[float, dict[str, np.ndarray]]:
    """The model's mean next-symbol loss on ``tokens``, and its gradient for every parameter.

    Parameters
    ----------
    params : dict of numpy.ndarray
    tokens : array_like of int, shape (B, n)

    Returns
    -------
    loss : float
    grads : dict of numpy.ndarray
        One array per parameter, of its shape.

    Examples
    --------
    >>> from selfattention.induction.model import init_params
    >>> loss, grads = loss_and_gradients(init_params(0), [[0, 1, 2, 0, 1]])
    >>> round(loss, 1), grads["W_Q"].shape
    (3.9, (2, 32, 32))
    """
    tokens = check_tokens(tokens)
    logits, trace = forward(params, tokens)
    loss, d_tail = cross_entropy(logits[:, :-1], tokens[:, 1:])       # (B, n - 1, V): the last row guesses nothing
    d_logits = np.zeros_like(logits)
    d_logits[:, :-1] = d_tail                                         # (B, n, V)
    x_last = trace[-1]["x_out"]
    d_model = x_last.shape[-1]
    grads = {name: np.zeros_like(params[name], dtype=np.float64) for name in params}
    grads["W_U"] = x_last.reshape(-1, d_model).T @ d_logits.reshape(-1, logits.shape[-1])
    d_x = d_logits @ params["W_U"].T                                  # (B, n, d_model)
    for layer in reversed(range(LAYERS)):
        t = trace[layer]
        # x_out = x + z @ W_O: the residual passes d_x straight through.
        grads["W_O"][layer] = t["z"].reshape(-1, t["z"].shape[-1]).T @ d_x.reshape(-1, d_model)
        d_heads = split_heads(d_x @ params["W_O"][layer].T, HEADS)    # (B, h, n, d_head)
        # heads = weights @ v
        d_weights = d_heads @ np.swapaxes(t["v"], -1, -2)              # (B, h, n, n)
        d_v = np.swapaxes(t["weights"], -1, -2) @ d_heads              # (B, h, n, d_head)
        # weights = softmax(scores), row by row; masked weights are 0 and pass nothing back.
        w = t["weights"]
        d_scores = w * (d_weights - (d_weights * w).sum(axis=-1, keepdims=True)) / np.sqrt(D_HEAD)
        d_q = d_scores @ t["k"]                                        # (B, h, n, d_head)
        d_k = np.swapaxes(d_scores, -1, -2) @ t["q"]                   # (B, h, n, d_head)
        d_q, d_k, d_v = concat_heads(d_q), concat_heads(d_k), concat_heads(d_v)   # (B, n, h * d_head)
        flat_qk, flat_x = t["qk_in"].reshape(-1, d_model), t["x"].reshape(-1, d_model)
        grads["W_Q"][layer] = flat_qk.T @ d_q.reshape(-1, d_q.shape[-1])
        grads["W_K"][layer] = flat_qk.T @ d_k.reshape(-1, d_k.shape[-1])
        grads["W_V"][layer] = flat_x.T @ d_v.reshape(-1, d_v.shape[-1])
        d_qk_in = d_q @ params["W_Q"][layer].T + d_k @ params["W_K"][layer].T   # (B, n, d_model)
        grads["W_pos"][: tokens.shape[1]] += d_qk_in.sum(axis=0)      # qk_in = x + W_pos
        d_x = d_x + d_qk_in + d_v @ params["W_V"][layer].T
    np.add.at(grads["W_E"], tokens.ravel(), d_x.reshape(-1, d_model))  # x = W_E[tokens]
    return loss, grads
