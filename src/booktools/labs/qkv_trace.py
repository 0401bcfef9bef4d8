"""The step-by-step trace of one head on "I love cats" (chapter "Queries, keys and values").

The package computes every step (:func:`selfattention.head_trace`); this
module turns the steps into tables and sentences (:func:`trace_steps`) and
into the page's element (:func:`qkv_trace_lab`). Without JavaScript every
step is shown, one after the other; ``_static/sa/labs/qkv-trace.js`` shows
one step at a time with Back and Next buttons. The browser tests recompute
the steps from the inputs in the element's configuration
(:func:`qkv_trace_fixture`) and compare them with what the page shows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import selfattention as sa

from ..formatting import DECIMALS, fmt
from ..html import HTMLBlock, esc
from .contract import TRACE_STEP_CLASS, TRACE_STEPS_CLASS, config_block, lab_open_tag


def trace_steps(x, w_q, w_k, w_v, words: Sequence[str]) -> list[dict]:
    """The trace's steps: a title, a sentence and the tables of each, as the page shows them.

    Six views: the inputs, then the five steps of a head (projections,
    scores, scaling, softmax, the weighted sum).

    Parameters
    ----------
    x : array_like, shape (L, d_model)
        The words.
    w_q, w_k : array_like, shape (d_model, d_k)
        Query and key matrices.
    w_v : array_like, shape (d_model, d_v)
        Value matrix.
    words : sequence of str
        One name per row of ``x``.

    Returns
    -------
    list of dict
        ``id``, ``title``, ``text`` and ``tables`` (each with ``caption``,
        ``rows``, ``cols`` and ``cells``, the numbers formatted with
        :func:`~booktools.formatting.fmt`).

    Raises
    ------
    ValueError
        If ``words`` does not name every row of ``x``, or as
        :func:`selfattention.head_trace`.

    Examples
    --------
    >>> steps = trace_steps(*sa.i_love_cats(), sa.SENTENCE)
    >>> [s["id"] for s in steps]
    ['inputs', 'projections', 'scores', 'scaling', 'softmax', 'output']
    >>> steps[2]["tables"][0]["cells"][1]
    ['4', '0', '2']
    """
    words = list(words)
    t = sa.head_trace(x, w_q, w_k, w_v)
    x = np.asarray(x, dtype=float)
    w_q, w_k, w_v = (np.asarray(w, dtype=float) for w in (w_q, w_k, w_v))
    if len(words) != x.shape[0]:
        raise ValueError(f"x has {x.shape[0]} rows but {len(words)} words were given: {words}")
    d_model, d_k = w_q.shape
    feats = [f"x{c + 1}" for c in range(d_model)]
    cols_k = [f"{c + 1}" for c in range(d_k)]
    cols_v = [f"{c + 1}" for c in range(w_v.shape[1])]
    whole = _whole(x, w_q, w_k, w_v, t["raw_scores"])
    d = {"in": 0 if whole else DECIMALS["x"], "raw": 0 if whole else DECIMALS["scores"]}

    def table(caption, values, rows, cols, decimals):
        return {"caption": caption, "rows": list(rows), "cols": list(cols),
                "cells": [[fmt(v, decimals) for v in row] for row in np.asarray(values)]}

    def vec(row, decimals):
        return "[" + ", ".join(fmt(v, decimals) for v in row) + "]"

    # The sentences follow one word, a: the one with the largest score, and the word b it looks at most.
    a = int(np.unravel_index(np.argmax(t["raw_scores"]), t["raw_scores"].shape)[0])
    b = int(np.argmax(t["weights"][a]))
    root = np.sqrt(d_k)
    e = np.exp(t["scores"][a])  # the exponentials of row a, as the softmax step explains them
    return [
        {"id": "inputs", "title": "The words and the three matrices",
         "text": (f"Each of the {len(words)} words has {d_model} numbers. W_Q and W_K turn {d_model} numbers "
                  f"into {d_k}, and W_V turns them into {w_v.shape[1]}."),
         "tables": [table("X: the words", x, words, feats, d["in"]),
                    table("W_Q", w_q, feats, cols_k, d["in"]),
                    table("W_K", w_k, feats, cols_k, d["in"]),
                    table("W_V", w_v, feats, cols_v, d["in"])]},
        {"id": "projections", "title": "Step 1: projections Q = X W_Q, K = X W_K, V = X W_V",
         "text": (f"Each word gets a query, a key and a value. {words[a]}'s query is {vec(t['q'][a], d['in'])}: "
                  f"its row of X, {vec(x[a], d['in'])}, times W_Q."),
         "tables": [table("Q: what each word looks for", t["q"], words, cols_k, d["in"]),
                    table("K: what others match against", t["k"], words, cols_k, d["in"]),
                    table("V: what each word hands over", t["v"], words, cols_v, d["in"])]},
        {"id": "scores", "title": "Step 2: scores Q Kᵀ",
         "text": (f"Row {words[a]} holds {words[a]}'s query against every key. {words[a]}'s query "
                  f"{vec(t['q'][a], d['in'])} · {words[b]}'s key {vec(t['k'][b], d['in'])} = "
                  f"{fmt(t['raw_scores'][a, b], d['raw'])}."),
         "tables": [table("Q Kᵀ: row = the word that looks, column = the word it looks at",
                          t["raw_scores"], words, words, d["raw"])]},
        {"id": "scaling", "title": f"Step 3: scaling by √d_k = √{d_k}",
         "text": (f"Every score is divided by √{d_k}, about {fmt(root, 2)}: {words[a]} → {words[b]} becomes "
                  f"{fmt(t['raw_scores'][a, b], d['raw'])} / {fmt(root, 2)} = "
                  f"{fmt(t['scores'][a, b], DECIMALS['scores'])}."),
         "tables": [table("Q Kᵀ (from step 2)", t["raw_scores"], words, words, d["raw"]),
                    table(f"scores = Q Kᵀ / √{d_k}", t["scores"], words, words, DECIMALS["scores"])]},
        {"id": "softmax", "title": "Step 4: softmax of each row",
         "text": (f"Exponentiate each score of a row and divide by the row's total. For {words[a]}: "
                  + ", ".join(fmt(v, 2) for v in e) + f", total {fmt(e.sum(), 2)}; so {words[a]} gives "
                  f"{fmt(t['weights'][a, b], DECIMALS['weights'])} of its attention to {words[b]}."),
         "tables": [table("scores (from step 3)", t["scores"], words, words, DECIMALS["scores"]),
                    table("weights: each row adds up to 1", t["weights"], words, words, DECIMALS["weights"])]},
        {"id": "output", "title": "Step 5: the weighted sum, output = weights V",
         "text": (f"Each output mixes the values with its row of weights. {words[a]}'s output = "
                  + " + ".join(f"{fmt(t['weights'][a, j], DECIMALS['weights'])} × {vec(t['v'][j], d['in'])}"
                               for j in range(len(words)))
                  + f" = {vec(t['output'][a], DECIMALS['output'])}."),
         "tables": [table("weights (from step 4)", t["weights"], words, words, DECIMALS["weights"]),
                    table("V (from step 1)", t["v"], words, cols_v, d["in"]),
                    table("output: a weighted average of the values", t["output"], words, cols_v,
                          DECIMALS["output"])]},
    ]


def qkv_trace_lab(x, w_q, w_k, w_v, words: Sequence[str], *, lab_id: str = "qkv-trace") -> HTMLBlock:
    """The trace's element: every step in the markup, one at a time with JavaScript.

    Parameters
    ----------
    x, w_q, w_k, w_v, words
        As :func:`trace_steps`.
    lab_id : str, default "qkv-trace", keyword-only
        The ``id`` of the element.

    Returns
    -------
    HTMLBlock
        The element (its configuration holds the inputs and the step
        titles) and, for the notebook, the same steps in Markdown.

    Raises
    ------
    ValueError
        As :func:`trace_steps`.

    Examples
    --------
    >>> block = qkv_trace_lab(*sa.i_love_cats(), sa.SENTENCE)
    >>> block.markup.count('class="sa-trace-step"')
    6
    >>> block.markdown.startswith("**The words and the three matrices**")
    True
    """
    steps = trace_steps(x, w_q, w_k, w_v, words)
    config = {"words": list(words), "x": np.asarray(x, dtype=float).tolist(),
              **{n: np.asarray(w, dtype=float).tolist() for n, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v))},
              "steps": [{"id": s["id"], "title": s["title"]} for s in steps]}
    sections = "".join(
        f'<section class="{TRACE_STEP_CLASS}" data-step="{k}" aria-label="{esc(s["title"])}">'
        f'<h3 class="sa-trace-title">{esc(s["title"])}</h3><p class="sa-trace-text">{esc(s["text"])}</p>'
        f'<div class="sa-trace-tables">{"".join(_html_table(tb) for tb in s["tables"])}</div></section>'
        for k, s in enumerate(steps))
    markup = (f"{lab_open_tag('qkv-trace', lab_id)}{config_block(config)}"
              f'<div class="{TRACE_STEPS_CLASS}">{sections}</div></div>')
    markdown = "\n\n".join(f"**{s['title']}**\n\n{s['text']}\n\n" + "\n\n".join(_md_table(tb) for tb in s["tables"])
                           for s in steps)
    return HTMLBlock(markup, markdown=markdown)


def qkv_trace_fixture(config: dict) -> dict:
    """What the browser tests compare the trace with: every step, recomputed from its inputs.

    Parameters
    ----------
    config : dict
        The configuration in the trace's element.

    Returns
    -------
    dict
        ``words`` and ``steps`` (:func:`trace_steps`).

    Raises
    ------
    ValueError
        As :func:`trace_steps`.

    Examples
    --------
    >>> x, w_q, w_k, w_v = sa.i_love_cats()
    >>> config = {"words": list(sa.SENTENCE), "x": x.tolist(), "w_q": w_q.tolist(), "w_k": w_k.tolist(),
    ...           "w_v": w_v.tolist()}
    >>> qkv_trace_fixture(config)["steps"][4]["tables"][1]["cells"][0]
    ['0.164', '0.673', '0.164']
    """
    steps = trace_steps(config["x"], config["w_q"], config["w_k"], config["w_v"], config["words"])
    return {"words": list(config["words"]), "steps": steps}


def _whole(*arrays) -> bool:
    """True if every number is a whole number: the trace then shows no decimals before the scaling."""
    return all(np.array_equal(a, np.round(a)) for a in arrays)


def _html_table(tb: dict) -> str:
    head = "".join(f'<th scope="col">{esc(c)}</th>' for c in tb["cols"])
    body = "".join(
        f'<tr><th scope="row">{esc(r)}</th>' + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>"
        for r, row in zip(tb["rows"], tb["cells"]))
    return (f'<table class="sa-trace-table"><caption>{esc(tb["caption"])}</caption>'
            f'<thead><tr><td class="sa-trace-corner"></td>{head}</tr></thead><tbody>{body}</tbody></table>')


def _md_table(tb: dict) -> str:
    lines = [f"*{tb['caption']}*", "", "| | " + " | ".join(tb["cols"]) + " |",
             "|---|" + "---:|" * len(tb["cols"])]
    lines += ["| **" + r + "** | " + " | ".join(row) + " |" for r, row in zip(tb["rows"], tb["cells"])]
    return "\n".join(lines)
