"""What each head does, measured on the classic test: scores, losses, ablations and the phase change.

* :func:`previous_token_scores`: a head's mean weight on position ``i - 1``;
* :func:`induction_scores`: over the determined predictions of a second copy,
  a head's mean weight on the key ``t - D + 1`` (the letter after the earlier
  occurrence of the current one);
* :func:`copy_losses`: the mean loss inside the first copy and inside the second;
* :func:`classic_table`: the classic test (Olsson et al., 2022) at every
  ``k`` and offset;
* :func:`ablation_table`: the losses with one head switched off;
* :func:`phase_change`: the steepest drop of a loss curve, and the stretch around it.
"""

from __future__ import annotations

import numpy as np

from .model import SIZES, Sizes, forward
from .task import Batch, classic_batch


def _per_head(sizes: Sizes, score) -> np.ndarray:
    """(layers, most heads) array of ``score(layer, head)``; NaN where a layer has fewer heads."""
    out = np.full((sizes.layers, max(sizes.heads)), np.nan)
    for layer, h in enumerate(sizes.heads):
        for a in range(h):
            out[layer, a] = score(layer, a)
    return out


def previous_token_scores(params, tokens, *, sizes: Sizes = SIZES) -> np.ndarray:
    """(layers, most heads): each head's mean weight on position ``i - 1``, over positions ``i >= 1``.

    A layer with fewer heads than the most has NaN in the places left over.

    Examples
    --------
    >>> from .model import init_params
    >>> previous_token_scores(init_params(0), np.zeros((1, 5), int)).shape
    (2, 2)
    >>> bool(np.isnan(previous_token_scores(init_params(0), np.zeros((1, 5), int))[1, 1]))
    True
    """
    _, trace = forward(params, tokens, sizes=sizes)
    i = np.arange(1, np.shape(tokens)[-1])
    return _per_head(sizes, lambda layer, a: trace[layer]["weights"][:, a, i, i - 1].mean())


