"""The "generation" lab of the chapter "One word at a time": a generation stepper.

The lab shows the causal weight table of one head (layer 1, head 0) of the
package's tiny decoder as it writes. The first state is the prefill, which
reads the whole prompt at once. Each press of "Next token" goes to the next
step: it feeds one more token, so the table grows by one row and one column,
and the step that reads ``t`` tokens picks token ``t + 1`` (counting from
one). The cells computed at that step are highlighted: with the KV cache
only the newest row, without it the whole triangle again. A toggle switches
between the two, a strip shows the cache's contents, and a counter gives
the scores of this step and of all steps so far (had every step used the
mode shown), and the token this step picks.

The weights of a causal table do not depend on how many rows follow, so the
table at ``t`` tokens is the top-left corner of the full pass's table. The
page emits the lab's element with its configuration (:func:`generation_lab`);
the browser tests compute the package's values for the lab's test states from
that same configuration (:func:`generation_fixture`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import selfattention as sa
from selfattention.generation import VOCAB

from ..formatting import DECIMALS, fmt
from ..html import HTMLBlock, esc
from .element import lab_element

#: The most tokens the lab shows (its table must fit a phone).
MAX_TOKENS = 6


def generation_config(prompt: Sequence[str] = ("the", "cat", "sat"), steps: int = 3) -> dict:
    """The lab's JSON configuration: the tokens written, and the queries and keys of one head.

    The tiny decoder (:func:`selfattention.tiny_decoder`) writes ``steps``
    tokens greedily after ``prompt``; the lab shows the first layer's head 0.

    Parameters
    ----------
    prompt : sequence of str
        Words of :data:`~selfattention.generation.VOCAB`.
    steps : int
        Tokens to write (``len(prompt) + steps <= 6``).

    Returns
    -------
    dict
        ``tokens`` (words), ``q`` and ``k`` (one row per token), ``prompt``
        (its length), ``next`` (the word the step that reads all the tokens
        picks) and ``decimals``.

    Raises
    ------
    ValueError
        If a word is not in the vocabulary, or there would be more than 6
        tokens or fewer than 2.

    Examples
    --------
    >>> c = generation_config()
    >>> c["tokens"], c["prompt"], c["next"]
    (['the', 'cat', 'sat', 'on', 'mat', 'sat'], 3, 'is')
    """
    unknown = [w for w in prompt if w not in VOCAB]
    if unknown:
        raise ValueError(f"words not in the vocabulary {VOCAB}: {unknown}")
    if not 2 <= len(prompt) + steps <= MAX_TOKENS or steps < 1:
        raise ValueError(f"the lab shows 2 to {MAX_TOKENS} tokens and writes at least 1, "
                         f"got {len(prompt)} + {steps}")
    model = sa.tiny_decoder()
    ids = sa.generate(model, [VOCAB.index(w) for w in prompt], steps + 1)  # one more: what the last step picks
    n = len(ids) - 1
    x = model.embed[ids[:n]] + sa.sinusoidal_positions(n, model.d_model)  # (n, d_model)
    block = model.blocks[0]
    q = sa.split_heads(x @ block.w_q, model.h)[0]  # (n, d_head): head 0
    k = sa.split_heads(x @ block.w_k, model.kv_heads)[0]  # (n, d_head)
    return {"tokens": [VOCAB[i] for i in ids[:n]], "q": q.tolist(), "k": k.tolist(), "prompt": len(prompt),
            "next": VOCAB[ids[n]], "decimals": DECIMALS["weights"]}


def generation_lab(*, lab_id: str = "gen-lab", prompt: Sequence[str] = ("the", "cat", "sat"),
                   steps: int = 3) -> HTMLBlock:
    """The lab's element: configuration and a text for readers without JavaScript.

    Examples
    --------
    >>> generation_lab().markup.startswith('<div class="sa-lab" data-lab="generation" id="gen-lab">')
    True
    """
    config = generation_config(prompt, steps)
    w = weights(config, len(config["tokens"]))
    rows = "; ".join(f"{t}: " + ", ".join(fmt(v, config["decimals"]) for v in row[: i + 1])
                     for i, (t, row) in enumerate(zip(config["tokens"], w)))
    fallback = ('<p class="sa-lab-fallback">This lab needs JavaScript. The weights of one head, row by row, '
                f"are: {esc(rows)}.</p>")
    return lab_element("generation", lab_id, config, fallback)


def weights(config: dict, t: int) -> np.ndarray:
    """The package's causal weights of the lab's head for the first ``t`` tokens, ``(t, t)``."""
    q, k = np.asarray(config["q"])[:t], np.asarray(config["k"])[:t]
    return sa.scaled_dot_product_attention(q, k, k, causal=True, return_weights=True)[1]  # (t, t)


def step_scores(t: int, prompt: int, cache: bool) -> int:
    """Scores computed by the step that reads ``t`` tokens and picks token ``t + 1``.

    The first step, at ``t = prompt``, is the prefill: it reads the whole
    prompt at once and computes its causal table, with the cache or without.
    """
    if t == prompt:
        return prompt * (prompt + 1) // 2
    return sa.scores_per_step(t, cache=cache)


def generation_states(config: dict) -> list[dict]:
    """The lab's test states: presses from the start (``"next"``, ``"back"``, ``"mode"``) and what must show.

    Returns
    -------
    list of dict
        ``name``, ``presses``, ``t`` (the tokens this step reads), ``cache``
        (the toggle), ``weights`` (formatted, lower triangle, row by row),
        ``computed`` (cells highlighted), ``step`` and ``total`` (scores),
        ``picked`` (the word this step picks, token ``t + 1``) and ``kept``
        (the tokens in the cache).

    Examples
    --------
    >>> s = generation_states(generation_config())
    >>> s[0]["name"], s[0]["t"], s[0]["step"], s[0]["total"], s[0]["kept"]
    ('start', 3, 6, 6, ['the', 'cat', 'sat'])
    """
    n, p, d = len(config["tokens"]), config["prompt"], config["decimals"]
    plans = [
        ("start", []),
        ("one token", ["next"]),
        ("to the end", ["next"] * (n - p)),
        ("past the end stays", ["next"] * (n - p + 1)),
        ("recompute, one token", ["mode", "next"]),
        ("to the end, then recompute", ["next"] * (n - p) + ["mode"]),
        ("back one", ["next", "next", "back"]),
        ("back past the prompt stays", ["back", "back"]),
    ]
    states = []
    for name, presses in plans:
        t, cache = p, True
        for press in presses:
            if press == "next":
                t = min(t + 1, n)
            elif press == "back":
                t = max(t - 1, p)
            else:
                cache = not cache
        w = weights(config, t)
        computed = [[bool(j <= i and (t == p or not cache or i == t - 1)) for j in range(t)] for i in range(t)]
        states.append({
            "name": name, "presses": presses, "t": t, "cache": cache,
            "weights": [[fmt(w[i, j], d) for j in range(i + 1)] for i in range(t)],
            "computed": computed, "step": step_scores(t, p, cache),
            "total": sum(step_scores(s, p, cache) for s in range(p, t + 1)),
            "picked": config["tokens"][t] if t < n else config["next"],
            "kept": list(config["tokens"][:t]) if cache else [],
        })
    return states


def generation_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    Examples
    --------
    >>> len(generation_fixture(generation_config())["states"])
    8
    """
    if len(config["q"]) != len(config["tokens"]) or len(config["k"]) != len(config["tokens"]):
        raise ValueError("the config needs one query and one key per token")
    return {"tokens": list(config["tokens"]), "prompt": config["prompt"], "next": config["next"],
            "states": generation_states(config)}


__all__ = ["generation_config", "generation_fixture", "generation_lab", "generation_states"]
