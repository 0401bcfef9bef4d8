"""Writing one symbol at a time with a KV cache, as chapter "One word at a time" does.

Each step feeds one new symbol: its query meets the cached keys of every
symbol so far (and its own), and its key and value join the cache. Because
the heads are causal, this gives the same numbers as running the whole
sequence again (:func:`~.model.forward`), which the tests check.
"""

from __future__ import annotations

import numpy as np

from ..softmax import softmax
from .model import D_HEAD, HEADS, LAYERS, check_params
from .task import N_POSITIONS, symbols_to_tokens, tokens_to_symbols


def read_symbol(params, token: int, position: int, cache: dict) -> tuple[np.ndarray, list[np.ndarray]]:
    """Feed one symbol at ``position``; return its logits and each layer's attention weights.

    Parameters
    ----------
    params : dict of numpy.ndarray
        Checked parameters.
    token, position : int
    cache : dict
        ``{"k": [...], "v": [...]}``, one list per layer of (h, t, d_head)
        arrays; updated in place.

    Returns
    -------
    logits : numpy.ndarray, shape (VOCAB,)
    weights : list of numpy.ndarray, one (h, position + 1) per layer
    """
    x = params["W_E"][token]                                           # (d_model,)
    weights = []
    for layer in range(LAYERS):
        qk_in = x + params["W_pos"][position]                          # (d_model,)
        q = (qk_in @ params["W_Q"][layer]).reshape(HEADS, D_HEAD)      # (h, d_head)
        k = (qk_in @ params["W_K"][layer]).reshape(HEADS, 1, D_HEAD)   # (h, 1, d_head)
        v = (x @ params["W_V"][layer]).reshape(HEADS, 1, D_HEAD)       # (h, 1, d_head)
        cache["k"][layer] = np.concatenate([cache["k"][layer], k], axis=1)   # (h, t, d_head)
        cache["v"][layer] = np.concatenate([cache["v"][layer], v], axis=1)   # (h, t, d_head)
        scores = np.einsum("hd,htd->ht", q, cache["k"][layer]) / np.sqrt(D_HEAD)   # (h, t)
        w = softmax(scores)                                            # (h, t)
        z = np.einsum("ht,htd->hd", w, cache["v"][layer]).reshape(-1)  # (h * d_head,)
        x = x + z @ params["W_O"][layer]                               # the residual sum
        weights.append(w)
    return x @ params["W_U"], weights


def continue_sequence(params, text, steps: int) -> dict:
    """Read ``text`` one symbol at a time, then write ``steps`` more, each the most likely next symbol.

    Parameters
    ----------
    params : dict of numpy.ndarray
    text : str
        Symbols ``A`` to ``P`` (see :func:`~.task.symbols_to_tokens`).
    steps : int
        How many symbols to write; the whole must fit in ``N_POSITIONS``.

    Returns
    -------
    dict
        ``text`` (what was read and written), ``probabilities`` (steps,) of
        each written symbol, and ``weights``: for each written symbol, the
        list of each layer's (h, t) attention weights of the step that chose it.

    Raises
    ------
    ValueError
        If ``text`` has a symbol outside ``A`` to ``P``, or the result would
        be longer than ``N_POSITIONS``.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> out = continue_sequence(load()["params"], "ABCDAB", 2)
    >>> len(out["text"]), len(out["probabilities"])
    (8, 2)
    """
    params = check_params(params)
    tokens = symbols_to_tokens(text).tolist()
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"steps must be a whole number >= 0, got {steps!r}")
    if len(tokens) + steps > N_POSITIONS:
        raise ValueError(f"{len(tokens)} symbols + {steps} steps is more than the model's {N_POSITIONS} positions")
    cache = {"k": [np.zeros((HEADS, 0, D_HEAD))] * LAYERS, "v": [np.zeros((HEADS, 0, D_HEAD))] * LAYERS}
    cache = {"k": list(cache["k"]), "v": list(cache["v"])}
    for position, token in enumerate(tokens):
        logits, weights = read_symbol(params, token, position, cache)
    probabilities, chosen_weights = [], []
    for _ in range(steps):
        p = softmax(logits)
        token = int(np.argmax(p))
        probabilities.append(float(p[token]))
        chosen_weights.append(weights)
        tokens.append(token)
        if len(tokens) < N_POSITIONS:
            logits, weights = read_symbol(params, token, len(tokens) - 1, cache)
    return {"text": tokens_to_symbols(tokens), "probabilities": np.array(probabilities), "weights": chosen_weights}
