"""The "three moves" step-through of the chapter "Words are islands".

One word of the running example does the three moves of attention, one at a
time: it **looks** at every word, **scores** each one (and softmax turns the
scores into shares), and **blends** the words by their shares. Next and Back
buttons, or the arrow keys, walk through the moves. Every number it shows is
computed here by the package (:func:`selfattention.attention_scores`,
:func:`selfattention.softmax`, :func:`selfattention.scaled_dot_product_attention`)
and formatted with the book's :func:`~booktools.formatting.fmt`; the
JavaScript (``_static/sa/labs/three-moves.js``) only shows the move asked
for and draws it. The browser tests recompute every move from the words in
the page's configuration (:func:`three_moves_fixture`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import selfattention as sa

from ..formatting import DECIMALS, fmt
from ..html import HTMLBlock, esc
from .contract import FALLBACK_CLASS
from .element import lab_element

#: The moves, in order.
MOVES = ("look", "score", "blend")


def _vector(v, decimals: int) -> str:
    return "[" + ", ".join(fmt(c, decimals) for c in v) + "]"


def three_moves(x, words: Sequence[str], word: int = 0) -> dict:
    """The three moves of one word, computed by the package and formatted.

    Parameters
    ----------
    x : array_like, shape (n, 2)
        The words, one per row (2 numbers each: the lab draws them).
    words : sequence of str
        One name per row of ``x``.
    word : int, default 0
        The row of the word that looks.

    Returns
    -------
    dict
        ``scores``, ``shares`` (each ``(n,)``) and ``output`` (``(2,)``) as
        floats, and ``moves``: for each of :data:`MOVES` its ``name``,
        ``title``, ``text``, table ``columns`` and ``rows`` (strings, as
        shown).

    Raises
    ------
    ValueError
        If ``x`` is not ``(n, 2)`` with one name per row, or ``word`` is not a row.

    Examples
    --------
    >>> m = three_moves(sa.three_words(), sa.WORDS)
    >>> [move["name"] for move in m["moves"]]
    ['look', 'score', 'blend']
    >>> m["moves"][1]["rows"][0], m["moves"][2]["rows"][-1]
    (['cat', '2.83', '0.768'], ['blend', '[1.72, 0.28]'])
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[1] != 2 or x.shape[0] != len(words) or x.shape[0] < 2:
        raise ValueError(f"x must have shape (n, 2) with one name per row, got {x.shape} and {len(words)} names")
    if isinstance(word, bool) or not isinstance(word, (int, np.integer)) or not 0 <= word < len(words):
        raise ValueError(f"word must be a row of x, from 0 to {len(words) - 1}, got {word!r}")
    me = words[word]
    scores = sa.attention_scores(x[word:word + 1], x)[0]                       # (n,)
    out, w = sa.scaled_dot_product_attention(x[word:word + 1], x, x, return_weights=True)
    shares, output = w[0], out[0]                                             # (n,), (2,)
    assert np.allclose(shares, sa.softmax(scores))
    dx = 0 if np.array_equal(x, np.round(x)) else DECIMALS["x"]      # [2, 0], not [2.00, 0.00]
    ds, dw, do = DECIMALS["scores"], DECIMALS["weights"], DECIMALS["output"]
    pieces = shares[:, None] * x                                              # (n, 2)
    # Each part is rounded on its own, so the rounded parts can miss the rounded blend in the last digit.
    parts_sum = np.array([[float(fmt(v, do)) for v in piece] for piece in pieces]).sum(axis=0)   # (2,)
    rounding = ("" if _vector(parts_sum, do) == _vector(output, do) else
                f" Each number is rounded to {do} decimals: the rounded parts add up to {_vector(parts_sum, do)}, "
                f"and the blend, rounded after adding, is {_vector(output, do)}.")
    others = ", ".join(words[j] for j in range(len(words)) if j != word)
    top = int(np.argmax(shares))
    moves = [
        {"name": "look", "title": "Move 1 of 3: look",
         "text": f"{me.capitalize()} looks at every word of the sentence, itself included: "
                 f"{others} and {me}. Nothing is chosen yet.",
         "columns": ["word", "vector"],
         "rows": [[words[j], _vector(x[j], dx)] for j in range(len(words))]},
        {"name": "score", "title": "Move 2 of 3: score",
         "text": f"{me.capitalize()} scores each word: how well it matches, {me} · word / √2. "
                 f"Softmax turns the scores into shares that are positive and add up to 1. "
                 f"{words[top].capitalize()} gets the largest share, {fmt(shares[top], dw)}.",
         "columns": ["word", "score", "share"],
         "rows": [[words[j], fmt(scores[j], ds), fmt(shares[j], dw)] for j in range(len(words))]},
        {"name": "blend", "title": "Move 3 of 3: blend",
         "text": f"{me.capitalize()}'s new vector is the blend: every word times its share, added up. "
                 + " + ".join(f"{fmt(shares[j], dw)} × {_vector(x[j], dx)}" for j in range(len(words)))
                 + f" = {_vector(output, do)}." + rounding,
         "columns": ["word", "share × word"],
         "rows": [[words[j], _vector(pieces[j], do)] for j in range(len(words))]
                 + [["blend", _vector(output, do)]]},
    ]
    return {"scores": scores.tolist(), "shares": shares.tolist(), "output": output.tolist(), "moves": moves}


