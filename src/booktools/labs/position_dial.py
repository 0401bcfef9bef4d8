"""The "position dial" lab of the chapter "Where each word stands".

A query and a key, each at a position the reader sets with a slider (drag,
tap or arrow keys). The lab shows three scores of the two:

* without positions, ``q · k / sqrt(d)``;
* with sinusoidal positions added, ``(q + p_m) · (k + p_n) / sqrt(d)``;
* with RoPE, ``rope(q, m) · rope(k, n) / sqrt(d)``.

Two buttons move both positions together, one place back or on: the RoPE
score holds, the added-positions score changes. The lab shows ``q`` and ``k``
and says that every score is divided by ``sqrt(d)``
(:func:`position_dial_note`). The page emits the element
with its configuration (:func:`position_dial_lab`); the browser tests compute
the package's values (:func:`selfattention.rope`,
:func:`selfattention.sinusoidal_positions`) for the test states from that
same configuration (:func:`position_dial_fixture`).
"""

from __future__ import annotations

import numpy as np

import selfattention as sa

from ..formatting import fmt
from ..html import HTMLBlock, esc
from .element import lab_element

#: The lab's query and key (made-up numbers, d = 4: two pairs).
QUERY = (1.0, 0.5, 0.5, 1.0)
KEY = (0.5, 1.0, 1.0, 0.0)
#: The last position on the sliders, and where the two start.
MAX_POSITION, START_M, START_N = 31, 5, 2
#: Decimals of the scores.
DECIMALS = 3


def position_dial_config(q=QUERY, k=KEY, *, max_position: int = MAX_POSITION, start=(START_M, START_N),
                         base: float = sa.positions.BASE) -> dict:
    """The lab's JSON configuration: the two vectors, the sliders' range and the start.

    Parameters
    ----------
    q, k : array_like, shape (d,)
        The query and the key; ``d`` even.
    max_position : int, keyword-only
        The sliders run from 0 to this.
    start : (int, int), keyword-only
        The positions of the query and the key at the start.
    base : float, keyword-only
        The base of the frequencies.

    Returns
    -------
    dict
        ``q``, ``k``, ``d``, ``base``, ``max``, ``start`` and ``decimals``.

    Raises
    ------
    ValueError
        If ``q`` and ``k`` are not vectors of one even length, or the start
        is outside ``0 .. max_position``.

    Examples
    --------
    >>> c = position_dial_config()
    >>> c["d"], c["max"], c["start"]
    (4, 31, [5, 2])
    """
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    if q.ndim != 1 or q.shape != k.shape or q.size % 2 or not np.all(np.isfinite(q + k)):
        raise ValueError(f"q and k must be finite vectors of one even length, got {q.shape} and {k.shape}")
    m, n = (int(v) for v in start)
    if not (isinstance(max_position, int) and max_position >= 1 and 0 <= m <= max_position
            and 0 <= n <= max_position):
        raise ValueError(f"start {start} must lie in 0 .. max_position = {max_position}")
    return {"q": q.tolist(), "k": k.tolist(), "d": int(q.size), "base": float(base), "max": max_position,
            "start": [m, n], "decimals": DECIMALS}


