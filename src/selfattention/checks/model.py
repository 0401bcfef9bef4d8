"""Checkers of the exercises on a real model's weights (book/attention-in-a-real-model.md).

Both run all-MiniLM-L6-v2 (:func:`selfattention.minilm.encode`) on the
exercise's sentence to know the right answer, so they need the model's files
(:func:`selfattention.minilm.find_model_dir`).
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from .. import minilm
from ..bert import attention_from_to, token_index
from ._compare import Diagnoses, Feedback, compare, two_numbers

#: The sentences of the two exercises.
RIVER = "We sat on the bank of the river."
KEYS = "The keys to the cabinet are on the table."
#: The weight from which the chapter calls a head's link strong.
MIN_WEIGHT = 0.05

STRONGEST = Diagnoses("check_strongest_head", "Right: layer {layer}, head {head} gives the largest weight from "
                      "{source!r} to {target!r}, {weight}.", {
    "extra-axis": "Keep the one target: end the line with [..., 0] to drop the last axis.",
    "heads-first": "The layers come first, then the heads: (layers, heads) = {expected}.",
    "one-head": "That is one head's whole table: take the weight from {source!r} to {target!r} in every head, "
                "with attention_from_to.",
    "reversed": "That is how {target!r} looks at {source!r}: the row is the token that looks, so the source is "
                "{source!r}.",
    "not-index": "layer and head should be whole numbers (the position of the largest weight), got {type}.",
    "no-head": "Give the head too: check_strongest_head(to_river, layer, head).",
    "flat-index": "{flat} is the flat index of the largest weight, counting over all {n} heads. Turn it into "
                  "(layer, head) with np.unravel_index({flat}, to_river.shape).",
    "out-of-range": "There is no layer {layer}, head {head}: layers go from 0 to {layers}, heads from 0 to "
                    "{heads}.",
    "head-layer": "Layer and head are swapped: np.unravel_index gives (layer, head), in the order of the axes.",
    "one-based": "Counted from 1: Python counts layers and heads from 0, so give the indices as "
                 "np.unravel_index gives them.",
    "smallest": "That is the head with the smallest weight: use argmax, not argmin.",
    "other-head": "Layer {layer}, head {head} gives {weight}, but another head gives more, {best}: take the "
                  "argmax of the whole table.",
})

COUNTS = Diagnoses("check_head_counts", "Right: {more} of the {n} heads give {first!r} more weight than "
                   "{second!r}, and {strong} of those give it at least {min_weight}.", {
    "not-count": "{name} should be a whole number of heads, got {value!r}.",
    "more-complement": "That counts the heads that prefer {second!r}: compare w[..., 0] > w[..., 1], with "
                       "{first!r} first.",
    "more-wrong": "{more} heads is not it: count the heads where w[..., 0] > w[..., 1], "
                  "with (more).sum() over all {n} heads.",
    "strong-alone": "That counts every head where {first!r} gets at least {min_weight}: keep only those that "
                    "also prefer it, more & (w[..., 0] >= {min_weight}).",
    "strong-second": "That counts the heads where {second!r} gets at least {min_weight}: the weight to test is "
                     "w[..., 0], {first!r}'s.",
    "swapped": "The two counts are swapped: the heads that prefer {first!r} come first, then the strong ones.",
    "strong-more": "A strong head must also prefer {first!r}: the second count cannot exceed the first.",
    "strong-wrong": "{strong} strong heads is not it: count the heads where both more and "
                    "w[..., 0] >= {min_weight} hold.",
}, generic=())


@functools.lru_cache(maxsize=8)
def _encoded(sentence: str):
    enc = minilm.encode(sentence)
    return enc.tokens, np.asarray(enc.attentions, dtype=np.float64)   # (layers, heads, L, L)


def _table(sentence, source, targets, names) -> tuple[tuple, np.ndarray, np.ndarray]:
    """The tokens, the attentions and the weights from ``source`` to ``targets``, with errors that name the argument."""
    if not isinstance(sentence, str) or not sentence.strip():
        raise TypeError(f"sentence must be a non-empty string, got {sentence!r}")
    tokens, attentions = _encoded(sentence)
    for name, token in zip(names, (source, *targets)):
        try:
            token_index(tokens, token)
        except (TypeError, ValueError) as err:
            raise type(err)(f"{name}: {err}") from None
    return tokens, attentions, attention_from_to(attentions, tokens, source, list(targets))


def _index(value):
    """``value`` as an int, or None if it is not a whole number."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