def _scores_and_losses(params, batch: Batch, sizes: Sizes, ablate=()):
    """Induction scores (layers, heads) and the mean loss of the first and second copy."""
    logits, trace = forward(params, batch.tokens, sizes=sizes, ablate=ablate)
    z = logits[:, :-1] - logits[:, :-1].max(axis=-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    nll = -np.take_along_axis(log_p, batch.tokens[:, 1:, None], axis=-1)[..., 0]   # (B, n - 1)
    b, t = np.nonzero(batch.second)
    j = batch.key[b, t]
    scores = _per_head(sizes, lambda layer, a: trace[layer]["weights"][b, a, t, j].mean())
    return scores, float(nll[batch.first].mean()), float(nll[batch.second].mean())


def induction_scores(params, batch: Batch, *, sizes: Sizes = SIZES) -> np.ndarray:
    """(layers, most heads): each head's mean weight on the key it should copy from, over second-copy predictions.

    Examples
    --------
    >>> from .model import init_params
    >>> b = classic_batch(4, 0, 2, np.random.default_rng(0))
    >>> induction_scores(init_params(0), b).shape
    (2, 2)
    """
    return _scores_and_losses(params, batch, sizes)[0]


def copy_losses(params, batch: Batch, *, sizes: Sizes = SIZES, ablate=()) -> tuple[float, float]:
    """The mean loss of the predictions inside the first copy, and inside the second.

    Examples
    --------
    >>> from .model import init_params
    >>> first, second = copy_losses(init_params(0), classic_batch(6, 2, 8, np.random.default_rng(0)))
    >>> first > 1, second > 1
    (True, True)
    """
    return _scores_and_losses(params, batch, sizes, ablate)[1:]


def classic_table(params, head, *, sizes: Sizes = SIZES, n_sequences: int = 64, seed: int = 2022,
                  lengths=None, ablate=()) -> dict:
    """The classic test at every ``k`` (4 to ``n // 2``) and every offset that fits.

    Parameters
    ----------
    head : (layer, head)
        The head whose induction score is reported.
    n_sequences : int
        Random sequences per cell.

    Returns
    -------
    dict
        ``k`` (K,), ``offset`` (O,) and, as (K, O) arrays with NaN where the
        repeat does not fit: ``score`` the head's induction score, ``first``
        and ``second`` the losses of the two copies, ``ratio`` = second / first.

    Examples
    --------
    >>> from .model import init_params
    >>> t = classic_table(init_params(0), (1, 0), n_sequences=2, lengths=(4, 5))
    >>> t["score"].shape, int(np.isnan(t["score"]).sum())
    ((2, 25), 2)
    """
    n = sizes.n_positions
    ks = np.arange(4, n // 2 + 1)
    if lengths:
        ks = np.arange(lengths[0], lengths[1] + 1)
    offsets = np.arange(n - 2 * ks.min() + 1)
    out = {name: np.full((len(ks), len(offsets)), np.nan) for name in ("score", "first", "second")}
    rng = np.random.default_rng(seed)
    layer, a = head
    for i, k in enumerate(ks):
        for offset in range(n - 2 * k + 1):
            batch = classic_batch(int(k), offset, n_sequences, rng, n, sizes.vocab)
            scores, first, second = _scores_and_losses(params, batch, sizes, ablate)
            out["score"][i, offset], out["first"][i, offset], out["second"][i, offset] = scores[layer, a], first, second
    out["ratio"] = out["second"] / out["first"]
    return {"k": ks, "offset": offsets, **out}


def ablation_table(params, batch: Batch, *, sizes: Sizes = SIZES) -> dict:
    """The two copies' losses with no head, and with each head in turn, switched off.

    Returns
    -------
    dict
        ``None`` and each ``(layer, head)`` -> ``(first, second, back)``, where
        ``back = (second_ablated - second) / (first - second)`` is how far of
        the way back to the first copy's loss the second copy's loss went.

    Examples
    --------
    >>> from .model import init_params
    >>> len(ablation_table(init_params(0), classic_batch(4, 0, 4, np.random.default_rng(0))))
    4
    """
    first, second = copy_losses(params, batch, sizes=sizes)
    table = {None: (first, second, 0.0)}
    for layer in range(sizes.layers):
        for head in range(sizes.heads[layer]):
            f, s = copy_losses(params, batch, sizes=sizes, ablate=[(layer, head)])
            table[(layer, head)] = (f, s, (s - second) / (first - second))
    return table


def smooth(values, width: int) -> np.ndarray:
    """A centred moving average over ``width`` points (odd), shrinking the window at the ends.

    Examples
    --------
    >>> smooth([0.0, 3.0, 0.0, 3.0], 3).tolist()
    [1.5, 1.0, 2.0, 1.5]
    """
    values = np.asarray(values, dtype=np.float64)
    half = width // 2
    return np.array([values[max(0, i - half):i + half + 1].mean() for i in range(len(values))])


def phase_change(steps, loss, *, width: int = 5, share: float = 0.5) -> dict:
    """Where a loss curve falls most steeply, and the stretch of steep fall around it.

    The rule: smooth the curve by a centred moving average of ``width``
    checkpoints; its slope between checkpoints is the fall per step. The
    *phase change* is the checkpoint interval of the steepest fall; the *steep
    stretch* is the run of consecutive intervals around it whose fall is at
    least ``share`` of the steepest. Neither depends on a threshold of the
    loss itself.

    Returns
    -------
    dict
        ``step`` (the middle of the steepest interval), ``start`` and ``end``
        of the steep stretch, ``rate`` (the steepest fall per 1,000 steps) and
        ``fallen`` (the share of the curve's whole fall, first to last
        smoothed point, that happens inside the stretch).

    Examples
    --------
    >>> steps = np.arange(0, 1000, 50)
    >>> loss = 3 - 2 / (1 + np.exp(-(steps - 500) / 40))       # a sigmoid step down at 500
    >>> pc = phase_change(steps, loss)
    >>> int(pc["step"]), pc["start"] < 500 < pc["end"]
    (475, True)
    """
    steps, loss = np.asarray(steps, dtype=np.float64), smooth(loss, width)
    fall = -(np.diff(loss) / np.diff(steps))                          # per step, > 0 when falling
    i = int(np.argmax(fall))
    lo, hi = i, i
    while lo > 0 and fall[lo - 1] >= share * fall[i]:
        lo -= 1
    while hi < len(fall) - 1 and fall[hi + 1] >= share * fall[i]:
        hi += 1
    whole = loss[0] - loss[-1]
    return {"step": float((steps[i] + steps[i + 1]) / 2), "start": float(steps[lo]), "end": float(steps[hi + 1]),
            "rate": float(fall[i] * 1000), "fallen": float((loss[lo] - loss[hi + 1]) / whole) if whole else np.nan}
