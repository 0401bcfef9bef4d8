"""The loss of the copying model and its gradient, by the chain rule (as ``selfattention.induction.gradients``).

The loss is the mean cross-entropy of every next-symbol guess,
``-log p(the symbol that comes next)``; a uniform guess over ``V`` symbols
costs ``log V``. :func:`check_gradients` compares every parameter's gradient
with central finite differences.
"""

from __future__ import annotations

import numpy as np

from selfattention.multihead import concat_heads, split_heads
from selfattention.softmax import softmax

from .model import SIZES, Sizes, check_tokens, forward, init_params


def cross_entropy(logits, targets) -> tuple[float, np.ndarray]:
    """Mean of ``-log softmax(logits)[target]``, and its gradient with respect to the logits.

    Examples
    --------
    >>> loss, d = cross_entropy(np.zeros((1, 2)), np.array([0]))
    >>> round(loss, 4), d.tolist()
    (0.6931, [[-0.5, 0.5]])
    """
    logits, targets = np.asarray(logits, dtype=np.float64), np.asarray(targets)
    if logits.shape[:-1] != targets.shape:
        raise ValueError(f"targets must have shape {logits.shape[:-1]} for logits {logits.shape}, got {targets.shape}")
    p = softmax(logits)
    picked = np.take_along_axis(p, targets[..., None], axis=-1)[..., 0]
    d_logits = p.copy()
    np.put_along_axis(d_logits, targets[..., None], picked[..., None] - 1, axis=-1)
    return float(-np.log(picked).mean()), d_logits / targets.size


def loss_and_gradients(params, tokens, *, sizes: Sizes = SIZES) -> tuple[float, dict[str, np.ndarray]]:
    """The model's mean next-symbol loss on ``tokens``, and its gradient for every parameter.

    Examples
    --------
    >>> loss, grads = loss_and_gradients(init_params(0), [[0, 1, 2, 0, 1]])
    >>> grads["W_Q0"].shape, grads["W_Q1"].shape
    ((64, 64), (64, 32))
    """
    tokens = check_tokens(tokens, sizes)
    logits, trace = forward(params, tokens, sizes=sizes)
    loss, d_tail = cross_entropy(logits[:, :-1], tokens[:, 1:])       # the last row guesses nothing
    d_logits = np.zeros_like(logits)
    d_logits[:, :-1] = d_tail
    x_last = trace[-1]["x_out"]
    d_model, n = x_last.shape[-1], tokens.shape[1]
    grads = {name: np.zeros_like(params[name], dtype=np.float64) for name in params}
    grads["W_U"] = x_last.reshape(-1, d_model).T @ d_logits.reshape(-1, logits.shape[-1])
    d_x = d_logits @ params["W_U"].T                                  # (B, n, d_model)
    for layer in reversed(range(sizes.layers)):
        t, h = trace[layer], sizes.heads[layer]
        grads[f"W_O{layer}"] = t["z"].reshape(-1, t["z"].shape[-1]).T @ d_x.reshape(-1, d_model)
        d_heads = split_heads(d_x @ params[f"W_O{layer}"].T, h)        # (B, h, n, d_head)
        d_weights = d_heads @ np.swapaxes(t["v"], -1, -2)              # (B, h, n, n)
        d_v = np.swapaxes(t["weights"], -1, -2) @ d_heads              # (B, h, n, d_head)
        w = t["weights"]
        d_scores = w * (d_weights - (d_weights * w).sum(axis=-1, keepdims=True)) / np.sqrt(sizes.d_head)
        d_q = concat_heads(d_scores @ t["k"])                          # (B, n, h * d_head)
        d_k = concat_heads(np.swapaxes(d_scores, -1, -2) @ t["q"])
        d_v = concat_heads(d_v)
        flat_qk, flat_x = t["qk_in"].reshape(-1, d_model), t["x"].reshape(-1, d_model)
        grads[f"W_Q{layer}"] = flat_qk.T @ d_q.reshape(-1, d_q.shape[-1])
        grads[f"W_K{layer}"] = flat_qk.T @ d_k.reshape(-1, d_k.shape[-1])
        grads[f"W_V{layer}"] = flat_x.T @ d_v.reshape(-1, d_v.shape[-1])
        d_qk_in = d_q @ params[f"W_Q{layer}"].T + d_k @ params[f"W_K{layer}"].T
        if sizes.positions == "qk" or (sizes.positions == "qk0" and layer == 0):
            grads["W_pos"][:n] += d_qk_in.sum(axis=0)                 # qk_in = x + W_pos
        d_x = d_x + d_qk_in + d_v @ params[f"W_V{layer}"].T
    if sizes.positions == "stream":
        grads["W_pos"][:n] += d_x.sum(axis=0)                         # x = W_E[tokens] + W_pos
    np.add.at(grads["W_E"], tokens.ravel(), d_x.reshape(-1, d_model))
    return loss, grads


def check_gradients(params, tokens, *, sizes: Sizes = SIZES, per_parameter: int = 6, seed: int = 1,
                    eps: float = 1e-6) -> float:
    """The largest gap between the chain-rule gradient and central finite differences.

    ``per_parameter`` random entries of every parameter are nudged by ``±eps``;
    the gradients are about 1e-3 to 1e-1, the differences' own error about 1e-10.

    Examples
    --------
    >>> from .task import copying_batch
    >>> tokens = copying_batch(3, np.random.default_rng(0)).tokens
    >>> check_gradients(init_params(3), tokens) < 1e-8
    True
    >>> all(check_gradients(init_params(3, s), tokens, sizes=s) < 1e-8
    ...     for s in (SIZES._replace(positions="stream"), SIZES._replace(positions="qk0")))
    True
    """
    params = {k: v.copy() for k, v in params.items()}
    _, grads = loss_and_gradients(params, tokens, sizes=sizes)
    rng, worst = np.random.default_rng(seed), 0.0
    for name, value in params.items():
        for _ in range(per_parameter):
            i = tuple(int(rng.integers(0, s)) for s in value.shape)
            old = value[i]
            value[i] = old + eps
            up, _ = loss_and_gradients(params, tokens, sizes=sizes)
            value[i] = old - eps
            down, _ = loss_and_gradients(params, tokens, sizes=sizes)
            value[i] = old
            numeric = (up - down) / (2 * eps)
            worst = max(worst, abs(grads[name][i] - numeric))
    return float(worst)
