"""The writer's loss and its gradient for every parameter, by the chain rule.

The loss is the mean cross-entropy of every next-character guess: a window of
``n + 1`` characters is read ``n`` at a time, and position ``t`` scores the
character at ``t + 1``. The gradient goes backwards through
:func:`~selfattention.writer.model.writer_forward` one step at a time, each
step the derivative of one line of the forward pass:

* the unembedding and the final layer norm (:func:`layer_norm_backward`);
* in every block, from the last to the first: the MLP (the slope of GELU is
  ``Φ(h) + h φ(h)``), its layer norm, the attention (:func:`attention_backward`,
  the softmax's derivative row by row) and its layer norm; each residual sum
  passes its gradient straight through (:func:`block_backward`);
* the positions and the embedding rows of the characters that were read.

:func:`check_writer_gradients` compares it with central finite differences;
the tests do so for every parameter.
"""

from __future__ import annotations

import numpy as np

from ..fast.normal import normal_cdf, normal_pdf
from ..multihead import concat_heads, split_heads
from ..softmax import softmax
from .model import (
    LAYER_NAMES,
    LN_EPS,
    WriterSizes,
    check_writer_params,
    check_writer_tokens,
    layer_params,
    writer_forward,
)


def softmax_cross_entropy(logits, targets) -> tuple[float, np.ndarray]:
    """Mean of ``-ln softmax(logits)[target]`` (in nats), and its gradient with respect to the logits.

    Parameters
    ----------
    logits : array_like, shape (..., V)
    targets : array_like of int, shape (...)

    Returns
    -------
    loss : float
        In nats; divide by ``ln 2`` for bits.
    d_logits : numpy.ndarray, shape (..., V)
        ``(softmax(logits) - one_hot(targets)) / count``.

    Raises
    ------
    TypeError
        If the targets are not integers.
    ValueError
        If the shapes do not match or a target is out of range.

    Examples
    --------
    Four equal scores: the loss is ln 4, two bits.

    >>> loss, d = softmax_cross_entropy(np.zeros((1, 4)), [2])
    >>> round(float(loss / np.log(2)), 6), d.tolist()
    (2.0, [[0.25, 0.25, -0.75, 0.25]])
    """
    logits, targets = np.asarray(logits, dtype=np.float64), np.asarray(targets)
    if targets.dtype == object or not np.issubdtype(targets.dtype, np.integer):
        raise TypeError(f"targets must be integer ids, got dtype {targets.dtype}")
    if logits.ndim < 1 or logits.shape[:-1] != targets.shape:
        raise ValueError(f"targets must have shape {logits.shape[:-1]} for logits {logits.shape}, "
                         f"got {targets.shape}")
    if targets.size and (targets.min() < 0 or targets.max() >= logits.shape[-1]):
        raise ValueError(f"targets must be 0 to {logits.shape[-1] - 1}, got {targets.min()} to {targets.max()}")
    p = softmax(logits)                                                # (..., V)
    picked = np.take_along_axis(p, targets[..., None], axis=-1)[..., 0]   # (...,)
    d_logits = p
    np.put_along_axis(d_logits, targets[..., None], picked[..., None] - 1.0, axis=-1)
    with np.errstate(divide="ignore"):
        loss = float(-np.log(picked).mean())
    return loss, d_logits / targets.size


