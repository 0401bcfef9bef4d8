"""Checker of the three moves (look, score, blend) for one word (book/words-are-islands.md, "Words are islands")."""

from __future__ import annotations

import numpy as np

from .._validate import as_float_array
from ..attention import attention_scores
from ..examples import three_words
from ..softmax import softmax
from ._compare import Diagnoses, Feedback, compare

BLEND = Diagnoses("check_blend", "Right: {name}'s blend matches.", {
    "shares": "Those are {name}'s shares, one per word. Blend the words with them: shares @ X.",
    "plain-average": "That is the plain average of the words: every word got the same share. "
                     "Use the shares softmax gives to {name}'s scores.",
    "itself": "That is {name} itself: the blend mixes in every word, by its share.",
    "scores-as-shares": "You blended with the scores. Turn them into shares with softmax first, "
                        "so that they are positive and add up to 1.",
    "no-scale": "The blend is too sharp: did you forget to divide the scores by sqrt({d_k}), the square root "
                "of the number of numbers per word?",
    "by-d_k": "You divided the scores by {d_k}, the number of numbers per word: divide by its square root, "
              "sqrt({d_k}).",
    "not-normalised": "You blended with np.exp of the scores, which do not add up to 1: divide them by their "
                      "sum first, so that they become shares (softmax).",
    "other-word": "That is {other}'s blend: score with {name}'s vector, row {word} of X.",
})


def check_blend(output, word: int = 2, x=None) -> Feedback:
    """Check the reader's three moves (look, score, blend) for one word of ``x``.

    The right answer is the word's output: the scores of ``x[word]`` with
    every word, ``x @ x[word] / sqrt(d_k)``, turned into shares by softmax,
    then the blend ``shares @ x``.

    Parameters
    ----------
    output : array_like
        What the reader computed: one vector of ``d_k`` numbers.
    word : int, default 2
        The row of ``x`` that looks (2 is car in the running example).
    x : array_like, shape (L, d_k), optional
        The words; defaults to the running example (cat, dog, car).

    Returns
    -------
    Feedback
        ``ok`` is True if ``output`` is right; the message names the likely
        mistake otherwise (the shares instead of the blend, a plain average, the
        scores used as shares, no scaling, a division by ``d_k`` instead of its
        square root, exponentials that are not normalised, another word,
        rounded numbers). A value
        counts as right within 100 eps (abs(expected) + the largest
        abs(expected)), eps being the machine epsilon of the answer: float32's for
        float32 arrays (as torch's .numpy() gives), float64's otherwise; a float16
        answer is judged with float16's rounding (10 of its eps), and an expected
        inf only by the same inf.

    Raises
    ------
    TypeError, ValueError
        If ``x`` is not a 2-D array of finite real numbers or ``word`` is
        not one of its rows (a wrong ``output`` is not an error).

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import softmax
    >>> X = three_words()
    >>> car = X[2]
    >>> shares = softmax(X @ car / np.sqrt(2))
    >>> print(check_blend(shares @ X))
    ✓ Right: car's blend matches.
    >>> print(check_blend(X.mean(axis=0)))  # doctest: +NORMALIZE_WHITESPACE
    ✗ That is the plain average of the words: every word got the same share.
    Use the shares softmax gives to car's scores.
    """
    names = dict(enumerate(("cat", "dog", "car"))) if x is None else {}
    x = three_words() if x is None else as_float_array(x, "x")
    if x.ndim != 2:
        raise ValueError(f"x must have shape (L, d_k), got {x.shape}")
    x = x.astype(np.float64)
    n, d_k = x.shape
    if isinstance(word, bool) or not isinstance(word, (int, np.integer)) or not 0 <= word < n:
        raise ValueError(f"word must be a row of x, from 0 to {n - 1}, got {word!r}")
    name = names.get(int(word), f"word {word}")

    def blend_of(row, scale=True):
        scores = attention_scores(x[row:row + 1], x)[0]        # (L,)
        return softmax(scores if scale else scores * np.sqrt(d_k)) @ x   # (d_k,)

    scores = attention_scores(x[word:word + 1], x)[0]          # (L,)
    shares = softmax(scores)                                  # (L,)
    slips = [(shares if n != d_k else None, "shares", {"name": name}),
             (x.mean(axis=0), "plain-average", {"name": name}),
             (x[word], "itself", {"name": name}),
             (scores @ x, "scores-as-shares", {}),
             (blend_of(word, scale=False), "no-scale", {"d_k": d_k}),
             (softmax(scores * np.sqrt(d_k) / d_k) @ x if d_k != 1 else None, "by-d_k", {"d_k": d_k}),
             (np.exp(scores) @ x, "not-normalised", {})]
    slips += [(blend_of(other), "other-word", {"other": names.get(other, f"word {other}"), "name": name,
                                               "word": word})
              for other in range(n) if other != word]
    return compare(output, shares @ x, BLEND, name="output", layout=f"one vector of {d_k} numbers, like a word.",
                   right={"name": name}, slips=slips)
