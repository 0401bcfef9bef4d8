"""Writing one symbol at a time with a KV cache, as chapter "One word at a time" does.

Each step feeds one new symbol: in every layer its query meets the cached keys
of every symbol so far (and its own), and its key and value join the cache.
Because the heads are causal, this gives the same numbers as running the whole
sequence again (:func:`~.model.forward`), which the tests check; each step costs
one position's work instead of the whole sequence's.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from ..softmax import softmax
from .model import SIZES, Sizes, check_params, check_sizes, positions_in_qk
from .task import SYMBOLS, symbols_to_tokens, tokens_to_symbols


def empty_cache(sizes: Sizes = SIZES) -> dict:
    """A KV cache with no symbol in it: per layer, (h_l, 0, d_head) keys and values.

    Examples
    --------
    >>> [k.shape for k in empty_cache()["k"]]
    [(2, 0, 32), (1, 0, 32)]
    """
    return {"k": [np.zeros((h, 0, sizes.d_head)) for h in sizes.heads],
            "v": [np.zeros((h, 0, sizes.d_head)) for h in sizes.heads]}


def read_symbol(params, token: int, position: int, cache: dict, *, sizes: Sizes = SIZES):
    """Feed one symbol at ``position``; return its logits and each layer's attention weights.

    Parameters
    ----------
    params : dict of numpy.ndarray
        Checked parameters.
    token, position : int
        The symbol, and where it stands (the cache must hold ``position`` symbols).
    cache : dict
        ``{"k": [...], "v": [...]}``, one (h_l, t, d_head) array per layer;
        updated in place.
    sizes : Sizes, keyword-only

    Returns
    -------
    logits : numpy.ndarray, shape (vocab,)
        The scores of the symbol at ``position + 1``.
    weights : list of numpy.ndarray, one (h_l, position + 1) per layer

    Examples
    --------
    >>> from selfattention.induction.model import init_params
    >>> cache = empty_cache()
    >>> logits, weights = read_symbol(init_params(0), 3, 0, cache)
    >>> logits.shape, [w.shape for w in weights], cache["k"][1].shape
    ((52,), [(2, 1), (1, 1)], (1, 1, 32))
    """
    if cache["k"][0].shape[1] != position:
        raise ValueError(f"the cache holds {cache['k'][0].shape[1]} symbols, so the next is at position "
                         f"{cache['k'][0].shape[1]}, not {position}")
    d = sizes.d_head
    pos = params["W_pos"][position]                                    # (d_model,)
    x = params["W_E"][token] + (pos if sizes.positions == "stream" else 0.0)   # (d_model,)
    weights = []
    for layer, h in enumerate(sizes.heads):
        qk_in = x + pos if positions_in_qk(sizes, layer) else x        # (d_model,)
        q = (qk_in @ params[f"W_Q{layer}"]).reshape(h, d)              # (h, d_head)
        k = (qk_in @ params[f"W_K{layer}"]).reshape(h, 1, d)           # (h, 1, d_head)
        v = (x @ params[f"W_V{layer}"]).reshape(h, 1, d)               # (h, 1, d_head)
        cache["k"][layer] = np.concatenate([cache["k"][layer], k], axis=1)   # (h, t, d_head)
        cache["v"][layer] = np.concatenate([cache["v"][layer], v], axis=1)   # (h, t, d_head)
        scores = np.einsum("hd,htd->ht", q, cache["k"][layer]) / np.sqrt(d)  # (h, t)
        w = softmax(scores)                                            # (h, t)
        z = np.einsum("ht,htd->hd", w, cache["v"][layer]).reshape(-1)  # (h * d_head,)
        x = x + z @ params[f"W_O{layer}"]                              # (d_model,): the residual sum
        weights.append(w)
    return x @ params["W_U"], weights                                  # (vocab,)


def continue_sequence(params, text: str, steps: int, *, sizes: Sizes = SIZES, symbols: str = SYMBOLS) -> dict:
    """Read ``text`` one symbol at a time, then write ``steps`` more, each the most likely next symbol.

    Parameters
    ----------
    params : dict of numpy.ndarray
    text : str
        Symbols ``A`` to ``Z`` and ``a`` to ``z``; case matters, spaces are
        ignored (see :func:`~.task.symbols_to_tokens`).
    steps : int
        How many symbols to write; the whole must fit in ``n_positions``.
    sizes : Sizes, keyword-only
    symbols : str, keyword-only
        The alphabet.

    Returns
    -------
    dict
        ``text`` (what was read and written); for each written symbol,
        ``probabilities`` (steps,) its probability, ``logits`` (steps, vocab)
        the scores that chose it, and ``weights``: the list of each layer's
        (h_l, t) attention weights of the step that chose it.

    Raises
    ------
    TypeError, ValueError
        If ``text`` has a symbol outside the alphabet, ``steps`` is not a
        whole number >= 0, or the result would be longer than ``n_positions``.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> out = continue_sequence(load()["params"], "XqBcdePBcd", 6)   # "ePBcd" came after "Bcd" once
    >>> out["text"], bool(out["probabilities"].min() > 0.7)
    ('XqBcdePBcdePBcde', True)
    """
    sizes = check_sizes(sizes)
    params = check_params(params, sizes)
    tokens = symbols_to_tokens(text, symbols, sizes.n_positions).tolist()
    if isinstance(steps, bool) or not isinstance(steps, Integral) or steps < 0:
        raise ValueError(f"steps must be a whole number >= 0, got {steps!r}")
    if len(tokens) + steps > sizes.n_positions:
        raise ValueError(f"{len(tokens)} symbols + {steps} steps is more than the model's {sizes.n_positions} "
                         "positions")
    cache = empty_cache(sizes)
    for position, token in enumerate(tokens):
        logits, weights = read_symbol(params, token, position, cache, sizes=sizes)
    chosen_logits, probabilities, chosen_weights = [], [], []
    for _ in range(steps):
        p = softmax(logits)                                            # (vocab,)
        token = int(np.argmax(p))
        chosen_logits.append(logits)
        probabilities.append(float(p[token]))
        chosen_weights.append(weights)
        tokens.append(token)
        if len(tokens) < sizes.n_positions:
            logits, weights = read_symbol(params, token, len(tokens) - 1, cache, sizes=sizes)
    return {"text": tokens_to_symbols(tokens, symbols), "probabilities": np.array(probabilities),
            "logits": np.array(chosen_logits).reshape(steps, sizes.vocab), "weights": chosen_weights}
