"""Checker of the exercise "Wire it by hand": the reader's four matrices take the classic test.

The model is :mod:`selfattention.wiring`: the reader writes ``W_Q0``, ``W_K0``
(a previous-token head) and ``W_Q1``, ``W_K1`` (an induction head). The
checker never reads the matrices' entries: it runs the model on the classic
test and judges where the two heads look, so any right answer passes,
whatever its layout, size or dtype. A slip is named by its effect:

* ``swapped``: the model passes with the two layers' matrices exchanged;
* ``blank``: a head gives every key it can see the same score (the starter's
  zeros, or a query that asks for a later position, which the mask hides);
* ``too-soft``: the model passes with every matrix 10 times larger;
* ``no-shift``: layer 0 looks at the current position, so the
  previous-symbol block holds the current symbol;
* ``current-key``: layer 1 looks at the earlier occurrence of the current
  symbol itself, ``t - k``, not at the position after it;
* ``wrong``: anything else, with the scores.
"""

from __future__ import annotations

import numpy as np

from .. import wiring
from ._compare import Diagnoses, Feedback

#: A right answer's induction score reaches this share of what a head matching one symbol can reach.
PASS = 0.9
#: How much larger every matrix is made to see whether the heads only look too softly.
SHARPER = 10.0
#: The share of layer 0's weight on the current position, and of layer 1's on t - k, that names a slip.
NO_SHIFT, EARLIER = 0.5, 0.25

WIRING = Diagnoses("check_wiring", "Right: the induction head scores {score} on the classic test, {share} of the "
                   "{ceiling} that a head matching one symbol can reach (chance repeats among the 52 symbols take "
                   "the rest). The previous-token head scores {previous}, and the second repeat's loss is {ratio} "
                   "times the first's.", {
    "swapped": "The two layers are swapped: with W_Q1, W_K1 in layer 0 and W_Q0, W_K0 in layer 1 your model "
               "passes (induction score {swapped}). Layer 0 runs first, while the previous-symbol block is still "
               "empty, so it must do the shift to i - 1; the matching of symbols belongs to layer 1.",
    "blank": "{which} gives every key it can see the same score, so it spreads its weight evenly over them. Fill "
             "in {matrices} so that {goal}.",
    "too-soft": "Your heads look at the right places, but softly: the induction head scores {score}, and with "
                "every matrix 10 times larger it would score {sharper}. Give a match a score of about 1 (the model "
                "multiplies every score by 20); a smaller one leaves weight on the other keys.",
    "no-shift": "Layer 0 looks at the current position, not the one before: it puts {current} of its weight on "
                "position i itself and {previous} on i - 1, so the previous-symbol block holds the current "
                "symbol. The query of position i should match the key of position i - 1.",
    "current-key": "Your induction head finds the earlier occurrence of the current symbol itself (weight "
                   "{earlier} on t - k), not the position after it (weight {score} on t - k + 1). Match the "
                   "query's current symbol against each key's previous symbol: the key of position j should "
                   "offer the symbol before j, so the query of s finds the position that followed the earlier s.",
    "wrong": "Not yet: the induction head scores {score} on the classic test (its weight on t - k + 1, the "
             "position after the earlier occurrence of the current symbol; {ceiling} is reachable) and the "
             "previous-token head {previous} (its weight on i - 1). Layer 0 should look at i - 1, and layer 1 "
             "at the position whose previous symbol is the current one.",
}, generic=())

#: The three fields of "blank", for layer 0's head, layer 1's, or both.
BLANK = {
    (0,): {"which": "Layer 0's head", "matrices": "W_Q0 and W_K0",
           "goal": "the query of position i matches the key of position i - 1 (not a later one: the causal mask "
                   "hides it)"},
    (1,): {"which": "Layer 1's head", "matrices": "W_Q1 and W_K1",
           "goal": "the query of symbol s matches the key of every position whose previous symbol is s"},
    (0, 1): {"which": "Each head", "matrices": "all four matrices",
             "goal": "layer 0 looks at i - 1 and layer 1 at the position whose previous symbol is the current one"},
}


def _test(W: dict, batch) -> tuple[dict, tuple]:
    """The classic test's scores of the matrices ``W``, and the two heads' weights."""
    logits, weights = wiring.wired_forward(W, batch.tokens)
    return wiring.classic_scores(batch, logits, weights), weights


def _passes(W: dict, batch) -> float | None:
    """The induction score of ``W`` if it passes the classic test, else None (an overflow does not pass)."""
    try:
        scores, _ = _test(W, batch)
    except ValueError:
        return None
    return scores["induction"] if scores["induction"] >= PASS * scores["ceiling"] else None