def check_strongest_head(weights, layer, head=None, *, sentence: str = RIVER, source: str = "bank",
                         target: str = "river") -> Feedback:
    """Check the reader's search for the head that links ``source`` to ``target`` the most.

    The right answer has two parts: the table ``weights`` of the weight
    from ``source`` to ``target`` in every layer and head, shape
    ``(layers, heads)``, and the ``(layer, head)`` of its largest value.

    Parameters
    ----------
    weights : array_like
        The reader's table, ``attention_from_to(...)[..., 0]``.
    layer : int or tuple of int
        The layer of the largest weight, or the pair ``(layer, head)``.
    head : int, optional
        The head of the largest weight (omit it when ``layer`` is a pair).
    sentence, source, target : str, keyword-only
        The exercise's sentence and tokens: by default "bank" to "river" in
        "We sat on the bank of the river.".

    Returns
    -------
    Feedback
        ``ok`` is True if both parts are right; otherwise the message names the
        likely slip: the table of the other direction, a forgotten
        ``[..., 0]``, a flat index not unravelled, layer and head swapped,
        counting from 1, the smallest weight instead of the largest, or another
        head. A value counts as right within 100 eps (abs(expected) + the
        largest abs(expected)), eps being the machine epsilon of the answer:
        float32's for float32 arrays (as torch's .numpy() gives), float64's
        otherwise; a float16 answer is judged with float16's rounding (10 of
        its eps), and an expected inf only by the same inf. Booleans and counts
        are compared exactly.

    Raises
    ------
    TypeError, ValueError, ModelNotFoundError
        If a token is not found once in the sentence, or as in
        :func:`selfattention.minilm.encode`; a wrong answer is not an error.

    Examples
    --------
    >>> import numpy as np
    >>> from selfattention import minilm
    >>> from selfattention.bert import attention_from_to
    >>> enc = minilm.encode("We sat on the bank of the river.")
    >>> to_river = attention_from_to(enc.attentions, enc.tokens, "bank", ["river"])[..., 0]
    >>> layer, head = np.unravel_index(to_river.argmax(), to_river.shape)
    >>> check_strongest_head(to_river, layer, head).ok
    True
    >>> print(check_strongest_head(to_river, to_river.argmax()))  # doctest: +ELLIPSIS
    ✗ ... is the flat index of the largest weight, counting over all 72 heads. Turn it into ...
    """
    tokens, attentions, expected = _table(sentence, source, [target], ("source", "target"))
    expected = expected[..., 0]                                                  # (layers, heads)
    layers, heads = expected.shape
    one = {"source": source, "target": target, "expected": expected.shape}
    table = compare(
        weights, expected, STRONGEST, name="weights", layout="(layers, heads), one weight per head.",
        right={"layer": 0, "head": 0, "weight": 0, **one},
        slips=[(attention_from_to(attentions, tokens, target, [source])[..., 0], "reversed", one)],
        shape_tips={(layers, heads, 1): "extra-axis", (heads, layers): "heads-first",
                    attentions.shape[-2:]: "one-head"}, tip_fields=one,
    )
    if not table.ok:
        return table
    if head is None and isinstance(layer, (tuple, list, np.ndarray)) and len(layer) == 2:
        layer, head = layer
    best = tuple(int(i) for i in np.unravel_index(int(expected.argmax()), expected.shape))
    flat = int(expected.argmax())
    lay, hd = _index(layer), _index(head) if head is not None else None
    if lay is not None and head is None:
        if lay == flat:
            return STRONGEST.wrong("flat-index", flat=flat, n=expected.size)
        return STRONGEST.wrong("no-head")
    if lay is None or hd is None:
        return STRONGEST.wrong("not-index", type=type(layer if lay is None else head).__name__)
    if (lay, hd) == best:
        return STRONGEST.right(layer=lay, head=hd, weight=f"{expected[best]:.3f}", **one)
    if (hd, lay) == best:
        return STRONGEST.wrong("head-layer")
    if (lay - 1, hd - 1) == best:
        return STRONGEST.wrong("one-based")
    if not (0 <= lay < layers and 0 <= hd < heads):
        return STRONGEST.wrong("out-of-range", layer=lay, head=hd, layers=layers - 1, heads=heads - 1)
    if (lay, hd) == tuple(int(i) for i in np.unravel_index(int(expected.argmin()), expected.shape)):
        return STRONGEST.wrong("smallest")
    shown, top = two_numbers(expected[lay, hd], expected[best])
    return STRONGEST.wrong("other-head", layer=lay, head=hd, weight=shown, best=top)


