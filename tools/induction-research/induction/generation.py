"""Reading letters the reader types, and writing more, one letter at a time (greedy)."""

from __future__ import annotations

import numpy as np

from selfattention.softmax import softmax

from .model import SIZES, Sizes, check_params, forward
from .task import SYMBOLS, symbols_to_tokens, tokens_to_symbols


def continue_sequence(params, text: str, steps: int, *, sizes: Sizes = SIZES, symbols: str = SYMBOLS) -> dict:
    """Read ``text``, then write ``steps`` more letters, each the most likely next one.

    Each step runs the whole sequence again (the heads are causal, so a KV
    cache would give the same numbers).

    Returns
    -------
    dict
        ``text`` (read and written) and ``probabilities`` (steps,) of each written letter.

    Raises
    ------
    ValueError
        If ``text`` has a character outside the alphabet, or the result is longer than the context.

    Examples
    --------
    >>> from .model import init_params
    >>> out = continue_sequence(init_params(0), "ABCab", 3)
    >>> len(out["text"]), out["probabilities"].shape
    (8, (3,))
    """
    params = check_params(params, sizes)
    tokens = symbols_to_tokens(text, symbols, sizes.n_positions).tolist()
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"steps must be a whole number >= 0, got {steps!r}")
    if len(tokens) + steps > sizes.n_positions:
        raise ValueError(f"{len(tokens)} letters + {steps} steps is more than the model's {sizes.n_positions} positions")
    probabilities = []
    for _ in range(steps):
        logits, _ = forward(params, tokens, sizes=sizes)
        p = softmax(logits[0, -1])
        token = int(np.argmax(p))
        probabilities.append(float(p[token]))
        tokens.append(token)
    return {"text": tokens_to_symbols(tokens, symbols), "probabilities": np.array(probabilities)}
