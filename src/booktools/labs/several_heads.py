"""The "several-heads" lab of the chapter "Several heads": one small sentence, computed with h heads.

The reader chooses the number of heads, h = 1, 2 or 4, and one head, and
sees that head's table of weights (row: the word that looks; column: the
word looked at) and the heads' joined output after ``W_O``. A checkbox
computes the head's queries, keys and values the other way: not as one
``W_Q`` whose columns are cut into ``h`` blocks, but as ``h`` projections
of the whole word, one per head, each with its own block of columns. The
numbers are the same either way.

The lab computes in the browser (``_static/sa/maths.js``, ``multiHead``)
with the words and matrices this configuration holds, rounded to
``SIGNIFICANT`` digits. The browser tests compute the package's values
for the lab's test states from that same configuration
(:func:`several_heads_fixture`).
"""

from __future__ import annotations

import numpy as np

import selfattention as sa

from ..formatting import fmt
from ..html import esc
from .element import lab_element

#: Significant digits of the words and matrices the page holds.
SIGNIFICANT = 6
#: Decimals of the weights and outputs the lab shows.
DECIMALS = 3
#: The numbers of heads the reader can choose.
HEAD_COUNTS = (1, 2, 4)
#: The number of heads the lab opens with: the chapter's h, whose numbers the text quotes.
START_H = 2


def _rounded(a) -> list:
    return np.vectorize(lambda v: float(f"{v:.{SIGNIFICANT}g}"))(np.asarray(a, dtype=np.float64)).tolist()


def _chapter_example() -> tuple:
    """The chapter's words (cat, dog and car with four numbers each) and its four random matrices."""
    x = np.array([[2.0, 0.0, 0.0, 2.0], [1.0, 1.0, 2.0, 0.0], [0.0, 2.0, 0.0, 2.0]])
    w = np.random.default_rng(0).standard_normal((4, 4, 4)) / 2
    return x, w[0], w[1], w[2], w[3]


def several_heads_config(x=None, w_q=None, w_k=None, w_v=None, w_o=None, *, words=None,
                         head_counts=HEAD_COUNTS, start=START_H) -> dict:
    """The lab's JSON configuration: the words, their numbers, the four matrices, the choices of h and the first.

    Parameters
    ----------
    x : array_like, shape (L, d_model), optional
        The words' numbers; by default the chapter's cat, dog and car.
    w_q, w_k, w_v, w_o : array_like, shape (d_model, d_model), optional
        The matrices; by default the chapter's random ones (seed 0, halved).
        Give all five arrays or none.
    words : sequence of str, optional
        One name per row of ``x``; by default the package's words.
    head_counts : sequence of int
        The numbers of heads offered; each must divide ``d_model``.
    start : int
        The number of heads the lab opens with, one of ``head_counts``.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        If only some arrays are given, the shapes disagree, a count of heads
        does not divide ``d_model``, ``start`` is not offered, or there is
        not one word per row.

    Examples
    --------
    >>> c = several_heads_config()
    >>> c["words"], c["headCounts"], c["start"], len(c["x"][0])
    (['cat', 'dog', 'car'], [1, 2, 4], 2, 4)
    """
    arrays = (x, w_q, w_k, w_v, w_o)
    if all(a is None for a in arrays):
        arrays = _chapter_example()
    elif any(a is None for a in arrays):
        raise ValueError("give x, w_q, w_k, w_v and w_o together, or none of them")
    x, *mats = (np.asarray(a, dtype=np.float64) for a in arrays)
    if x.ndim != 2:
        raise ValueError(f"x must be (L, d_model), got shape {x.shape}")
    d_model = x.shape[1]
    for m in mats:
        if m.shape != (d_model, d_model):
            raise ValueError(f"every matrix must be ({d_model}, {d_model}), got {m.shape}")
    for h in head_counts:
        if not (isinstance(h, int) and h > 0 and d_model % h == 0):
            raise ValueError(f"{h} heads do not divide d_model = {d_model}")
    if start not in head_counts:
        raise ValueError(f"the lab cannot open with h = {start}: it offers {list(head_counts)}")
    words = list(sa.WORDS if words is None else words)
    if len(words) != x.shape[0]:
        raise ValueError(f"{len(words)} words for {x.shape[0]} rows of x")
    return {"words": words, "x": _rounded(x), "W_Q": _rounded(mats[0]), "W_K": _rounded(mats[1]),
            "W_V": _rounded(mats[2]), "W_O": _rounded(mats[3]), "headCounts": list(head_counts),
            "start": start, "decimals": DECIMALS}