def check_head_counts(n_more, n_strong, *, sentence: str = KEYS, source: str = "are",
                      targets: tuple[str, str] = ("keys", "cabinet"), min_weight: float = MIN_WEIGHT) -> Feedback:
    """Check the reader's two counts of heads: those that prefer one target, and the strong ones among them.

    The right answer: ``n_more`` is the number of heads (of all layers) in
    which ``source`` gives ``targets[0]`` more weight than ``targets[1]``;
    ``n_strong`` is how many of those give ``targets[0]`` a weight of at
    least ``min_weight``.

    Parameters
    ----------
    n_more, n_strong : int
        The reader's two counts.
    sentence, source : str, keyword-only
        The exercise's sentence and the token that looks; by default "are"
        in "The keys to the cabinet are on the table.".
    targets : pair of str, keyword-only
        The two tokens compared, the one that should win first.
    min_weight : float, keyword-only
        The weight from which a head counts as strong (the chapter's 0.05).

    Returns
    -------
    Feedback
        ``ok`` is True if both counts are right; otherwise the message names
        the likely slip: the heads that prefer the other token, every head
        above ``min_weight`` whatever it prefers, the weight of the wrong
        token, or the two counts swapped. Booleans and counts are compared
        exactly.

    Raises
    ------
    TypeError, ValueError, ModelNotFoundError
        If a token is not found once in the sentence, or as in
        :func:`selfattention.minilm.encode`; a wrong count is not an error.

    Examples
    --------
    >>> from selfattention import minilm
    >>> from selfattention.bert import attention_from_to
    >>> enc = minilm.encode("The keys to the cabinet are on the table.")
    >>> w = attention_from_to(enc.attentions, enc.tokens, "are", ["keys", "cabinet"])
    >>> more = w[..., 0] > w[..., 1]
    >>> check_head_counts(more.sum(), (more & (w[..., 0] >= 0.05)).sum()).ok
    True
    >>> print(check_head_counts(w.shape[0] * w.shape[1] - more.sum(), 0))  # doctest: +ELLIPSIS
    ✗ That counts the heads that prefer 'cabinet': compare w[..., 0] > w[..., 1], with 'keys' first.
    """
    if isinstance(targets, str) or len(targets) != 2:
        raise ValueError(f"targets must be a pair of tokens, got {targets!r}")
    if isinstance(min_weight, bool) or not isinstance(min_weight, numbers.Real) or not 0 <= min_weight <= 1:
        raise ValueError(f"min_weight must be a number from 0 to 1, got {min_weight!r}")
    _, _, w = _table(sentence, source, targets, ("source", "targets", "targets"))   # (layers, heads, 2)
    first, second = targets
    more = w[..., 0] > w[..., 1]                                        # (layers, heads)
    right_more = int(more.sum())
    right_strong = int((more & (w[..., 0] >= min_weight)).sum())
    n = int(more.size)
    words = {"first": first, "second": second, "min_weight": min_weight, "n": n}
    counts = []
    for name, value in (("n_more", n_more), ("n_strong", n_strong)):
        count = _index(value)
        if count is None and isinstance(value, (float, np.floating)) and float(value).is_integer():
            count = int(value)
        if count is None:
            return COUNTS.wrong("not-count", name=name, value=value)
        counts.append(count)
    got_more, got_strong = counts
    if (got_more, got_strong) == (right_more, right_strong):
        return COUNTS.right(more=right_more, strong=right_strong, **words)
    if (got_more, got_strong) == (right_strong, right_more) and right_more != right_strong:
        return COUNTS.wrong("swapped", **words)
    if got_more != right_more:
        if got_more == n - right_more:
            return COUNTS.wrong("more-complement", **words)
        return COUNTS.wrong("more-wrong", more=got_more, **words)
    if got_strong == int((w[..., 0] >= min_weight).sum()):
        return COUNTS.wrong("strong-alone", **words)
    if got_strong == int((more & (w[..., 1] >= min_weight)).sum()):
        return COUNTS.wrong("strong-second", **words)
    if got_strong > got_more:
        return COUNTS.wrong("strong-more", **words)
    return COUNTS.wrong("strong-wrong", strong=got_strong, **words)
