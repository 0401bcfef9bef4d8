"""The "mask" lab of the chapter "Causal (masked) self-attention".

The lab shows one head's weight table for a short sentence. A button
switches the causal mask on and off, and says which mask is on ("on" for
the causal mask, "off" for none, "custom" for any other); every cell is a
button that blocks or opens that one score, and each row is renormalised
over the keys it may still read. The page emits the lab's element with its configuration
(:func:`mask_lab`); the browser tests compute the package's weights for the
lab's test states from that same configuration (:func:`mask_fixture`).

The weights come from
:func:`selfattention.scaled_dot_product_attention` with a boolean
``mask``: a blocked score gets weight exactly 0, and a row with every key
blocked gets all zeros.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import selfattention as sa

from ..formatting import DECIMALS, fmt
from ..html import HTMLBlock, esc
from .contract import FALLBACK_CLASS
from .element import lab_element


def mask_config(q, k, tokens: Sequence[str], *, causal: bool = True) -> dict:
    """The lab's JSON configuration: the tokens, their queries and keys, and the start.

    Parameters
    ----------
    q, k : array_like, shape (n, d_k)
        One query and one key per token (``2 <= n <= 6``).
    tokens : sequence of str
        The ``n`` tokens.
    causal : bool, default True, keyword-only
        Whether the lab starts with the causal mask on.

    Returns
    -------
    dict
        ``tokens``, ``q``, ``k`` (lists of rows), ``causal`` and
        ``decimals`` (of the weights shown).

    Raises
    ------
    TypeError, ValueError
        If ``q`` or ``k`` is malformed (as in
        :func:`selfattention.attention_scores`), they do not have one row
        per token, or ``n`` is outside ``2 .. 6``.

    Examples
    --------
    >>> c = mask_config([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]], ["a", "b"])
    >>> c["tokens"], c["causal"], c["decimals"]
    (['a', 'b'], True, 3)
    """
    scores = sa.attention_scores(q, k)  # validates q and k; (n, n)
    qa, ka = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    n = len(tokens)
    if qa.ndim != 2 or scores.shape != (n, n):
        raise ValueError(f"need one query and one key per token: {n} tokens, q {qa.shape}, k {ka.shape}")
    if not 2 <= n <= 6:
        raise ValueError(f"the lab shows 2 to 6 tokens, got {n}")
    if not isinstance(causal, (bool, np.bool_)):
        raise TypeError(f"causal must be True or False, got {causal!r}")
    return {"tokens": [str(t) for t in tokens], "q": qa.tolist(), "k": ka.tolist(), "causal": bool(causal),
            "decimals": DECIMALS["weights"]}


def mask_lab(q, k, tokens: Sequence[str], *, lab_id: str = "mask-lab", causal: bool = True) -> HTMLBlock:
    """The lab's element: configuration and a text for readers without JavaScript.

    Parameters
    ----------
    q, k, tokens, causal
        As in :func:`mask_config`.
    lab_id : str, default "mask-lab", keyword-only
        The ``id`` of the lab's element.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    TypeError, ValueError
        As :func:`mask_config`.

    Examples
    --------
    >>> x = [[1.0, 0.0], [0.0, 1.0]]
    >>> mask_lab(x, x, ["a", "b"]).markup.startswith('<div class="sa-lab" data-lab="mask" id="mask-lab">')
    True
    """
    config = mask_config(q, k, tokens, causal=causal)
    w = _weights(config, sa.causal_mask(len(tokens)))
    rows = "; ".join(f"{t}: " + ", ".join(fmt(v, config["decimals"]) for v in row) for t, row in zip(tokens, w))
    fallback = (f'<p class="{FALLBACK_CLASS}">This lab needs JavaScript. With the causal mask on, '
                f"the weights are, row by row: {esc(rows)}.</p>")
    return lab_element("mask", lab_id, config, fallback)


def _weights(config: dict, allowed: np.ndarray) -> np.ndarray:
    """The package's weights of the lab's head under the boolean mask ``allowed``."""
    q, k = np.asarray(config["q"]), np.asarray(config["k"])
    return sa.scaled_dot_product_attention(q, k, k, mask=allowed, return_weights=True)[1]  # (n, n)


def toggle_label(allowed) -> str:
    """What the lab's toggle says of the mask ``allowed``: ``"on"``, ``"off"`` or ``"custom"``.

    Parameters
    ----------
    allowed : array_like of bool, shape (n, n)
        The mask: True where a query may read a key.

    Returns
    -------
    str
        ``"on"`` for the causal mask, ``"off"`` for no mask (every score
        open), ``"custom"`` for any other mask.

    Raises
    ------
    ValueError
        If ``allowed`` is not a square table.

    Examples
    --------
    >>> toggle_label(sa.causal_mask(3)), toggle_label(np.ones((3, 3), dtype=bool))
    ('on', 'off')
    >>> toggle_label([[True, False], [False, True]])
    'custom'
    """
    allowed = np.asarray(allowed, dtype=bool)
    if allowed.ndim != 2 or allowed.shape[0] != allowed.shape[1]:
        raise ValueError(f"allowed must be a square (n, n) table, got shape {allowed.shape}")
    if np.array_equal(allowed, sa.causal_mask(allowed.shape[0])):
        return "on"
    return "off" if allowed.all() else "custom"


def _apply(allowed: np.ndarray, action: str | Sequence[int]) -> np.ndarray:
    """One press: ``"causal"`` (the toggle) or ``(i, j)`` (a cell)."""
    n = allowed.shape[0]
    causal = sa.causal_mask(n)
    if action == "causal":
        return np.ones((n, n), dtype=bool) if np.array_equal(allowed, causal) else causal
    i, j = action
    out = allowed.copy()
    out[i, j] = not out[i, j]
    return out


def mask_states(config: dict) -> list[dict]:
    """The lab's test states: presses from the start, and what the lab must then show.

    Each state lists ``presses``: ``"causal"`` for the toggle button, or a
    cell ``[i, j]``. The tests perform them with the mouse, by touch and
    with the keyboard.

    Parameters
    ----------
    config : dict
        From :func:`mask_config`.

    Returns
    -------
    list of dict
        ``name``, ``presses``, ``causal`` (whether the toggle shows "on"),
        ``toggle`` (what it shows: :func:`toggle_label`), ``allowed`` (the
        mask), ``weights`` and ``sums`` (formatted, row by row) of each state.

    Examples
    --------
    >>> x = [[1.0, 0.0], [0.0, 1.0]]
    >>> s = mask_states(mask_config(x, x, ["a", "b"]))
    >>> s[0]["name"], s[0]["weights"], s[0]["sums"]
    ('start', [['1.000', '0.000'], ['0.330', '0.670']], ['1.000', '1.000'])
    >>> [t["sums"] for t in s if t["name"] == "row 0 fully blocked"]
    [['0.000', '1.000']]
    >>> [t["toggle"] for t in s][:4], s[-1]["toggle"]
    (['on', 'off', 'on', 'custom'], 'off')
    """
    n = len(config["tokens"])
    d = config["decimals"]
    start = sa.causal_mask(n) if config["causal"] else np.ones((n, n), dtype=bool)
    last = n - 1
    plans = [
        ("start", []),
        ("causal off", ["causal"]),
        ("causal off and on again", ["causal", "causal"]),
        ("last row blocks the first token", [[last, 0]]),
        ("row 0 reads the next token", [[0, 1]]),
        ("row 0 fully blocked", [[0, 0]]),
        ("a middle row fully blocked, mask off", ["causal"] + [[1, j] for j in range(n)]),
        ("cells, then the causal mask back on", [[last, 0], [0, 1], "causal"]),
        ("every future cell opened by hand", [[i, j] for i in range(n) for j in range(i + 1, n)]),
    ]
    states = []
    for name, presses in plans:
        allowed = start.copy()
        for press in presses:
            allowed = _apply(allowed, press)
        w = _weights(config, allowed)
        states.append({
            "name": name, "presses": presses, "causal": bool(np.array_equal(allowed, sa.causal_mask(n))),
            "toggle": toggle_label(allowed),
            "allowed": allowed.tolist(), "weights": [[fmt(v, d) for v in row] for row in w],
            "sums": [fmt(v, d) for v in w.sum(axis=-1)],
        })
    return states


def mask_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    The tests read ``config`` from the built page and call this function:
    the expected numbers never ship in the public page.

    Parameters
    ----------
    config : dict
        From :func:`mask_config` (or the page's JSON of it).

    Returns
    -------
    dict
        ``tokens`` and ``states`` (:func:`mask_states`).

    Examples
    --------
    >>> x = [[1.0, 0.0], [0.0, 1.0]]
    >>> len(mask_fixture(mask_config(x, x, ["a", "b"]))["states"])
    9
    """
    mask_config(config["q"], config["k"], config["tokens"], causal=config["causal"])  # validates
    return {"tokens": list(config["tokens"]), "states": mask_states(config)}


__all__ = ["mask_config", "mask_fixture", "mask_lab", "mask_states", "toggle_label"]
