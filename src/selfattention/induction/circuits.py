"""What each head does, measured on the classic test: scores, losses, ablations, key parts and the phase change.

* :func:`previous_token_scores`: a head's mean weight on position ``i - 1``;
* :func:`induction_scores`: over the determined predictions of a second copy,
  a head's mean weight on the key ``t - D + 1``, the symbol *after* the earlier
  occurrence of the current one (the one an induction head copies);
* :func:`copy_losses`: the mean loss inside the first copy and inside the second;
* :func:`named_heads`: the previous-token head and the induction head, by their scores;
* :func:`classic_table` and :func:`classic_summary`: the classic test
  (Olsson et al., 2022) at every ``k`` and offset, and how many cells pass;
* :func:`ablation_table` and :func:`classic_ablations`: the losses with one
  head switched off;
* :func:`key_parts`: the score of a query on one key, cut into the parts of
  the key's input that it comes from (K-composition, Elhage et al., 2021);
* :func:`phase_change`: the steepest drop of a loss curve, and the stretch around it.

Scores of every head come as a (layers, most heads) array, with NaN where a
layer has fewer heads (the book's model: ``[[0.0, 0.1], [1.0, NaN]]``).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .gradients import token_losses
from .model import SIZES, Sizes, check_layer_head, check_tokens, forward, positions_in_qk
from .task import CLASSIC_SHORTEST, Batch, classic_batch

#: The classic test's targets (Olsson et al., 2022, as issue 42 set them): an induction score of at
#: least 0.6, and a second copy's loss at most a quarter of the first copy's.
SCORE_TARGET = 0.6
RATIO_TARGET = 0.25


def _per_head(sizes: Sizes, score) -> np.ndarray:
    """(layers, most heads) array of ``score(layer, head)``; NaN where a layer has fewer heads."""
    out = np.full((sizes.layers, max(sizes.heads)), np.nan)
    for layer, h in enumerate(sizes.heads):
        for a in range(h):
            out[layer, a] = score(layer, a)
    return out


def _tokens(batch_or_tokens) -> np.ndarray:
    return batch_or_tokens.tokens if isinstance(batch_or_tokens, Batch) else batch_or_tokens


def induction_targets(batch: Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (sequence, query, key) an induction head should look at, as three arrays.

    For each prediction ``t`` of a second copy, the current symbol stood ``D``
    positions earlier, at ``t - D``; the symbol after it, at ``t - D + 1``, is the
    one to copy (``batch.key``).

    Examples
    --------
    >>> b, t, j = induction_targets(classic_batch(4, 2, 1, np.random.default_rng(0)))
    >>> t.tolist(), j.tolist()                  # queries 6 to 8 read keys 3 to 5
    ([6, 7, 8], [3, 4, 5])
    """
    if not isinstance(batch, Batch):
        raise TypeError(f"batch must be a Batch (copying_batch or classic_batch), got {type(batch).__name__}")
    b, t = np.nonzero(batch.second)
    return b, t, batch.key[b, t]


def previous_token_scores(params, batch, *, sizes: Sizes = SIZES) -> np.ndarray:
    """(layers, most heads): each head's mean weight on position ``i - 1``, over positions ``i >= 1``.

    Parameters
    ----------
    params : dict of numpy.ndarray
    batch : Batch or array_like of int
        The sequences (a :class:`~.task.Batch` or its tokens).

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> scores = previous_token_scores(load()["params"], classic_batch(8, 4, 16, np.random.default_rng(0)))
    >>> scores.shape, bool(scores[0, 0] > 0.5), bool(np.isnan(scores[1, 1]))
    ((2, 2), True, True)
    """
    _, trace = forward(params, _tokens(batch), sizes=sizes)
    i = np.arange(1, trace[0]["weights"].shape[-1])
    return _per_head(sizes, lambda layer, a: trace[layer]["weights"][:, a, i, i - 1].mean())


def scores_and_losses(params, batch: Batch, *, sizes: Sizes = SIZES, ablate=()) -> dict:
    """One forward pass on ``batch``: every head's scores and the losses of its parts.

    Returns
    -------
    dict
        ``induction`` and ``previous`` (layers, most heads); ``first`` the mean
        loss of the first copy's predictions, ``second`` of the second copy's (the
        repeated part), ``rest`` of every prediction not in a second copy.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> m = scores_and_losses(load()["params"], classic_batch(8, 4, 16, np.random.default_rng(0)))
    >>> bool(m["second"] < m["first"] / 4), bool(m["induction"][1, 0] > 0.6)
    (True, True)
    """
    b, t, j = induction_targets(batch)
    logits, trace = forward(params, batch.tokens, sizes=sizes, ablate=ablate)
    nll = token_losses(logits, batch.tokens)                           # (B, n - 1)
    i = np.arange(1, batch.tokens.shape[1])
    return {"induction": _per_head(sizes, lambda layer, a: trace[layer]["weights"][b, a, t, j].mean()),
            "previous": _per_head(sizes, lambda layer, a: trace[layer]["weights"][:, a, i, i - 1].mean()),
            "first": float(nll[batch.first].mean()), "second": float(nll[batch.second].mean()),
            "rest": float(nll[~batch.second].mean())}


