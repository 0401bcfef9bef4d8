"""Checkers of the exercises on the model that writes (book/a-model-that-writes.md): top-p and bits per character.

Both exercises work on fixed numbers, the same whatever the shipped weights:

* :func:`top_p_example`: a model's probabilities for the next character,
  over 8 characters, and ``p``; :func:`check_top_p` judges the distribution
  that top-p keeps, by the rule of :func:`selfattention.writer.sampling.top_p_draw`;
* :func:`bits_example`: a short text and, for each character after the
  first, the distribution the model gave for it; :func:`check_bits_per_character`
  judges the mean of ``-log2 p`` over the characters that came next.

The numbers are chosen so that each usual slip gives another answer (a test,
``tests/selfattention/checks/test_writer.py``, keeps them apart).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._validate import as_float_array
from ..softmax import softmax
from ..writer.sampling import _order, _top_p
from ._compare import Diagnoses, Feedback, close, compare, two_numbers

#: The characters of the top-p exercise, sorted as the writer's tokenizer sorts them, and their probabilities
#: after "the cat sat on the ": m (mat), f (floor), s (sofa), b (bed), r (rug), c (chair), t (table), w (window).
TOP_P_CHARS = "bcfmrstw"
TOP_P_PROBS = (0.12, 0.06, 0.20, 0.30, 0.10, 0.15, 0.04, 0.03)
TOP_P = 0.6

#: The characters of the bits exercise, its text, and the model's distribution for each character after the
#: first: row t is what the model gave after reading text[:t + 1], over BITS_CHARS.
BITS_CHARS = " aceht"
BITS_TEXT = "the cat"
BITS_PROBS = (
    (0.05, 0.05, 0.05, 0.10, 0.70, 0.05),   # after "t": h
    (0.05, 0.20, 0.05, 0.50, 0.10, 0.10),   # after "th": e
    (0.70, 0.05, 0.05, 0.05, 0.05, 0.10),   # after "the": a space
    (0.05, 0.20, 0.10, 0.05, 0.10, 0.50),   # after "the ": c (the model bets on t)
    (0.05, 0.60, 0.05, 0.10, 0.15, 0.05),   # after "the c": a
    (0.10, 0.05, 0.20, 0.05, 0.10, 0.50),   # after "the ca": t
)

#: How far a given distribution's total may be from 1.
TOTAL_TOLERANCE = 1e-5

TOP_P_CHECK = Diagnoses("check_top_p", "Right: top-p with p = {p:g} keeps {n} of the {V} characters, and every "
                        "probability matches.", {
    "not-renormalised": "You kept the right characters but did not renormalise: divide their probabilities by "
                        "their total, {mass:.4g}.",
    "one-short": "You stopped one character short: keep the character with which the total reaches p = {p:g}, "
                 "too.",
    "one-too-many": "You kept one character too many: stop at the first character with which the total reaches "
                    "p = {p:g}.",
    "reversed": "You kept the least likely characters: sort from the most likely down before adding up.",
    "unsorted": "You added up the probabilities in the characters' own order: sort them from the most likely "
                "down first.",
    "probs-as-logits": "You applied softmax to probabilities: next_distribution takes logits, so pass "
                       "np.log(probs), or apply the rule to probs directly.",
    "by-p": "You divided by p: divide the kept probabilities by their own total, {mass:.4g}.",
    "sorted-order": "Your probabilities are in sorted order: put each back at its own character's place.",
    "nothing-cut": "That is the whole distribution: top-p cuts every character after the total reaches p = {p:g}.",
    "greedy": "That keeps only the most likely character (greedy): top-p keeps as many as it takes to reach "
              "p = {p:g}.",
    "top-k": "That keeps the {k} most likely characters, a fixed number (top-k): top-p keeps as many as it "
             "takes to reach p = {p:g}.",
    "kept-only": "Keep a 0 for every character cut.",
    "not-one": "Your probabilities add up to {total}, not 1: divide the kept ones by their own total.",
}, generic=("not-numbers", "shape", "not-finite", "rounded", "float32-inside", "value"))

BITS_CHECK = Diagnoses("check_bits_per_character", "Right: {bpc:.4f} bits per character, the mean of -log2 p over "
                       "the {n} characters the model guessed.", {
    "not-numbers": "bpc should be one number, got {type}.",
    "not-finite": "bpc should be a finite number.",
    "ln": "That is in nats, with the natural log: use log base 2 (np.log2) for bits.",
    "log10": "That uses log base 10: use log base 2 (np.log2) for bits.",
    "sum": "That is the total over the {n} characters: take the mean, not the sum.",
    "sign": "Your answer is negative: you left out the minus sign of -log2(p).",
    "most-likely": "You used the probability of the most likely character: take the probability of the "
                   "character that came next.",
    "read-char": "You scored each character the model had just read: row t is its guess for the character "
                 "after it, text[t + 1].",
    "count-first": "You divided by all {chars} characters: the first is not guessed, so divide by the {n} that are.",
    "every-row": "You took every row at every target, a {n} × {n} table: pick one probability per row, "
                 "probs[np.arange({n}), targets].",
    "log-of-mean": "You took the log of the mean probability: take -log2 of each probability, then the mean.",
    "per-position": "That is one number per character: take their mean.",
    "choices": "That is 2 to the power of the bits per character, a number of even choices: the bits per "
               "character are its log2.",
}, generic=("not-numbers", "shape", "not-finite", "rounded", "float32-inside", "value"))


def top_p_example():
    """The top-p exercise's inputs: a model's probabilities for the next character, and ``p``.

    The probabilities are for the character after "the cat sat on the ":
    m (mat), f (floor), s (sofa), b (bed), r (rug), c (chair), t (table)
    and w (window), listed in the order of ``chars`` (sorted, as the
    writer's tokenizer sorts them).

    Returns
    -------
    chars : str
        The 8 characters, ``probs[i]`` being the probability of ``chars[i]``.
    probs : numpy.ndarray, shape (8,)
        Their probabilities; they add up to 1, and no two are equal.
    p : float
        The top-p threshold, 0.6.

    Examples
    --------
    >>> chars, probs, p = top_p_example()
    >>> chars, probs.tolist(), p
    ('bcfmrstw', [0.12, 0.06, 0.2, 0.3, 0.1, 0.15, 0.04, 0.03], 0.6)
    """
    return TOP_P_CHARS, np.array(TOP_P_PROBS), TOP_P


def bits_example():
    """The bits-per-character exercise's inputs: a text and the model's distribution for each character after the first.

    Returns
    -------
    chars : str
        The 6 characters, sorted; column ``i`` of ``probs`` is ``chars[i]``.
    text : str
        "the cat", 7 characters.
    probs : numpy.ndarray, shape (6, 6)
        Row ``t`` is the model's distribution after reading ``text[:t + 1]``,
        its guess for ``text[t + 1]``. Each row adds up to 1.

    Examples
    --------
    >>> chars, text, probs = bits_example()
    >>> chars, text, probs.shape
    (' aceht', 'the cat', (6, 6))
    >>> probs[0, chars.index("h")], probs[3, chars.index("c")]
    (np.float64(0.7), np.float64(0.1))
    """
    return BITS_CHARS, BITS_TEXT, np.array(BITS_PROBS)


# --- top-p --------------------------------------------------------------------------------------------------


def _check_distribution(probs, name: str) -> np.ndarray:
    arr = as_float_array(probs, name).astype(np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be one distribution, shape (vocab,), got shape {arr.shape}")
    if (arr < 0).any() or abs(arr.sum() - 1.0) > TOTAL_TOLERANCE:
        raise ValueError(f"{name} must be probabilities, not negative and adding up to 1; got min {arr.min():g}, "
                         f"total {arr.sum():.8g}")
    return arr


def _check_p(p) -> float:
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"p must be a number, got {p!r}")
    if not 0 < p <= 1:
        raise ValueError(f"p must be above 0 and at most 1, got {p}")
    return float(p)


def _keep(probs: np.ndarray, ids, *, renormalise: bool = True) -> np.ndarray:
    """``probs`` with only ``ids`` kept, the others 0, renormalised or not."""
    kept = np.zeros_like(probs)                                        # (vocab,)
    kept[ids] = probs[ids]
    return kept / kept.sum() if renormalise else kept


def _reach(probs: np.ndarray, order: np.ndarray, p: float) -> np.ndarray:
    """The ids of ``order`` taken from its start until their total reaches ``p``: the rule, in any order."""
    before = np.cumsum(probs[order]) - probs[order]                    # (vocab,) mass of the earlier ones
    return order[before < p]


def _both(value_of, ids, slip: str, fields: dict) -> list:
    """Two slips: ``ids`` kept and renormalised, and the same not renormalised."""
    return [(value_of(ids), slip, fields), (value_of(ids, renormalise=False), slip, fields)]


def check_top_p(kept, probs=None, p=None) -> Feedback:
    """Check the reader's top-p distribution: the fewest most likely characters that reach ``p``, renormalised.

    The right answer is the rule of :func:`~selfattention.writer.sampling.top_p_draw`
    (and :func:`~selfattention.writer.sampling.next_distribution` with ``top_p``):
    sort the characters from the most likely down (on a tie the lower id
    first), keep them until their total reaches ``p``, set the others to 0
    and divide the kept ones by their total. The answer keeps the
    characters' own order.

    Parameters
    ----------
    kept : array_like, shape (vocab,)
        What the reader computed: one probability per character, 0 for
        those cut.
    probs : array_like, shape (vocab,), optional
        The model's probabilities; default: those of :func:`top_p_example`.
    p : float, optional
        The threshold, above 0 and at most 1; default: the example's, 0.6.

    Returns
    -------
    Feedback
        ``ok`` is True if ``kept`` is right; otherwise the message names the
        likely slip: the right characters not renormalised (or divided by
        ``p``), one character short or one too many, the least likely kept
        (sorted the wrong way), the total taken in the characters' own order,
        softmax applied to the probabilities, a fixed number of characters
        (top-k, or greedy), nothing cut, the answer left in sorted order, only the kept
        characters returned, probabilities that do not add up to 1, or
        rounded numbers. A value counts as right within 100 eps
        (abs(expected) + the largest abs(expected)), eps being the machine
        epsilon of the answer: float32's for float32 arrays (as torch's .numpy()
        gives), float64's otherwise; a float16 answer is judged with float16's
        rounding (10 of its eps), and an expected inf only by the same inf.

    Raises
    ------
    TypeError, ValueError
        If ``probs`` is not a distribution (one row, not negative, adding up
        to 1) or ``p`` is not in (0, 1]; a wrong ``kept`` is not an error.

    Examples
    --------
    >>> import numpy as np
    >>> chars, probs, p = top_p_example()
    >>> order = np.argsort(-probs, kind="stable")              # most likely first: m, f, s, b, ...
    >>> n = int(np.searchsorted(np.cumsum(probs[order]), p)) + 1
    >>> kept = np.zeros_like(probs)
    >>> kept[order[:n]] = probs[order[:n]]
    >>> print(check_top_p(kept / kept.sum()))
    ✓ Right: top-p with p = 0.6 keeps 3 of the 8 characters, and every probability matches.
    >>> print(check_top_p(kept))
    ✗ You kept the right characters but did not renormalise: divide their probabilities by their total, 0.65.
    """
    probs = _check_distribution(top_p_example()[1] if probs is None else probs, "probs")
    p = _check_p(TOP_P if p is None else p)
    V = probs.size
    order = _order(probs)                                              # (vocab,) most likely first
    expected = _top_p(probs, p)                                        # (vocab,)
    n = int(np.count_nonzero(expected))
    mass = float(probs[expected > 0].sum())
    fields = {"p": p, "mass": mass}

    def keep(ids, *, renormalise=True):
        return _keep(probs, ids, renormalise=renormalise)

    slips = [(keep(order[:n], renormalise=False), "not-renormalised", fields)]
    if n > 1:
        slips += _both(keep, order[:n - 1], "one-short", fields)
    if n < V:
        slips += _both(keep, order[:n + 1], "one-too-many", fields)
    slips += _both(keep, _reach(probs, np.argsort(probs, kind="stable"), p), "reversed", fields)
    slips += _both(keep, _reach(probs, np.arange(V), p), "unsorted", fields)
    slips += [(_top_p(softmax(probs), p), "probs-as-logits", fields),
              (keep(order[:n], renormalise=False) / p, "by-p", fields),
              (np.sort(expected)[::-1], "sorted-order", fields),
              (probs if n < V else None, "nothing-cut", fields)]
    for k in range(1, V):
        if abs(k - n) > 1:
            slips += _both(keep, order[:k], "greedy" if k == 1 else "top-k", {**fields, "k": k})

    def not_one(got, eps):
        total = float(np.sum(got, dtype=np.float64))
        if close(np.array(total), np.array(1.0), eps):
            return None
        shown, _ = two_numbers(total, 1.0)
        return TOP_P_CHECK.wrong("not-one", total=shown)

    return compare(
        kept, expected, TOP_P_CHECK, name="kept",
        layout=f"one probability per character ({V}), in the order of chars, 0 for those cut.",
        right={"p": p, "n": n, "V": V}, slips=slips,
        shape_tips={(n,): "kept-only"} if n < V else None, fallback=not_one,
    )


# --- bits per character -------------------------------------------------------------------------------------


def _check_bits_inputs(chars, text, probs) -> tuple[str, str, np.ndarray]:
    if (chars is None, text is None, probs is None) != (chars is None,) * 3:
        raise ValueError("give chars, text and probs together, or none of them (then the exercise's own are used)")
    if chars is None:
        chars, text, probs = bits_example()
    for value, name in ((chars, "chars"), (text, "text")):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not chars or len(set(chars)) != len(chars):
        raise ValueError(f"chars must hold each character once, at least one, got {chars!r}")
    unknown = sorted(set(text) - set(chars))
    if len(text) < 2 or unknown:
        raise ValueError(f"text must hold at least 2 characters, each one of chars {chars!r}; got {text!r}"
                         + (f", whose {unknown} are not in chars" if unknown else ""))
    probs = as_float_array(probs, "probs").astype(np.float64)
    need = (len(text) - 1, len(chars))
    if probs.shape != need:
        raise ValueError(f"probs must have shape (len(text) - 1, len(chars)) = {need}, one row per character "
                         f"after the first; got {probs.shape}")
    if (probs < 0).any() or (np.abs(probs.sum(axis=-1) - 1.0) > TOTAL_TOLERANCE).any():
        raise ValueError("probs must hold one distribution per row: not negative, each row adding up to 1")
    return chars, text, probs


def check_bits_per_character(bpc, chars=None, text=None, probs=None) -> Feedback:
    """Check the reader's bits per character: the mean of ``-log2 p`` over the characters the model guessed.

    Row ``t`` of ``probs`` is the model's distribution after reading
    ``text[:t + 1]``; ``p`` is the probability it gave to ``text[t + 1]``,
    the character that came next. The first character is read, never
    guessed, so the mean is over ``len(text) - 1`` characters, as
    :func:`~selfattention.writer.ngrams.bits_per_character` measures the writer.

    Parameters
    ----------
    bpc : float
        What the reader computed.
    chars : str, optional
        The characters, one per column of ``probs``; with ``text`` and
        ``probs``, defaults to :func:`bits_example`.
    text : str, optional
        The text, at least 2 characters of ``chars``.
    probs : array_like, shape (len(text) - 1, len(chars)), optional
        One distribution per row; the probability of each next character
        must be above 0.

    Returns
    -------
    Feedback
        ``ok`` is True if ``bpc`` is right; otherwise the message names the
        likely slip: the natural log or log base 10 instead of log base 2, the
        sum instead of the mean, the minus sign left out, the most likely
        character's probability instead of the next one's, each character
        scored by the row that read it (one off), the first character counted,
        every row taken at every target, the log of the mean probability,
        one number per character, or a rounded number. A value counts as right
        within 100 eps (abs(expected) + the largest abs(expected)), eps being the
        machine epsilon of the answer: float32's for float32 arrays (as torch's
        .numpy() gives), float64's otherwise; a float16 answer is judged with
        float16's rounding (10 of its eps), and an expected inf only by the
        same inf.

    Raises
    ------
    TypeError, ValueError
        If ``chars``, ``text`` or ``probs`` is malformed, or only some of them
        are given; a wrong ``bpc`` is not an error.

    Examples
    --------
    >>> import numpy as np
    >>> chars, text, probs = bits_example()
    >>> targets = [chars.index(c) for c in text[1:]]           # the character that came next
    >>> p = probs[np.arange(len(targets)), targets]
    >>> print(check_bits_per_character(np.mean(-np.log2(p))))
    ✓ Right: 1.1813 bits per character, the mean of -log2 p over the 6 characters the model guessed.
    >>> print(check_bits_per_character(np.mean(-np.log(p))))
    ✗ That is in nats, with the natural log: use log base 2 (np.log2) for bits.
    """
    chars, text, probs = _check_bits_inputs(chars, text, probs)
    ids = np.array([chars.index(c) for c in text])                    # (len(text),)
    n = ids.size - 1
    rows = np.arange(n)
    p = probs[rows, ids[1:]]                                           # (n,) the character that came next
    if (p <= 0).any():
        raise ValueError(f"probs must give each next character a probability above 0 (else its bits are "
                         f"infinite); row {int(np.argmin(p))} gives {text[1:][int(np.argmin(p))]!r} 0")
    bits = -np.log2(p)                                                 # (n,)
    expected = bits.mean()
    fields = {"n": n, "chars": n + 1}

    def finite(value):
        return value if np.isfinite(value) else None

    with np.errstate(divide="ignore"):
        structural = [                                                 # (value in bits, slip)
            (bits.sum() if n > 1 else None, "sum"),
            (bits.sum() / (n + 1), "count-first"),
            (finite(-np.log2(probs.max(axis=-1)).mean()), "most-likely"),
            (finite(-np.log2(probs[rows, ids[:-1]]).mean()), "read-char"),
            (finite(-np.log2(probs[:, ids[1:]]).mean()) if n > 1 else None, "every-row"),
            (-np.log2(p.mean()), "log-of-mean"),
        ]
    scales = (1.0, math.log(2), math.log10(2))                         # log2, ln and log10 of the same p
    slips = [(expected * math.log(2), "ln", fields), (expected * math.log10(2), "log10", fields)]
    slips += [(None if value is None else value * scale, slip, fields)
              for value, slip in structural for scale in scales]
    slips += [(-expected * scale, "sign", fields) for scale in scales]
    slips += [(None if value is None else -value * scale, "sign", fields)
              for value, _ in structural for scale in scales]
    slips.append((2.0 ** expected, "choices", fields))                  # the table's "even choices"
    return compare(
        bpc, np.array(expected), BITS_CHECK, name="bpc",
        layout=f"one number, the mean over the {n} characters the model guessed.",
        right={"bpc": expected, "n": n}, slips=slips, shape_tips={(n,): "per-position"},
    )

