"""The writer's heads under chapter 15's classic test: random letters, then the same letters again.

The classic test (Olsson et al. 2022) of :mod:`selfattention.induction.task`
draws a sequence of random symbols in which ``k`` of them, from some offset,
are repeated at once. Here the symbols are the 52 letters ``A`` to ``Z`` and
``a`` to ``z``, written as the writer's characters, 128 of them (the
writer's context). A model that copies guesses the second copy far better
than the first, which nothing can predict.

For every head, :func:`classic_heads` reports the two scores of chapter 15:

* the *previous-token score*: its mean weight from position ``i`` on
  position ``i - 1``;
* the *induction score*: its mean weight, from a query in the second copy,
  on the key that follows the current letter's first occurrence (the letter
  to copy);

and the loss, in bits per character, of the first copy's guesses and of the
second copy's.

Examples
--------
>>> from selfattention.writer import CharTokenizer, WriterSizes, init_writer
>>> import string
>>> tok = CharTokenizer.from_corpus(string.ascii_letters + " .")
>>> sizes = WriterSizes(vocab=tok.vocab, n_positions=32, d_model=16, heads=2, layers=2, d_ff=32)
>>> out = classic_heads(init_writer(sizes, 0), sizes, tok, n_sequences=4)
>>> out["previous"].shape, out["induction"].shape, out["first"] > 4     # untrained: no better than chance
((2, 2), (2, 2), True)
"""

from __future__ import annotations

import math
import string

import numpy as np

from .._validate import check_positive_int
from ..induction.task import classic_mix
from .model import WriterSizes, check_writer_params, run_writer
from .ngrams import _next_nats
from .tokenizer import CharTokenizer

#: The test's symbols: the 52 letters of chapter 15's copying model.
LETTERS = string.ascii_uppercase + string.ascii_lowercase
#: Shortest repeat, as in chapter 15.
SHORTEST = 4


def classic_heads(params, sizes: WriterSizes, tokenizer: CharTokenizer, *, n_sequences: int = 64,
                  seed: int = 2022) -> dict:
    """Every head's previous-token and induction scores, and both copies' losses, on the classic test.

    Each sequence fills the context with random letters and has its own
    repeat of ``k`` letters (4 to half the context) at its own offset
    (:func:`~selfattention.induction.task.classic_mix`).

    Parameters
    ----------
    params : dict of str to array_like
    sizes : WriterSizes
    tokenizer : CharTokenizer
        It must know the 52 letters.
    n_sequences : int, default 64, keyword-only
    seed : int, default 2022, keyword-only

    Returns
    -------
    dict
        ``previous`` and ``induction``: (layers, heads) arrays of the two
        scores; ``first`` and ``second``: the mean loss, in bits per
        character, of the guesses inside the first copy and inside the
        second copy (the repeated part).

    Raises
    ------
    TypeError, ValueError
        If the tokenizer lacks a letter, or as
        :func:`~selfattention.writer.model.writer_forward`.
    """
    params = check_writer_params(params, sizes)
    n_sequences = check_positive_int(n_sequences, "n_sequences")
    if not isinstance(tokenizer, CharTokenizer):
        raise TypeError(f"tokenizer must be a CharTokenizer, got {type(tokenizer).__name__}")
    missing = [c for c in LETTERS if c not in tokenizer.chars]
    if missing:
        raise ValueError(f"the tokenizer lacks the letters {''.join(missing)!r} of the classic test")
    n = sizes.n_positions
    batch = classic_mix(n_sequences, np.random.default_rng(seed), n, len(LETTERS), lengths=(SHORTEST, n // 2))
    ids = np.array([tokenizer.encode(c)[0] for c in LETTERS])[batch.tokens]   # (B, n) letters as the writer's ids
    logits, trace = run_writer(params, ids, sizes)                           # (B, n, vocab)
    nll = _next_nats(logits[:, :-1], ids[:, 1:]) / math.log(2)                # (B, n - 1) bits
    b, t = np.nonzero(batch.second)
    j = batch.key[b, t]
    i = np.arange(1, n)
    previous = np.array([[parts["weights"][:, a, i, i - 1].mean() for a in range(sizes.heads)] for parts in trace])
    induction = np.array([[parts["weights"][b, a, t, j].mean() for a in range(sizes.heads)] for parts in trace])
    return {"previous": previous, "induction": induction,
            "first": float(nll[batch.first].mean()), "second": float(nll[batch.second].mean())}
