"""What each head of the trained model does: its scores, ablations and how layer 1 finds its key.

* :func:`previous_token_scores`: the mean weight a head puts on the
  position just before the query (position ``i - 1``);
* :func:`induction_scores`: inside the second copy, the mean weight a head
  puts on the symbol *after* the earlier occurrence of the current symbol,
  the one an induction head copies;
* :func:`ablation_table`: the loss inside each copy with one head's output
  set to zero;
* :func:`key_parts`: the score of a layer-1 query on one key, cut into the
  parts of the key's input that it comes from (K-composition, Elhage et al.,
  2021).
"""

from __future__ import annotations

import numpy as np

from .model import D_HEAD, HEADS, LAYERS, forward
from .task import Batch
from .training import copy_losses


def previous_token_scores(params, batch: Batch) -> np.ndarray:
    """(LAYERS, HEADS): each head's mean weight on position ``i - 1``, over positions ``i >= 1``.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> from selfattention.induction.task import copying_batch
    >>> previous_token_scores(load()["params"], copying_batch(4, np.random.default_rng(0))).shape
    (2, 2)
    """
    _, trace = forward(params, batch.tokens)
    n = batch.tokens.shape[1]
    i = np.arange(1, n)
    return np.array([[t["weights"][:, a, i, i - 1].mean() for a in range(HEADS)] for t in trace])


def induction_targets(batch: Batch) -> list[tuple[int, int, int]]:
    """The (sequence, query, key) triples an induction head should look at.

    For each position ``t`` of the second copy, the current symbol stood
    ``m`` positions earlier, at ``t - m``; the symbol after it, at
    ``t - m + 1``, is the one to copy.

    Examples
    --------
    >>> from selfattention.induction.task import copying_batch
    >>> b = copying_batch(1, np.random.default_rng(0))
    >>> s, m = int(b.starts[0]), int(b.lengths[0])
    >>> induction_targets(b)[0] == (0, s + m, s + 1)
    True
    """
    return [(b, t, t - m + 1) for b, (s, m) in enumerate(zip(batch.starts.tolist(), batch.lengths.tolist()))
            for t in range(s + m, s + 2 * m)]


def induction_scores(params, batch: Batch) -> np.ndarray:
    """(LAYERS, HEADS): each head's mean weight on the symbol after the earlier occurrence.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> from selfattention.induction.task import copying_batch
    >>> scores = induction_scores(load()["params"], copying_batch(64, np.random.default_rng(1)))
    >>> bool(scores.max() > 0.5)
    True
    """
    _, trace = forward(params, batch.tokens)
    b, t, j = (np.array(c) for c in zip(*induction_targets(batch)))
    return np.array([[tr["weights"][b, a, t, j].mean() for a in range(HEADS)] for tr in trace])


def ablation_table(params, batch: Batch) -> dict:
    """The loss inside each copy, with no head ablated and with each head ablated in turn.

    Returns
    -------
    dict
        ``(layer, head) -> (first, second)``, and ``None -> (first, second)``
        for the whole model.

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> from selfattention.induction.task import copying_batch
    >>> table = ablation_table(load()["params"], copying_batch(16, np.random.default_rng(2)))
    >>> len(table), None in table
    (5, True)
    """
    table = {None: copy_losses(params, batch)}
    for layer in range(LAYERS):
        for head in range(HEADS):
            table[(layer, head)] = copy_losses(params, batch, ablate=[(layer, head)])
    return table


def key_parts(params, tokens, query: int, key: int, head: int, *, layer: int = 1) -> dict:
    """The score of one query on one key of a layer, cut by where the key's input came from.

    A layer-1 key is ``(x + W_pos) @ W_K``, and ``x`` is a sum: the symbol's
    embedding plus what each layer-0 head added. The score
    ``q . k / sqrt(d_head)`` is linear in ``k``, so it is a sum of one part
    per term.

    Returns
    -------
    dict
        ``"embedding"``, ``"position"``, ``"head 0.a"`` for each layer-0 head,
        and ``"total"`` (their sum, the score itself).

    Examples
    --------
    >>> from selfattention.induction.training import load
    >>> parts = key_parts(load()["params"], [0, 1, 2, 0], query=3, key=1, head=0)
    >>> bool(np.isclose(sum(v for k, v in parts.items() if k != "total"), parts["total"]))
    True
    """
    if layer != 1:
        raise ValueError(f"key_parts reads layer 1, whose keys read layer 0's heads; got layer={layer}")
    _, trace = forward(params, tokens)
    t0, t1 = trace[0], trace[1]
    cols = slice(head * D_HEAD, (head + 1) * D_HEAD)
    q = t1["q"][0, head, query]                                       # (d_head,)
    w_k = params["W_K"][1][:, cols]                                    # (d_model, d_head)
    tokens = np.asarray(tokens).ravel()

    def part(vector):                                                  # (d_model,) -> its share of the score
        return float(q @ (vector @ w_k) / np.sqrt(D_HEAD))

    parts = {"embedding": part(params["W_E"][tokens[key]]), "position": part(params["W_pos"][key])}
    for a in range(HEADS):
        rows = slice(a * D_HEAD, (a + 1) * D_HEAD)
        parts[f"head 0.{a}"] = part(t0["z"][0, key, rows] @ params["W_O"][0][rows])
    parts["total"] = float(q @ t1["k"][0, head, key] / np.sqrt(D_HEAD))
    return parts
