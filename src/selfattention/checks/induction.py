"""Checkers of the exercises on the copying model (chapter "Two heads that learned to copy").

Both use the shipped trained model (:func:`~selfattention.induction.training.load`)
and the exercises' sequences, ``exercise_batch()``: the classic test at one
place, ``EXERCISE_SEQUENCES`` random sequences in which the
``EXERCISE_K`` symbols from position ``EXERCISE_OFFSET`` are repeated at
once. Every sequence has its copies at the same places, so a reader can index
the second copy with plain ranges: queries ``t`` = 16 to 22, keys ``t - 7``.
"""

from __future__ import annotations

import functools

import numpy as np

from ..induction import circuits, task, training
from ..induction.model import SIZES, forward
from ._compare import Diagnoses, Feedback, compare

#: The seed and size of the exercises' sequences, and where their repeat stands: the symbols at
#: positions 8 to 15 are repeated at 16 to 23 (one cell of the classic test, mid-sequence).
EXERCISE_SEED = 7
EXERCISE_SEQUENCES = 64
EXERCISE_K = 8
EXERCISE_OFFSET = 8

SCORE = Diagnoses("check_induction_score", "Right: head {layer}.{head}'s induction score is {score}.", {
    "previous": "That is the previous-token score (weight on t - 1): look at t - k + 1, the symbol after the "
                "earlier occurrence.",
    "duplicate": "That is the weight on the earlier occurrence itself (t - k): the induction head looks one "
                 "further, at t - k + 1, the symbol that came next.",
    "other-head": "That is the score of head {other}: take weights[{layer}][:, {head}].",
}, generic=("not-numbers", "shape", "not-finite", "rounded", "value"))

ABLATED = Diagnoses("check_ablated_loss", "Right: with head {layer}.{head} set to zero, the second copy's loss "
                    "is {loss}.", {
    "not-ablated": "That is the loss with every head working: pass ablate=[({layer}, {head})] to "
                   "copy_losses.",
    "first-copy": "That is the first copy's loss: the second value that copy_losses returns is the second copy's.",
    "other-head": "That is the loss with head {other} set to zero, not head {layer}.{head}.",
}, generic=("not-numbers", "shape", "not-finite", "rounded", "value"))


@functools.lru_cache(maxsize=1)
def exercise_batch() -> task.Batch:
    """The exercises' sequences: the classic test with a repeat of ``EXERCISE_K`` at ``EXERCISE_OFFSET``.

    ``EXERCISE_SEQUENCES`` random sequences from ``EXERCISE_SEED``
    (:func:`~selfattention.induction.task.classic_batch`). The second copy's
    predictions are ``t`` = 16 to 22, and each reads the key ``t - 7``
    (``batch.second`` and ``batch.key`` say the same).

    Examples
    --------
    >>> batch = exercise_batch()
    >>> batch.tokens.shape, bool((batch.tokens[:, 8:16] == batch.tokens[:, 16:24]).all())
    ((64, 32), True)
    >>> np.flatnonzero(batch.second[0]).tolist() == list(range(16, 23)), batch.key[0, 16]
    (True, np.int64(9))
    """
    return task.classic_batch(EXERCISE_K, EXERCISE_OFFSET, EXERCISE_SEQUENCES, np.random.default_rng(EXERCISE_SEED))