def three_moves_config(x, words: Sequence[str], word: int = 0) -> dict:
    """The step-through's JSON configuration.

    Parameters
    ----------
    x, words, word
        As in :func:`three_moves`.

    Returns
    -------
    dict
        ``words``, ``x`` (for the drawing), ``word``, ``shares`` and
        ``output`` (for the drawing), and ``moves`` (what each move shows).

    Raises
    ------
    ValueError
        As :func:`three_moves`.

    Examples
    --------
    >>> c = three_moves_config(sa.three_words(), sa.WORDS)
    >>> c["words"], c["word"], [round(v, 2) for v in c["output"]]
    (['cat', 'dog', 'car'], 0, [1.72, 0.28])
    """
    m = three_moves(x, words, word)
    return {"words": list(words), "x": np.asarray(x, dtype=float).tolist(), "word": int(word),
            "shares": m["shares"], "output": m["output"], "moves": m["moves"]}


def three_moves_lab(x, words: Sequence[str], word: int = 0, *, lab_id: str = "moves-lab") -> HTMLBlock:
    """The step-through's element; readers without JavaScript get the three moves as a list.

    Parameters
    ----------
    x, words, word
        As in :func:`three_moves`.
    lab_id : str, default "moves-lab", keyword-only
        The ``id`` of the element.

    Returns
    -------
    HTMLBlock
        The element, and the same three moves as Markdown for the notebook.

    Raises
    ------
    ValueError
        As :func:`three_moves`.

    Examples
    --------
    >>> lab = three_moves_lab(sa.three_words(), sa.WORDS)
    >>> lab.markup.startswith('<div class="sa-lab" data-lab="three-moves" id="moves-lab">')
    True
    >>> lab.markdown.splitlines()[0][:60]
    '1. **Move 1 of 3: look.** Cat looks at every word of the sen'
    """
    config = three_moves_config(x, words, word)
    items = "".join(f"<li><strong>{esc(m['title'])}.</strong> {esc(m['text'])}</li>" for m in config["moves"])
    fallback = f'<ol class="{FALLBACK_CLASS}">{items}</ol>'
    markdown = "\n".join(f"{i}. **{m['title']}.** {m['text']}" for i, m in enumerate(config["moves"], 1))
    block = lab_element("three-moves", lab_id, config, fallback)
    return HTMLBlock(block.markup, markdown=markdown)


def three_moves_fixture(config: dict) -> dict:
    """What the browser tests expect at each move, recomputed from the words in ``config``.

    Parameters
    ----------
    config : dict
        The page's configuration (:func:`three_moves_config`).

    Returns
    -------
    dict
        ``moves``: the package's moves for ``config["x"]`` and
        ``config["word"]``, as :func:`three_moves` gives them; ``states``:
        key sequences and button presses from the first move, with the move
        each one ends on.

    Raises
    ------
    ValueError
        As :func:`three_moves`.

    Examples
    --------
    >>> f = three_moves_fixture(three_moves_config(sa.three_words(), sa.WORDS))
    >>> [(s["name"], s["move"]) for s in f["states"]][:3]
    [('start', 0), ('next', 1), ('next next', 2)]
    """
    m = three_moves(config["x"], config["words"], config["word"])
    last = len(MOVES) - 1
    states = []
    for presses in ([], ["next"], ["next", "next"], ["next", "next", "next"], ["next", "back"],
                    ["back"], ["next", "next", "back", "back"]):
        move = 0
        for p in presses:
            move = min(last, move + 1) if p == "next" else max(0, move - 1)
        states.append({"name": " ".join(presses) or "start", "kind": "buttons", "presses": presses, "move": move})
    keys_moves = {"ArrowRight": 1, "ArrowLeft": -1}
    for keys in (["ArrowRight"], ["ArrowRight", "ArrowRight", "ArrowRight"], ["End"], ["End", "ArrowLeft"],
                 ["ArrowRight", "Home"], ["ArrowLeft"]):
        move = 0
        for k in keys:
            move = 0 if k == "Home" else last if k == "End" else min(last, max(0, move + keys_moves[k]))
        states.append({"name": " ".join(keys), "kind": "keys", "keys": keys, "move": move})
    return {"moves": m["moves"], "states": states}