def induction_scores(params, batch: Batch, *, sizes: Sizes = SIZES) -> np.ndarray:
    """(layers, most heads): each head's mean weight on the key it should copy from, over second-copy predictions.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> scores = induction_scores(load()["params"], classic_batch(8, 4, 16, np.random.default_rng(0)))
    >>> scores.shape, bool(scores[1, 0] > 0.6)
    ((2, 2), True)
    """
    return scores_and_losses(params, batch, sizes=sizes)["induction"]


def copy_losses(params, batch: Batch, *, sizes: Sizes = SIZES, ablate=()) -> tuple[float, float]:
    """The mean loss of the predictions inside the first copy, and inside the second.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> first, second = copy_losses(load()["params"], classic_batch(6, 2, 16, np.random.default_rng(0)))
    >>> bool(first > np.log(52) - 0.5), bool(second < first / 4)   # random, then copied
    (True, True)
    """
    m = scores_and_losses(params, batch, sizes=sizes, ablate=ablate)
    return m["first"], m["second"]


def named_heads(params, batch: Batch, *, sizes: Sizes = SIZES) -> dict:
    """The previous-token head (layer 0's largest previous-token score) and the induction head (the last layer's
    largest induction score), as ``(layer, head)``.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> from selfattention.induction.task import classic_mix
    >>> named_heads(load()["params"], classic_mix(64, np.random.default_rng(0)))
    {'previous': (0, 0), 'induction': (1, 0)}
    """
    m = scores_and_losses(params, batch, sizes=sizes)
    last = sizes.layers - 1
    return {"previous": (0, int(np.nanargmax(m["previous"][0]))),
            "induction": (last, int(np.nanargmax(m["induction"][last])))}