def _even(weights: np.ndarray) -> bool:
    """Whether a head spreads its weight evenly over the keys it can see, at every query."""
    n = weights.shape[-1]
    even = np.tri(n) / np.arange(1, n + 1)[:, None]                    # (n, n): 1 / (i + 1) on keys 0..i
    return bool(np.allclose(weights, even, rtol=0, atol=1e-6))


def check_wiring(W_Q0, W_K0, W_Q1, W_K1) -> Feedback:
    """Check the reader's wiring of a previous-token head (layer 0) and an induction head (layer 1).

    The model is :func:`selfattention.wiring.wired_forward`; the test is
    :func:`selfattention.wiring.classic_test` with its defaults (2 sequences
    for each repeat length ``k`` from 4 to 16 and each offset that fits).
    The answer is right when the induction score (layer 1's mean weight on
    ``t - k + 1``) reaches 90% of :func:`~selfattention.wiring.matching_ceiling`,
    what a head that matches one symbol scores at best (about 0.86: chance
    repeats of a symbol share the weight).

    Parameters
    ----------
    W_Q0, W_K0 : array_like, shape (D, d_head)
        Layer 0's query and key matrices (D = 136, the stream's length).
    W_Q1, W_K1 : array_like, shape (D, d_head)
        Layer 1's; its d_head may differ from layer 0's.

    Returns
    -------
    Feedback
        ``ok`` is True if the induction head passes the classic test;
        otherwise the message names the slip by its effect: the two layers
        swapped, a head that scores every key the same, heads right but too
        soft, layer 0 looking at the current position instead of the previous
        one, layer 1 looking at the earlier occurrence itself instead of the
        position after it; or it reports the scores.

    Raises
    ------
    TypeError
        If a matrix is not real numbers.
    ValueError
        If a matrix does not have D = 136 rows, a layer's query and key have
        different d_head, or a matrix holds NaN or inf.

    Examples
    --------
    >>> from selfattention.wiring import D, N, V, POSITION, PREVIOUS, SYMBOL
    >>> W_Q0, W_K0, W_Q1, W_K1 = (np.zeros((D, D)) for _ in range(4))
    >>> W_Q0[POSITION, POSITION] = np.eye(N, k=-1)
    >>> W_K0[POSITION, POSITION] = np.eye(N)
    >>> W_Q1[SYMBOL, SYMBOL] = np.eye(V)
    >>> W_K1[PREVIOUS, SYMBOL] = np.eye(V)
    >>> check_wiring(W_Q0, W_K0, W_Q1, W_K1).ok, check_wiring(W_Q1, W_K1, W_Q0, W_K0).slip
    (True, 'swapped')
    >>> print(check_wiring(*(np.zeros((D, D)) for _ in range(4))))  # doctest: +NORMALIZE_WHITESPACE
    ✗ Each head gives every key it can see the same score, so it spreads its weight evenly over them. Fill in
    all four matrices so that layer 0 looks at i - 1 and layer 1 at the position whose previous symbol is the
    current one.
    """
    W = wiring.check_wiring_weights(dict(zip(wiring.NAMES, (W_Q0, W_K0, W_Q1, W_K1))))
    batch = wiring.classic_sequences()
    scores, weights = _test(W, batch)
    shown = {"score": f"{scores['induction']:.3f}", "previous": f"{scores['previous_token']:.3f}",
             "ceiling": f"{scores['ceiling']:.3f}"}
    if scores["induction"] >= PASS * scores["ceiling"]:
        return WIRING.right(**shown, share=f"{scores['induction'] / scores['ceiling']:.0%}",
                            ratio=f"{scores['ratio']:.3f}")
    swapped = _passes({"W_Q0": W["W_Q1"], "W_K0": W["W_K1"], "W_Q1": W["W_Q0"], "W_K1": W["W_K0"]}, batch)
    if swapped is not None:
        return WIRING.wrong("swapped", swapped=f"{swapped:.3f}")
    even = tuple(layer for layer, w in enumerate(weights) if _even(w))
    if even:
        return WIRING.wrong("blank", **BLANK[even])
    sharper = _passes({name: SHARPER * W[name] for name in wiring.NAMES}, batch)
    if sharper is not None:
        return WIRING.wrong("too-soft", score=shown["score"], sharper=f"{sharper:.3f}")
    if scores["current"] >= NO_SHIFT:
        return WIRING.wrong("no-shift", current=f"{scores['current']:.3f}", previous=shown["previous"])
    if scores["earlier"] >= EARLIER and scores["earlier"] > scores["induction"]:
        return WIRING.wrong("current-key", earlier=f"{scores['earlier']:.3f}", score=shown["score"])
    return WIRING.wrong("wrong", **shown)