def layer_norm_backward(d_y, x, gamma, *, eps: float = LN_EPS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients through ``y = (x - mean) / sqrt(var + eps) * gamma + beta``, over the last axis.

    With ``x_hat`` the normalised row and ``r = 1 / sqrt(var + eps)``:
    ``d_x_hat = d_y * gamma`` and
    ``d_x = r * (d_x_hat - mean(d_x_hat) - x_hat * mean(d_x_hat * x_hat))``:
    the two means undo what moving every number of a row together, or
    stretching the row, would change (the layer norm removes both).

    Parameters
    ----------
    d_y : numpy.ndarray, shape (..., d)
        Gradient of the loss with respect to the layer norm's output.
    x : numpy.ndarray, shape (..., d)
        Its input.
    gamma : numpy.ndarray, shape (d,)
    eps : float, default LN_EPS, keyword-only

    Returns
    -------
    d_x : numpy.ndarray, shape (..., d)
    d_gamma, d_beta : numpy.ndarray, shape (d,)
        Summed over every row.

    Raises
    ------
    ValueError
        If the shapes do not match.

    Examples
    --------
    Moving the whole row changes nothing, so ``d_x`` sums to 0 in each row:

    >>> d_x, d_gamma, d_beta = layer_norm_backward(np.array([[1.0, 0.0, 0.0]]), np.array([[1.0, 2.0, 4.0]]),
    ...                                            np.ones(3))
    >>> bool(abs(d_x.sum()) < 1e-12), d_beta.tolist()
    (True, [1.0, 0.0, 0.0])
    """
    d_y, x, gamma = np.asarray(d_y, dtype=np.float64), np.asarray(x, dtype=np.float64), np.asarray(gamma)
    if d_y.shape != x.shape or gamma.shape != x.shape[-1:]:
        raise ValueError(f"d_y {d_y.shape} and x {x.shape} must match, and gamma {gamma.shape} be (d,)")
    centred = x - x.mean(axis=-1, keepdims=True)                      # (..., d)
    r = 1.0 / np.sqrt(np.mean(centred * centred, axis=-1, keepdims=True) + eps)   # (..., 1)
    x_hat = centred * r                                                # (..., d)
    d_x_hat = d_y * gamma                                              # (..., d)
    d_x = r * (d_x_hat - d_x_hat.mean(axis=-1, keepdims=True)
               - x_hat * np.mean(d_x_hat * x_hat, axis=-1, keepdims=True))   # (..., d)
    rows = (-1, x.shape[-1])
    return d_x, (d_y * x_hat).reshape(rows).sum(axis=0), d_y.reshape(rows).sum(axis=0)


def attention_backward(d_out, q, k, v, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients through ``out = softmax(q k^T / sqrt(d_head)) v``, causal or not.

    ``d_v = weights^T d_out``; ``d_weights = d_out v^T``; the softmax of each
    row gives ``d_scores = weights * (d_weights - sum(d_weights * weights))``
    (a masked weight is 0, so its score gets no gradient); then
    ``d_q = d_scores k / sqrt(d_head)`` and ``d_k = d_scores^T q / sqrt(d_head)``.

    Parameters
    ----------
    d_out : numpy.ndarray, shape (..., n, d_head)
    q : numpy.ndarray, shape (..., n, d_head)
    k, v : numpy.ndarray, shape (..., S, d_head)
    weights : numpy.ndarray, shape (..., n, S)
        The attention weights of the forward pass.

    Returns
    -------
    d_q : numpy.ndarray, shape (..., n, d_head)
    d_k, d_v : numpy.ndarray, shape (..., S, d_head)

    Examples
    --------
    One query, two keys: only the value it weights gets a gradient.

    >>> d_q, d_k, d_v = attention_backward(np.ones((1, 2)), np.zeros((1, 2)), np.zeros((2, 2)),
    ...                                    np.eye(2), np.array([[1.0, 0.0]]))
    >>> d_v.tolist(), d_q.tolist()
    ([[1.0, 1.0], [0.0, 0.0]], [[0.0, 0.0]])
    """
    scale = 1.0 / np.sqrt(q.shape[-1])
    d_v = np.swapaxes(weights, -1, -2) @ d_out                         # (..., S, d_head)
    d_weights = d_out @ np.swapaxes(v, -1, -2)                         # (..., n, S)
    d_scores = weights * (d_weights - (d_weights * weights).sum(axis=-1, keepdims=True))   # (..., n, S)
    d_q = d_scores @ k * scale                                         # (..., n, d_head)
    d_k = np.swapaxes(d_scores, -1, -2) @ q * scale                    # (..., S, d_head)
    return d_q, d_k, d_v


def _flat(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1, a.shape[-1])                                  # (rows, last)


def block_backward(d_x_out, parts: dict, p: dict, heads: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Gradients through one :func:`~selfattention.writer.model.decoder_block` (without a cache).

    Parameters
    ----------
    d_x_out : numpy.ndarray, shape (..., n, d_model)
        Gradient of the loss with respect to the block's output stream.
    parts : dict
        What the block computed (its second result).
    p : dict of str to numpy.ndarray
        The block's parameters.
    heads : int

    Returns
    -------
    d_x : numpy.ndarray, shape (..., n, d_model)
        Gradient with respect to the stream the block read.
    grads : dict of str to numpy.ndarray
        One per name of :data:`~selfattention.writer.model.LAYER_NAMES`.

    Examples
    --------
    >>> from selfattention.writer.model import WriterSizes, decoder_block, init_writer, layer_params
    >>> sizes = WriterSizes(vocab=5, n_positions=4, d_model=8, heads=2, layers=1, d_ff=16)
    >>> p = layer_params(init_writer(sizes, 0), 0)
    >>> _, parts = decoder_block(np.random.default_rng(0).standard_normal((3, 8)), p, 2)
    >>> d_x, grads = block_backward(np.ones((3, 8)), parts, p, 2)
    >>> d_x.shape, grads["W_1"].shape, grads["b_2"].tolist() == [3.0] * 8
    ((3, 8), (8, 16), True)
    """
    g = {}
    # x_out = x_mid + GELU(h_pre) @ W_2 + b_2: the residual passes d_x_out straight through.
    h_pre = parts["h_pre"]
    g["b_2"] = _flat(d_x_out).sum(axis=0)
    g["W_2"] = _flat(parts["act"]).T @ _flat(d_x_out)
    d_act = d_x_out @ p["W_2"].T                                       # (..., n, d_ff)
    d_h = d_act * (normal_cdf(h_pre) + h_pre * normal_pdf(h_pre))      # (..., n, d_ff): GELU's slope Φ + h φ
    g["b_1"] = _flat(d_h).sum(axis=0)
    g["W_1"] = _flat(parts["m_in"]).T @ _flat(d_h)
    d_m_in = d_h @ p["W_1"].T                                          # (..., n, d_model)
    d_x_mid, g["ln2_g"], g["ln2_b"] = layer_norm_backward(d_m_in, parts["x_mid"], p["ln2_g"])
    d_x_mid = d_x_mid + d_x_out                                        # (..., n, d_model)
    # x_mid = x + z @ W_O
    g["W_O"] = _flat(parts["z"]).T @ _flat(d_x_mid)
    d_heads = split_heads(d_x_mid @ p["W_O"].T, heads)                 # (..., h, n, d_head)
    d_q, d_k, d_v = attention_backward(d_heads, parts["q"], parts["k"], parts["v"], parts["weights"])
    d_q, d_k, d_v = concat_heads(d_q), concat_heads(d_k), concat_heads(d_v)   # (..., n, d_model)
    a_in = _flat(parts["a_in"])
    g["W_Q"], g["W_K"], g["W_V"] = a_in.T @ _flat(d_q), a_in.T @ _flat(d_k), a_in.T @ _flat(d_v)
    d_a_in = d_q @ p["W_Q"].T + d_k @ p["W_K"].T + d_v @ p["W_V"].T    # (..., n, d_model)
    d_x, g["ln1_g"], g["ln1_b"] = layer_norm_backward(d_a_in, parts["x"], p["ln1_g"])
    return d_x + d_x_mid, g


def writer_loss_and_gradients(params, tokens, sizes: WriterSizes) -> tuple[float, dict[str, np.ndarray]]:
    """The mean next-character loss on windows of text, and its gradient for every parameter.

    Parameters
    ----------
    params : dict of str to array_like
    tokens : array_like of int, shape (B, n + 1) or (n + 1,)
        Windows of character ids, ``2 <= n + 1 <= n_positions + 1``: the
        model reads the first ``n`` of each and guesses the last ``n``.
    sizes : WriterSizes

    Returns
    -------
    loss : float
        In nats per character.
    grads : dict of str to numpy.ndarray
        One array per parameter, of its shape.

    Raises
    ------
    TypeError, ValueError
        If ``sizes``, a parameter or ``tokens`` is of the wrong type or shape.

    Examples
    --------
    At the start every character is about equally likely: the loss is near ``ln vocab``.

    >>> from selfattention.writer.model import WriterSizes, init_writer
    >>> sizes = WriterSizes(vocab=10, n_positions=8, d_model=16, heads=2, layers=2, d_ff=32)
    >>> loss, grads = writer_loss_and_gradients(init_writer(sizes, 0), [[1, 2, 3, 1, 2, 3]], sizes)
    >>> round(float(loss / np.log(10)), 1), grads["W_Q"].shape
    (1.0, (2, 16, 16))
    """
    params = check_writer_params(params, sizes)
    tokens = check_writer_tokens(tokens, sizes, extra=1)
    if tokens.shape[1] < 2:
        raise ValueError(f"tokens must hold windows of at least 2 characters (one read, one guessed), "
                         f"got shape {tokens.shape}")
    inputs, targets = tokens[:, :-1], tokens[:, 1:]                    # (B, n) each
    logits, trace = writer_forward(params, inputs, sizes)              # (B, n, vocab)
    loss, d_logits = softmax_cross_entropy(logits, targets)            # (B, n, vocab)
    grads = {}
    x_last = trace[-1]["x_out"]                                        # (B, n, d_model)
    x_final = _normed(x_last) * params["lnf_g"] + params["lnf_b"]      # (B, n, d_model)
    grads["W_U"] = _flat(x_final).T @ _flat(d_logits)
    d_x_final = d_logits @ params["W_U"].T                             # (B, n, d_model)
    d_x, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(d_x_final, x_last, params["lnf_g"])
    stacked = {name: np.zeros_like(params[name]) for name in LAYER_NAMES}
    for layer in reversed(range(sizes.layers)):
        d_x, g = block_backward(d_x, trace[layer], layer_params(params, layer), sizes.heads)
        for name in LAYER_NAMES:
            stacked[name][layer] = g[name]
    grads.update(stacked)
    n = inputs.shape[1]
    grads["W_pos"] = np.zeros_like(params["W_pos"])
    grads["W_pos"][:n] = d_x.sum(axis=0)                               # x = W_E[tokens] + W_pos[:n]
    grads["W_E"] = np.zeros_like(params["W_E"])
    np.add.at(grads["W_E"], inputs.ravel(), _flat(d_x))
    return loss, grads


def _normed(x: np.ndarray) -> np.ndarray:
    """``(x - mean) / sqrt(var + LN_EPS)`` over the last axis: the layer norm before its scale and shift."""
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt(np.mean(centred * centred, axis=-1, keepdims=True) + LN_EPS)


def check_writer_gradients(params, tokens, sizes: WriterSizes, *, per_parameter: int = 6, seed: int = 1,
                           h: float = 1e-5) -> dict[str, float]:
    """The largest gap between the chain rule and central finite differences, for each parameter.

    For ``per_parameter`` entries of each parameter, chosen at random, the
    slope ``(loss(w + h) - loss(w - h)) / (2 h)`` is compared with the entry of
    :func:`writer_loss_and_gradients`'s gradient.

    Parameters
    ----------
    params : dict of str to array_like
    tokens : array_like of int, shape (B, n + 1)
    sizes : WriterSizes
    per_parameter : int, default 6, keyword-only
        Entries tried per parameter (all of them if it has fewer).
    seed : int, default 1, keyword-only
        Chooses the entries.
    h : float, default 1e-5, keyword-only
        The step of the finite difference.

    Returns
    -------
    dict of str to float
        The largest absolute gap for each parameter.

    Raises
    ------
    TypeError, ValueError
        As :func:`writer_loss_and_gradients`.

    Examples
    --------
    >>> from selfattention.writer.model import WriterSizes, init_writer
    >>> sizes = WriterSizes(vocab=6, n_positions=4, d_model=8, heads=2, layers=1, d_ff=8)
    >>> gaps = check_writer_gradients(init_writer(sizes, 0), [[1, 2, 3, 4, 5]], sizes, per_parameter=2)
    >>> bool(max(gaps.values()) < 1e-7)
    True
    """
    params = {name: a.copy() for name, a in check_writer_params(params, sizes).items()}
    _, grads = writer_loss_and_gradients(params, tokens, sizes)
    rng = np.random.default_rng(seed)
    gaps = {}
    for name, w in params.items():
        flat = w.reshape(-1)                                           # a view: changing it changes w
        picks = rng.choice(flat.size, size=min(per_parameter, flat.size), replace=False)
        worst = 0.0
        for i in picks:
            kept = flat[i]
            flat[i] = kept + h
            up, _ = writer_loss_and_gradients(params, tokens, sizes)
            flat[i] = kept - h
            down, _ = writer_loss_and_gradients(params, tokens, sizes)
            flat[i] = kept
            worst = max(worst, abs((up - down) / (2 * h) - grads[name].reshape(-1)[i]))
        gaps[name] = worst
    return gaps