def _number(x: float) -> str:
    """A number as JavaScript's ``String`` writes it, for the short numbers of the config: 1, 0.5."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def position_dial_note(config: dict) -> str:
    """The line under the lab's sliders: the two vectors, and the division of every score by ``sqrt(d)``.

    The lab writes the same line (``position-dial.js``); the browser test compares the two.

    Examples
    --------
    >>> position_dial_note(position_dial_config())
    'q = [1, 0.5, 0.5, 1] and k = [0.5, 1, 1, 0]. Each score is divided by √4 = 2.'
    """
    d = config["d"]
    root = float(np.sqrt(d))
    root_text = _number(root) if root.is_integer() else fmt(root, config["decimals"])
    vec = lambda v: "[" + ", ".join(_number(x) for x in v) + "]"  # noqa: E731
    return f"q = {vec(config['q'])} and k = {vec(config['k'])}. Each score is divided by √{d} = {root_text}."


def position_dial_view(config: dict, m: int, n: int) -> dict:
    """What the lab shows with the query at ``m`` and the key at ``n``: the package's numbers, formatted.

    Examples
    --------
    >>> c = position_dial_config()
    >>> a, b = position_dial_view(c, 5, 2), position_dial_view(c, 6, 3)
    >>> a["rope"] == b["rope"], a["added"] == b["added"], a["distance"]
    (True, False, '3')
    """
    q, k = np.asarray(config["q"]), np.asarray(config["k"])                      # (d,) each
    d, base, dec = config["d"], config["base"], config["decimals"]
    root = np.sqrt(d)
    pe = sa.sinusoidal_positions(config["max"] + 1, d, base=base)              # (max + 1, d)
    rope = float((sa.rope(q, [m], base=base) @ sa.rope(k, [n], base=base).T).item()) / root
    return {"m": str(m), "n": str(n), "distance": str(m - n),
            "plain": fmt(float(q @ k) / root, dec),
            "added": fmt(float((q + pe[m]) @ (k + pe[n])) / root, dec),
            "rope": fmt(rope, dec)}


def position_dial_lab(*, lab_id: str = "position-dial-lab") -> HTMLBlock:
    """The lab's element; readers without JavaScript get the scores at the start and one place on.

    Examples
    --------
    >>> lab = position_dial_lab()
    >>> lab.markup.startswith('<div class="sa-lab" data-lab="position-dial" id="position-dial-lab">')
    True
    """
    config = position_dial_config()
    m, n = config["start"]
    lines = []
    for a, b in ((m, n), (m + 1, n + 1)):
        v = position_dial_view(config, a, b)
        lines.append(f"Query at {a}, key at {b}: no positions {v['plain']}, sinusoidal added {v['added']}, "
                     f"RoPE {v['rope']}.")
    note = position_dial_note(config)
    fallback = ('<div class="sa-lab-fallback"><p>This lab needs JavaScript. ' + esc(note) + " "
                + " ".join(esc(line) for line in lines) + "</p></div>")
    block = lab_element("position-dial", lab_id, config, fallback)
    return HTMLBlock(block.markup, markdown="\n".join([note, *lines]))


def position_dial_states(config: dict) -> list[dict]:
    """The lab's test states: an action from the start and the positions it ends on.

    Actions: ``keys`` on one slider (``which`` is ``"m"`` or ``"n"``),
    ``fill`` (both sliders set directly) and ``both`` (the buttons "move
    both", pressed in order; a press that would leave the range does
    nothing).

    Examples
    --------
    >>> s = position_dial_states(position_dial_config())
    >>> [(t["name"], t["m"], t["n"]) for t in s][:2]
    [('start', 5, 2), ('keys m ArrowRight ArrowRight', 7, 2)]
    """
    hi = config["max"]
    m0, n0 = config["start"]

    def press(v, keys):
        for key in keys:
            v = {"Home": 0, "End": hi}.get(key, v + (1 if key in ("ArrowRight", "ArrowUp") else -1))
            v = min(hi, max(0, v))
        return v

    def both(m, n, presses):
        for step in presses:
            if 0 <= m + step <= hi and 0 <= n + step <= hi:
                m, n = m + step, n + step
        return m, n

    states = [{"name": "start", "action": {"kind": "initial"}, "m": m0, "n": n0}]
    for which, keys in (("m", ["ArrowRight", "ArrowRight"]), ("n", ["ArrowLeft"]), ("m", ["End"]),
                        ("n", ["Home", "ArrowUp"])):
        m, n = (press(m0, keys), n0) if which == "m" else (m0, press(n0, keys))
        states.append({"name": f"keys {which} {' '.join(keys)}", "action": {"kind": "keys", "which": which,
                                                                            "keys": keys}, "m": m, "n": n})
    for m, n in ((20, 7), (0, 0), (hi, 3)):
        states.append({"name": f"fill {m} {n}", "action": {"kind": "fill", "m": m, "n": n}, "m": m, "n": n})
    for presses in ([1], [1, 1, 1], [-1, -1], [-1] * 4, [1] * 30):
        m, n = both(m0, n0, presses)
        states.append({"name": f"both {' '.join(map(str, presses))}",
                       "action": {"kind": "both", "presses": presses}, "m": m, "n": n})
    return states


def position_dial_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with: each state with the package's view of it.

    Examples
    --------
    >>> f = position_dial_fixture(position_dial_config())
    >>> len({s["view"]["rope"] for s in f["states"] if s["action"]["kind"] == "both"})
    1
    """
    position_dial_config(config["q"], config["k"], max_position=config["max"], start=config["start"],
                         base=config["base"])  # validates
    return {"states": [{**s, "view": position_dial_view(config, s["m"], s["n"])}
                       for s in position_dial_states(config)]}
