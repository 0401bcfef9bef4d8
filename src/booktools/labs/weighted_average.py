"""The "weighted average" lab of the chapter "A weighted average".

The reader drags three words in the plane (or moves them with the arrow
keys) and watches X, the scores, the weights and the output update. The page
emits the lab's element (:func:`weighted_average_lab`) with its configuration
(:func:`weighted_average_config`); ``_static/sa/labs/weighted-average.js``
draws it. The browser tests compute the lab's test states from that same
configuration (:func:`weighted_average_fixture`): the package's tables,
formatted exactly as the lab must show them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import selfattention as sa

from ..formatting import DECIMALS, fmt
from ..html import HTMLBlock
from ..style import OKABE_ITO
from .contract import FALLBACK_CLASS
from .element import lab_element

#: Grid of the lab's plane: dragging snaps to it, an arrow key moves one step.
STEP = 0.1
#: An arrow key with Shift moves this far.
BIG_STEP = 1.0
#: Both axes of the plane run from ``LIMITS[0]`` to ``LIMITS[1]``.
LIMITS = (-1.0, 6.0)
#: Marker shape of each word, in order (never colour alone).
SHAPES = ("circle", "square", "triangle")

_ALL_THE_SAME = {2: "both the same", 3: "all three the same"}
_STEP_PLACES = 1  # decimals of STEP: positions are kept on the grid exactly


def weighted_average_lab(x, words: Sequence[str], *, lab_id: str = "wa-lab") -> HTMLBlock:
    """The "weighted average" lab: drag the words, watch every table update.

    Parameters
    ----------
    x : array_like, shape (n, 2)
        The starting point of each word (2 or 3 words).
    words : sequence of str
        One name per row of ``x``.
    lab_id : str, default "wa-lab", keyword-only
        The ``id`` of the lab's element.

    Returns
    -------
    HTMLBlock
        The lab's element with its JSON configuration (words, points,
        decimals, ``d_k``, presets, plane limits, step) and a short text for
        readers without JavaScript.

    Raises
    ------
    ValueError
        If ``x`` is not ``(n, 2)`` with ``n`` equal to ``len(words)`` (2 or 3),
        a word name is empty or repeated, or a point lies outside the plane.

    Examples
    --------
    >>> lab = weighted_average_lab(sa.three_words(), sa.WORDS)
    >>> lab.markup.startswith('<div class="sa-lab" data-lab="weighted-average" id="wa-lab">')
    True
    >>> config = weighted_average_config(sa.three_words(), sa.WORDS)
    >>> [p["label"] for p in config["presets"]]
    ['car becomes [5, 5]', 'all three the same']
    """
    config = weighted_average_config(x, words)
    fallback = (
        f'<p class="{FALLBACK_CLASS}">This lab needs JavaScript. Without it, the '
        "tables above show the same steps for the starting points.</p>"
    )
    return lab_element("weighted-average", lab_id, config, fallback)


def weighted_average_config(x, words: Sequence[str]) -> dict:
    """The JSON configuration of the "weighted average" lab.

    Parameters
    ----------
    x : array_like, shape (n, 2)
        The starting point of each word.
    words : sequence of str
        One name per row of ``x``.

    Returns
    -------
    dict
        ``words``, ``x``, ``d_k``, ``decimals`` (the book's
        :data:`~booktools.formatting.DECIMALS`), ``step``, ``big_step``,
        ``limits``, ``colours``, ``shapes`` and ``presets`` (each with an
        ``id``, a ``label``, the points ``x`` and the ``word`` to announce).

    Raises
    ------
    ValueError
        As :func:`weighted_average_lab`.

    Examples
    --------
    >>> c = weighted_average_config([[2, 0], [1, 1], [0, 2]], ["cat", "dog", "car"])
    >>> c["d_k"], c["step"], c["limits"]
    (2, 0.1, [-1.0, 6.0])
    >>> c["presets"][1]["x"]
    [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    """
    x, words = _check_lab_input(x, words)
    n, d_k = x.shape
    return {
        "words": words,
        "x": x.tolist(),
        "d_k": d_k,
        "decimals": dict(DECIMALS),
        "step": STEP,
        "big_step": BIG_STEP,
        "limits": list(LIMITS),
        "colours": list(OKABE_ITO[:n]),
        "shapes": list(SHAPES[:n]),
        "presets": _presets(x, words),
    }


def weighted_average_tables(x, words: Sequence[str], *, scaled: bool = True) -> dict:
    """The lab's four tables for points ``x``, as the strings the lab shows.

    Parameters
    ----------
    x : array_like, shape (n, 2)
        One point per word.
    words : sequence of str
        One name per row of ``x``.
    scaled : bool, default True, keyword-only
        Divide the scores by ``sqrt(d_k)`` (the lab's checkbox).

    Returns
    -------
    dict
        ``"x"``, ``"scores"``, ``"weights"`` and ``"output"``: lists of rows
        of strings, formatted with :func:`~booktools.formatting.fmt` and
        :data:`~booktools.formatting.DECIMALS`, exactly as the book's tables.

    Raises
    ------
    ValueError
        As :func:`weighted_average_lab`.

    Examples
    --------
    >>> t = weighted_average_tables(sa.three_words(), sa.WORDS)
    >>> t["weights"][0], t["output"][0]
    (['0.768', '0.187', '0.045'], ['1.72', '0.28'])
    >>> weighted_average_tables(sa.three_words(), sa.WORDS, scaled=False)["scores"][0]
    ['4.00', '2.00', '0.00']
    """
    x, _ = _check_lab_input(x, words)
    scale = None if scaled else 1.0
    scores = sa.attention_scores(x, x, scale=scale)  # (n, n)
    output, weights = sa.scaled_dot_product_attention(x, x, x, scale=scale, return_weights=True)
    values = {"x": x, "scores": scores, "weights": weights, "output": output}
    return {name: [[fmt(v, DECIMALS[name]) for v in row] for row in table]
            for name, table in values.items()}


def weighted_average_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    The tests read ``config`` from the built page and call this function:
    the expected numbers never ship in the public page.

    Parameters
    ----------
    config : dict
        From :func:`weighted_average_config` (or the page's JSON of it).

    Returns
    -------
    dict
        ``words`` and ``states`` (:func:`weighted_average_states`).

    Raises
    ------
    ValueError
        As :func:`weighted_average_states`.

    Examples
    --------
    >>> f = weighted_average_fixture(weighted_average_config(sa.three_words(), sa.WORDS))
    >>> f["words"], len(f["states"])
    (['cat', 'dog', 'car'], 10)
    """
    return {"words": list(config["words"]), "states": weighted_average_states(config)}


def weighted_average_states(config: dict) -> list[dict]:
    """The lab's test states, each with its action, points and tables.

    The states are: the start; each preset; the square root switched off;
    three drags to points of the grid; three runs of arrow keys on a focused
    point (one with Shift, one stopped by the edge of the plane). Each state
    names the action a test performs from the start (``initial``,
    ``preset``, ``scale``, ``drag`` or ``keys``), the points it leads to and
    the four tables the lab must then show (:func:`weighted_average_tables`).

    Parameters
    ----------
    config : dict
        From :func:`weighted_average_config`, for 3 words.

    Returns
    -------
    list of dict
        ``name``, ``action``, ``x``, ``scaled`` and ``tables`` of each state.

    Raises
    ------
    ValueError
        As :func:`weighted_average_lab`, or if there are not 3 words.

    Examples
    --------
    >>> s = weighted_average_states(weighted_average_config(sa.three_words(), sa.WORDS))
    >>> [t["action"]["kind"] for t in s][:4]
    ['initial', 'preset', 'preset', 'scale']
    >>> s[1]["name"], s[1]["tables"]["weights"][2]
    ('preset car becomes [5, 5]', ['0.000', '0.000', '1.000'])
    >>> keys = [t for t in s if t["action"]["kind"] == "keys"][0]
    >>> keys["action"], keys["x"][0]
    ({'kind': 'keys', 'word': 0, 'keys': ['ArrowUp', 'ArrowUp', 'ArrowUp', 'ArrowUp', 'ArrowUp']}, [2.0, 0.5])
    """
    x, words = _check_lab_input(config["x"], config["words"])
    if len(words) != 3:
        raise ValueError(f"the lab's test states need 3 words, got {len(words)}")
    start = x.tolist()
    states = [("initial", {"kind": "initial"}, start, True)]
    for preset in config["presets"]:
        states.append((f"preset {preset['label']}", {"kind": "preset", "preset": preset["id"]},
                       preset["x"], True))
    states.append(("no division by sqrt(d_k)", {"kind": "scale", "on": False}, start, False))
    for word, to in ((2, [3.0, 1.5]), (1, [-0.5, 4.2]), (0, [4.6, 0.3])):
        moved = [list(p) for p in start]
        moved[word] = _snap(to)
        states.append((f"drag {words[word]} to {to}", {"kind": "drag", "word": word, "to": _snap(to)},
                       moved, True))
    for word, keys in ((0, ["ArrowUp"] * 5), (1, ["ArrowLeft"] * 3 + ["Shift+ArrowUp"] * 2),
                       (2, ["Shift+ArrowDown"] * 4 + ["ArrowRight"])):
        moved = [list(p) for p in start]
        moved[word] = _press(moved[word], keys)
        states.append((f"keys on {words[word]}: {', '.join(keys[:3])}...",
                       {"kind": "keys", "word": word, "keys": keys}, moved, True))
    return [{"name": name, "action": action, "x": pts, "scaled": scaled,
             "tables": weighted_average_tables(pts, words, scaled=scaled)}
            for name, action, pts, scaled in states]


def _presets(x: np.ndarray, words: list[str]) -> list[dict]:
    """The lab's preset buttons: the last word far out, and all words at their mean."""
    n = len(words)
    far = x.tolist()
    far[-1] = [5.0, 5.0]
    same = [_snap(x.mean(axis=0))] * n
    return [
        {"id": "far", "label": f"{words[-1]} becomes [5, 5]", "x": far, "word": n - 1},
        {"id": "same", "label": _ALL_THE_SAME[n], "x": same, "word": 0},
    ]


def _snap(point) -> list[float]:
    """Round a point to the lab's grid and clamp it to the plane, as the lab does."""
    lo, hi = LIMITS
    return [min(hi, max(lo, round(round(float(v) / STEP) * STEP, _STEP_PLACES))) for v in point]


def _press(point: list[float], keys: Sequence[str]) -> list[float]:
    """Where arrow ``keys`` move ``point`` ("Shift+" moves by :data:`BIG_STEP`)."""
    moves = {"ArrowLeft": (-1, 0), "ArrowRight": (1, 0), "ArrowUp": (0, 1), "ArrowDown": (0, -1)}
    for key in keys:
        step = BIG_STEP if key.startswith("Shift+") else STEP
        dx, dy = moves[key.removeprefix("Shift+")]
        point = _snap([point[0] + dx * step, point[1] + dy * step])
    return point


def _check_lab_input(x, words) -> tuple[np.ndarray, list[str]]:
    """Return ``x`` as floats and ``words`` as a list, or raise a clear ValueError."""
    words = [words] if isinstance(words, str) else list(words)
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"x must have shape (n_words, 2), one point per word; got shape {arr.shape}")
    if arr.shape[0] != len(words):
        raise ValueError(f"x has {arr.shape[0]} rows but {len(words)} words were given: {words}")
    if len(words) not in _ALL_THE_SAME:
        raise ValueError(f"the lab shows 2 or 3 words, got {len(words)}")
    if any(not isinstance(w, str) or not w for w in words) or len(set(words)) != len(words):
        raise ValueError(f"words must be distinct non-empty strings, got {words}")
    lo, hi = LIMITS
    if not np.all(np.isfinite(arr)) or arr.min() < lo or arr.max() > hi:
        raise ValueError(f"every coordinate of x must lie in the plane [{lo}, {hi}], got {arr.tolist()}")
    return arr, words