def classic_table(params, head, *, sizes: Sizes = SIZES, n_sequences: int = 64, seed: int = 2022,
                  lengths=None, ablate=()) -> dict:
    """The classic test at every ``k`` (4 to ``n // 2``) and every offset that fits.

    Parameters
    ----------
    params : dict of numpy.ndarray
    head : (layer, head)
        The head whose induction score is reported.
    sizes : Sizes, keyword-only
    n_sequences : int, keyword-only
        Random sequences per cell.
    seed : int, keyword-only
        The cells' sequences come from this seed, drawn cell by cell (``k``,
        then offset), so two tables of one seed see the same sequences.
    lengths : (int, int), keyword-only
        The shortest and longest ``k``, if not 4 and ``n // 2``.
    ablate : iterable of (layer, head), keyword-only
        Heads switched off.

    Returns
    -------
    dict
        ``k`` (K,), ``offset`` (O,) and, as (K, O) arrays with NaN where the
        repeat does not fit: ``score`` the head's induction score, ``first``
        and ``second`` the losses of the two copies, ``ratio`` = second / first.

    Examples
    --------
    >>> from selfattention.induction.model import init_params
    >>> t = classic_table(init_params(0), (1, 0), n_sequences=2, lengths=(4, 5))
    >>> t["score"].shape, int(np.isnan(t["score"]).sum())          # k = 5 has two offsets fewer
    ((2, 25), 2)
    """
    layer, a = check_layer_head(*head, sizes=sizes)
    n = sizes.n_positions
    low, high = lengths if lengths else (CLASSIC_SHORTEST, n // 2)
    ks = np.arange(low, high + 1)
    offsets = np.arange(n - 2 * low + 1)
    out = {name: np.full((len(ks), len(offsets)), np.nan) for name in ("score", "first", "second")}
    rng = np.random.default_rng(seed)
    for i, k in enumerate(ks):
        for offset in range(n - 2 * k + 1):
            m = scores_and_losses(params, classic_batch(int(k), offset, n_sequences, rng, n, sizes.vocab), sizes=sizes,
                        ablate=ablate)
            out["score"][i, offset], out["first"][i, offset], out["second"][i, offset] = (
                m["induction"][layer, a], m["first"], m["second"])
    out["ratio"] = out["second"] / out["first"]
    return {"k": ks, "offset": offsets, **out}


def classic_summary(table: dict, *, score_target: float = SCORE_TARGET, ratio_target: float = RATIO_TARGET) -> dict:
    """How many cells of a :func:`classic_table` meet each target, and the worst cells.

    Returns
    -------
    dict
        ``cells``; ``score_ok``, ``ratio_ok`` and ``both_ok`` (cells meeting the
        score target, the loss target, both); ``min_score`` and ``max_ratio`` with
        the ``(k, offset)`` where they are; ``mean_score`` and ``mean_ratio``.

    Examples
    --------
    >>> table = {"k": np.array([4, 5]), "offset": np.arange(3),
    ...          "score": np.array([[0.7, 0.5, 0.9], [0.8, np.nan, np.nan]]),
    ...          "ratio": np.array([[0.1, 0.2, 0.3], [0.2, np.nan, np.nan]])}
    >>> s = classic_summary(table)
    >>> s["cells"], s["score_ok"], s["ratio_ok"], s["both_ok"], s["min_score_at"]
    (4, 3, 3, 2, (4, 1))
    """
    score, ratio = np.asarray(table["score"]), np.asarray(table["ratio"])
    fits = ~np.isnan(score)
    score_ok, ratio_ok = (score >= score_target) & fits, (ratio <= ratio_target) & fits

    def where(i):
        r, c = np.unravel_index(i, score.shape)
        return int(table["k"][r]), int(table["offset"][c])

    return {"cells": int(fits.sum()), "score_ok": int(score_ok.sum()), "ratio_ok": int(ratio_ok.sum()),
            "both_ok": int((score_ok & ratio_ok).sum()),
            "min_score": float(np.nanmin(score)), "min_score_at": where(np.nanargmin(score)),
            "max_ratio": float(np.nanmax(ratio)), "max_ratio_at": where(np.nanargmax(ratio)),
            "mean_score": float(np.nanmean(score)), "mean_ratio": float(np.nanmean(ratio))}


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
    >>> from selfattention.induction.training import load
    >>> table = ablation_table(load()["params"], classic_batch(8, 4, 16, np.random.default_rng(0)))
    >>> list(table), bool(table[(1, 0)][2] > 0.5)
    ([None, (0, 0), (0, 1), (1, 0)], True)
    """
    first, second = copy_losses(params, batch, sizes=sizes)
    table = {None: (first, second, 0.0)}
    for layer in range(sizes.layers):
        for head in range(sizes.heads[layer]):
            f, s = copy_losses(params, batch, sizes=sizes, ablate=[(layer, head)])
            table[(layer, head)] = (f, s, (s - second) / (first - second))
    return table


def _pooled(table: dict) -> tuple[float, float]:
    """The first and second copy's loss over every cell of a classic table, each cell weighted by its
    ``k - 1`` predictions (every cell has as many sequences)."""
    count = np.broadcast_to(table["k"][:, None] - 1.0, table["first"].shape)
    fits = ~np.isnan(table["first"])
    return tuple(float((table[part][fits] * count[fits]).sum() / count[fits].sum()) for part in ("first", "second"))


def classic_ablations(params, *, sizes: Sizes = SIZES, n_sequences: int = 32, seed: int = 2022) -> dict:
    """The classic test pooled over every ``k`` and offset, with no head and with each head switched off.

    The cells' sequences are the same in every row (one seed), so the rows differ
    by the ablation alone.

    Returns
    -------
    dict
        ``None`` and each ``(layer, head)`` -> ``(first, second, back)``, as
        :func:`ablation_table` gives for one batch.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> table = classic_ablations(load()["params"], n_sequences=2)
    >>> bool(table[(0, 0)][2] > 0.5 and table[(1, 0)][2] > 0.5)           # both named heads are needed
    True
    """
    def pooled(ablate):
        return _pooled(classic_table(params, (sizes.layers - 1, 0), sizes=sizes, n_sequences=n_sequences,
                                     seed=seed, ablate=ablate))

    first, second = pooled(())
    table = {None: (first, second, 0.0)}
    for layer in range(sizes.layers):
        for head in range(sizes.heads[layer]):
            f, s = pooled([(layer, head)])
            table[(layer, head)] = (f, s, (s - second) / (first - second))
    return table


def key_parts(params, tokens, query: int, key: int, head: int, *, layer: int = 1, sizes: Sizes = SIZES) -> dict:
    """The score of one query on one key of a layer, cut by where the key's input came from.

    A key of layer ``l`` is ``k = r @ W_K{l}``, where ``r`` is what the keys read:
    the stream ``x`` at the key's position (plus ``W_pos`` if positions enter this
    layer's keys). The stream is a sum: the symbol's embedding (plus ``W_pos`` in
    the ``"stream"`` design) and what each head of every earlier layer added. The
    score ``q . k / sqrt(d_head)`` is linear in ``k``, so it is a sum of one part
    per term.

    In the book's model (``"qk0"``) a layer-1 key has no position part: position
    enters only layer 0's queries and keys, and the values move symbols only. So
    the parts are the key's own symbol (``"embedding"``) and what each layer-0 head
    moved there (``"head 0.a"``), a mix of the symbols before it, weighted by where
    that head looked. The previous-token head moves the symbol *before* the key
    (in the shipped model head 0.1 partly moves the one two before): those parts
    are how the induction head finds "the key whose previous symbol is my symbol".
    Position reaches a layer-1 score only through where layer-0 heads looked.

    Parameters
    ----------
    params : dict of numpy.ndarray
    tokens : array_like of int, shape (n,) or (1, n)
        One sequence.
    query, key : int
        Positions; ``key <= query`` (a query sees no later key).
    head : int
        The head of ``layer``.
    layer : int, keyword-only
        By default layer 1, whose keys read layer 0's heads.
    sizes : Sizes, keyword-only

    Returns
    -------
    dict
        ``"embedding"``, ``"position"`` (only where a position enters this
        layer's keys: ``"qk"`` and ``"stream"``, or layer 0), ``"head l.a"`` for
        each head of each earlier layer, and ``"total"`` (their sum, the score
        itself).

    Raises
    ------
    TypeError, ValueError
        If the head does not exist, ``tokens`` is not one sequence, or a
        position is out of range or the key comes after the query.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> from selfattention.induction.task import symbols_to_tokens
    >>> parts = key_parts(load()["params"], symbols_to_tokens("XqBcdePBcd"), query=8, key=4, head=0)
    >>> list(parts)                                   # the book's model: no position part in layer 1
    ['embedding', 'head 0.0', 'head 0.1', 'total']
    >>> bool(np.isclose(sum(v for k, v in parts.items() if k != "total"), parts["total"]))
    True
    """
    layer, head = check_layer_head(layer, head, sizes=sizes)
    tokens = check_tokens(tokens, sizes)
    if tokens.shape[0] != 1:
        raise ValueError(f"key_parts reads one sequence, got {tokens.shape[0]} (tokens {tokens.shape})")
    n = tokens.shape[1]
    for value, name in ((query, "query"), (key, "key")):
        if isinstance(value, bool) or not isinstance(value, Integral) or not 0 <= value < n:
            raise ValueError(f"{name} must be a position from 0 to {n - 1}, got {value!r}")
    if key > query:
        raise ValueError(f"query {query} cannot see key {key}: a causal head looks at keys 0 to {query}")
    _, trace = forward(params, tokens, sizes=sizes)
    d = sizes.d_head
    q = trace[layer]["q"][0, head, query]                              # (d_head,)
    w_k = params[f"W_K{layer}"][:, head * d:(head + 1) * d]            # (d_model, d_head)

    def part(vector):                                                  # (d_model,) -> its share of the score
        return float(q @ (vector @ w_k) / np.sqrt(d))

    parts = {"embedding": part(params["W_E"][tokens[0, key]])}
    if sizes.positions == "stream" or positions_in_qk(sizes, layer):
        parts["position"] = part(params["W_pos"][key])
    for earlier in range(layer):
        for a in range(sizes.heads[earlier]):
            rows = slice(a * d, (a + 1) * d)
            parts[f"head {earlier}.{a}"] = part(trace[earlier]["z"][0, key, rows] @ params[f"W_O{earlier}"][rows])
    parts["total"] = float(q @ trace[layer]["k"][0, head, key] / np.sqrt(d))
    return parts


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
    loss itself. (For a rising curve, such as a score, pass its negative.)

    Returns
    -------
    dict
        ``step`` (the middle of the steepest interval), ``start`` and ``end``
        of the steep stretch, ``rate`` (the steepest fall per 1,000 steps) and
        ``fallen`` (the share of the curve's whole fall, first to last
        smoothed point, that happens inside the stretch).

    Raises
    ------
    ValueError
        If ``steps`` and ``loss`` differ in length or have fewer than two points.

    Examples
    --------
    >>> steps = np.arange(0, 1000, 50)
    >>> loss = 3 - 2 / (1 + np.exp(-(steps - 500) / 40))       # a sigmoid step down at 500
    >>> pc = phase_change(steps, loss)
    >>> int(pc["step"]), pc["start"] < 500 < pc["end"]
    (475, True)
    """
    steps, loss = np.asarray(steps, dtype=np.float64), np.asarray(loss, dtype=np.float64)
    if steps.ndim != 1 or steps.shape != loss.shape or len(steps) < 2:
        raise ValueError(f"steps and loss must be two 1-D arrays of one length >= 2, got {steps.shape} and "
                         f"{loss.shape}")
    loss = smooth(loss, width)
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