def _head(layer, head) -> tuple[int, int]:
    for value, name in ((layer, "layer"), (head, "head")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
    if not 0 <= layer < SIZES.layers:
        raise ValueError(f"layer must be a whole number from 0 to {SIZES.layers - 1}, got {layer!r}")
    if not 0 <= head < SIZES.heads[layer]:
        raise ValueError(f"head must be a whole number from 0 to {SIZES.heads[layer] - 1}: layer {layer} has "
                         f"{SIZES.heads[layer]} (the model's heads per layer: {SIZES.heads}), got {head!r}")
    return int(layer), int(head)


def _other_heads(layer: int, head: int):
    """Every head of the model but ``(layer, head)``."""
    return [(other_layer, other_head) for other_layer, h in enumerate(SIZES.heads) for other_head in range(h)
            if (other_layer, other_head) != (layer, head)]


def check_induction_score(score, layer: int = 1, head: int = 0) -> Feedback:
    """Check the reader's induction score of one head.

    The sequences are ``exercise_batch()`` (in this module).

    The right answer is :func:`~selfattention.induction.circuits.induction_scores`
    at ``[layer, head]``: over every query ``t`` of the second copy, the mean
    weight on position ``t - k + 1`` (``k`` = ``EXERCISE_K``).

    Parameters
    ----------
    score : float
        The reader's number.
    layer, head : int
        The head.

    Returns
    -------
    Feedback
        ``ok`` is True if ``score`` is the head's induction score;
        otherwise the message names the slip: the previous-token score, the
        weight on the earlier occurrence itself, or another head's score.
        A value counts as right within 100 eps (abs(expected) + the largest abs(expected)),
        eps being the machine epsilon of the answer: float32's for float32 arrays (as
        torch's .numpy() gives), float64's otherwise; a float16 answer is judged with
        float16's rounding (10 of its eps), and an expected inf only by the same inf.

    Raises
    ------
    ValueError
        If ``layer`` or ``head`` does not exist (a wrong score is not an error);
        the book's model has heads 0.0, 0.1 and 1.0.

    Examples
    --------
    >>> from selfattention.induction import induction_scores, load
    >>> right = induction_scores(load()["params"], exercise_batch())[1, 0]
    >>> check_induction_score(right).ok, check_induction_score(np.float32(right)).ok
    (True, True)
    """
    layer, head = _head(layer, head)
    params, batch = training.load()["params"], exercise_batch()
    expected = circuits.induction_scores(params, batch)
    _, trace = forward(params, batch.tokens)
    w = trace[layer]["weights"][:, head]                               # (B, n, n)
    b, t, j = circuits.induction_targets(batch)
    fields = {"layer": layer, "head": head}
    slips = [(circuits.previous_token_scores(params, batch)[layer, head], "previous", fields),
             (w[b, t, j - 1].mean(), "duplicate", fields)]
    for other_layer, other_head in _other_heads(layer, head):
        slips.append((expected[other_layer, other_head], "other-head",
                      {**fields, "other": f"{other_layer}.{other_head}"}))
    value = float(expected[layer, head])
    return compare(score, np.array(value), SCORE, name="score", layout="one number.", slips=slips,
                   tip_fields=fields, right={**fields, "score": f"{value:.3f}"})


def check_ablated_loss(loss, layer: int = 0, head: int = 0) -> Feedback:
    """Check the reader's loss on the second copy with one head set to zero.

    The sequences are ``exercise_batch()`` (in this module).

    The right answer is the second value of
    ``copy_losses(params, exercise_batch(), ablate=[(layer, head)])``.

    Parameters
    ----------
    loss : float
        The reader's number.
    layer, head : int
        The head set to zero.

    Returns
    -------
    Feedback
        ``ok`` is True if ``loss`` is that loss; otherwise the message names
        the slip: no head ablated, the first copy's loss, or another head
        ablated. A value counts as right within 100 eps (abs(expected) + the largest abs(expected)),
        eps being the machine epsilon of the answer: float32's for float32 arrays (as
        torch's .numpy() gives), float64's otherwise; a float16 answer is judged with
        float16's rounding (10 of its eps), and an expected inf only by the same inf.

    Raises
    ------
    ValueError
        If ``layer`` or ``head`` does not exist (a wrong loss is not an error);
        the book's model has heads 0.0, 0.1 and 1.0.

    Examples
    --------
    >>> from selfattention.induction import copy_losses, load
    >>> first, second = copy_losses(load()["params"], exercise_batch(), ablate=[(0, 0)])
    >>> check_ablated_loss(second).ok, check_ablated_loss(first).ok
    (True, False)
    """
    layer, head = _head(layer, head)
    params, batch = training.load()["params"], exercise_batch()
    first, second = circuits.copy_losses(params, batch, ablate=[(layer, head)])
    fields = {"layer": layer, "head": head}
    slips = [(circuits.copy_losses(params, batch)[1], "not-ablated", fields), (first, "first-copy", fields)]
    for other_layer, other_head in _other_heads(layer, head):
        slips.append((circuits.copy_losses(params, batch, ablate=[(other_layer, other_head)])[1],
                      "other-head", {**fields, "other": f"{other_layer}.{other_head}"}))
    return compare(loss, np.array(second), ABLATED, name="loss", layout="one number.", slips=slips,
                   tip_fields=fields, right={**fields, "loss": f"{second:.3f}"})