def _arrays(config: dict) -> tuple:
    return tuple(np.asarray(config[k], dtype=np.float64) for k in ("x", "W_Q", "W_K", "W_V", "W_O"))


def computed(config: dict, h: int, head: int, projections: bool = False) -> dict:
    """What the lab shows for ``h`` heads and head ``head``, formatted.

    With ``projections`` False, the package's
    :func:`~selfattention.multi_head_attention` (one ``W_Q`` whose columns
    are cut into heads); with True, ``h`` separate heads
    :func:`~selfattention.attention_head`, each reading the whole word with
    its own block of columns, joined and multiplied by ``W_O``.

    Returns
    -------
    dict
        ``weights`` (the head's table, rows the word that looks) and
        ``output`` (the joined output after ``W_O``, one row per word).

    Examples
    --------
    >>> c = several_heads_config()
    >>> computed(c, 2, 1) == computed(c, 2, 1, projections=True)
    True
    """
    x, w_q, w_k, w_v, w_o = _arrays(config)
    if projections:
        d_head = x.shape[1] // h
        cols = [slice(i * d_head, (i + 1) * d_head) for i in range(h)]
        runs = [sa.attention_head(x, w_q[:, c], w_k[:, c], w_v[:, c], return_weights=True) for c in cols]
        out = np.concatenate([o for o, _ in runs], axis=-1) @ w_o
        weights = runs[head][1]
    else:
        out, all_weights = sa.multi_head_attention(x, w_q, w_k, w_v, w_o, h, return_weights=True)
        weights = all_weights[head]
    return {"weights": [[fmt(v, DECIMALS) for v in row] for row in weights],
            "output": [[fmt(v, DECIMALS) for v in row] for row in out]}


def several_heads_states(config: dict) -> list[dict]:
    """The lab's test states: h, the head, the checkbox, and what must show.

    Every h with head 0, the last head of the largest h, and head 1 of
    h = 2 computed as separate projections of the whole word.

    Examples
    --------
    >>> s = several_heads_states(several_heads_config())
    >>> [(t["h"], t["head"], t["projections"]) for t in s]
    [(1, 0, False), (2, 0, False), (4, 0, False), (4, 3, False), (2, 1, True)]
    """
    counts = config["headCounts"]
    plans = [(h, 0, False) for h in counts] + [(max(counts), max(counts) - 1, False)]
    if 2 in counts:
        plans.append((2, 1, True))
    return [{"name": f"h = {h}, head {head}" + (", projections" if p else ""), "h": h, "head": head,
             "projections": p, "shown": computed(config, h, head, p)} for h, head, p in plans]


def several_heads_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    ``opens`` is what the lab shows before the reader chooses anything: the
    first head of the chapter's h.

    Examples
    --------
    >>> f = several_heads_fixture(several_heads_config())
    >>> len(f["states"]), f["words"], f["opens"]["h"]
    (5, ['cat', 'dog', 'car'], 2)
    """
    start = config["start"]
    opens = {"name": f"opens at h = {start}, head 0", "h": start, "head": 0, "projections": False,
             "shown": computed(config, start, 0)}
    return {"states": several_heads_states(config), "words": config["words"], "opens": opens}


def several_heads_lab(x=None, w_q=None, w_k=None, w_v=None, w_o=None, *, lab_id: str = "heads-lab",
                      words=None):
    """The lab's element: configuration and a text for readers without JavaScript.

    Examples
    --------
    >>> several_heads_lab().markup.startswith('<div class="sa-lab" data-lab="several-heads" id="heads-lab">')
    True
    """
    config = several_heads_config(x, w_q, w_k, w_v, w_o, words=words)
    start = config["start"]
    shown = computed(config, start, 0)
    first = config["words"][0]
    row = ", ".join(f"{esc(w)} {v}" for w, v in zip(config["words"], shown["weights"][0]))
    fallback = (f'<p class="sa-lab-fallback">This lab needs JavaScript. With h = {start} '
                f'{"head" if start == 1 else "heads"}, '
                f"{esc(first)} gives these weights in head 0: {row}.</p>")
    return lab_element("several-heads", lab_id, config, fallback)


__all__ = ["computed", "several_heads_config", "several_heads_fixture", "several_heads_lab",
           "several_heads_states"]
