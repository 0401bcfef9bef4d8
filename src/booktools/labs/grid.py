"""The "grid" lab of the chapter "The cost of full context".

A slider sets the number of tokens ``n``; the lab draws the ``n x n`` grid
of comparisons (one cell per score) and shows their count, ``n**2``. Two
buttons double and halve ``n``, and the top-left quarter of the grid is
shaded: it is the grid for half as many tokens. The page emits the lab's
element with its configuration (:func:`grid_lab`); the browser tests compute
the package's counts for the lab's test states from that same configuration
(:func:`grid_fixture`).
"""

from __future__ import annotations

from collections.abc import Sequence

import selfattention as sa

from ..formatting import format_count
from ..html import HTMLBlock, esc
from .contract import FALLBACK_CLASS
from .element import lab_element

#: The slider's range and start.
N_MIN, N_MAX, N_START = 4, 64, 8


def grid_config(n_min: int = N_MIN, n_max: int = N_MAX, start: int = N_START) -> dict:
    """The lab's JSON configuration: the slider's range, its start, and the counts.

    Parameters
    ----------
    n_min, n_max : int
        Smallest and largest number of tokens (``2 <= n_min < n_max <= 256``).
    start : int
        Where the slider starts, inside the range.

    Returns
    -------
    dict
        ``min``, ``max``, ``start``, ``step`` (1) and ``counts``: the
        package's :func:`selfattention.cost.score_count` for ``min`` and
        ``max``, formatted (the lab computes the others and the tests check
        every one).

    Raises
    ------
    TypeError
        If a size is not an integer.
    ValueError
        If the range is empty or too large, or ``start`` lies outside it.

    Examples
    --------
    >>> c = grid_config()
    >>> c["min"], c["max"], c["start"], c["counts"]
    (4, 64, 8, {'4': '16', '64': '4,096'})
    """
    for name, value in (("n_min", n_min), ("n_max", n_max), ("start", start)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, got {value!r}")
    if not 2 <= n_min < n_max <= 256:
        raise ValueError(f"need 2 <= n_min < n_max <= 256, got n_min={n_min}, n_max={n_max}")
    if not n_min <= start <= n_max:
        raise ValueError(f"start must lie in [{n_min}, {n_max}], got {start}")
    return {
        "min": n_min,
        "max": n_max,
        "start": start,
        "step": 1,
        "counts": {str(n): format_count(sa.cost.score_count(n)) for n in (n_min, n_max)},
    }


def grid_lab(*, lab_id: str = "grid-lab", n_min: int = N_MIN, n_max: int = N_MAX,
             start: int = N_START) -> HTMLBlock:
    """The lab's element: configuration and a text for readers without JavaScript.

    Parameters
    ----------
    lab_id : str, default "grid-lab", keyword-only
        The ``id`` of the lab's element.
    n_min, n_max, start : int, keyword-only
        As in :func:`grid_config`.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    TypeError, ValueError
        As :func:`grid_config`.

    Examples
    --------
    >>> grid_lab().markup.startswith('<div class="sa-lab" data-lab="grid" id="grid-lab">')
    True
    """
    config = grid_config(n_min, n_max, start)
    sizes = [n for n in (n_min, 2 * n_min, 4 * n_min, n_max) if n <= n_max]
    listed = ", ".join(f"{n} tokens: {format_count(sa.cost.score_count(n))}" for n in dict.fromkeys(sizes))
    fallback = (
        f'<p class="{FALLBACK_CLASS}">This lab needs JavaScript. It draws one square per '
        f"comparison; the counts are {esc(listed)}.</p>"
    )
    return lab_element("grid", lab_id, config, fallback)


def grid_states(config: dict) -> list[dict]:
    """The lab's test states: each names an action from the start and the result.

    Actions: ``initial``; ``keys`` (keys pressed on the focused slider:
    arrows move by 1, ``Home`` and ``End`` jump to the ends); ``fill`` (the
    slider's value set directly, as a drag or a screen reader would);
    ``buttons`` (the double and halve buttons, pressed in order; a button
    that is disabled is not pressed).

    Parameters
    ----------
    config : dict
        From :func:`grid_config`.

    Returns
    -------
    list of dict
        ``name``, ``action``, ``n`` and ``count`` (formatted) of each state.

    Raises
    ------
    TypeError, ValueError
        As :func:`grid_config`.

    Examples
    --------
    >>> s = grid_states(grid_config())
    >>> s[0]
    {'name': 'start', 'action': {'kind': 'initial'}, 'n': 8, 'count': '64'}
    >>> [(t["n"], t["count"]) for t in s if t["action"]["kind"] == "buttons"]
    [(16, '256'), (64, '4,096'), (4, '16')]
    """
    n_min, n_max, start = config["min"], config["max"], config["start"]
    grid_config(n_min, n_max, start)  # validates
    states = [("start", {"kind": "initial"}, start)]
    for keys in (["ArrowRight"] * 8, ["ArrowLeft"] * 3, ["ArrowUp", "ArrowUp", "ArrowDown"],
                 ["End"], ["End", "ArrowLeft"], ["Home"], ["Home", "ArrowLeft", "ArrowLeft"]):
        states.append((f"keys {' '.join(keys)}", {"kind": "keys", "keys": keys}, _press(start, keys, n_min, n_max)))
    for value in (n_min, 13, 32, 48, n_max):
        states.append((f"fill {value}", {"kind": "fill", "value": value}, value))
    for presses in (["double"], ["double", "double", "double", "double"], ["halve", "halve"]):
        states.append((f"buttons {' '.join(presses)}", {"kind": "buttons", "presses": presses},
                       _buttons(start, presses, n_min, n_max)))
    return [{"name": name, "action": action, "n": n, "count": format_count(sa.cost.score_count(n))}
            for name, action, n in states]


def grid_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, for the lab configured by ``config``.

    It holds the test states of :func:`grid_states` and the formatted count
    of every ``n`` the slider can reach, so a drag to any position can be
    checked. The tests read ``config`` from the built page and call this
    function: the expected numbers never ship in the public page.

    Parameters
    ----------
    config : dict
        From :func:`grid_config` (or the page's JSON of it).

    Returns
    -------
    dict
        ``min``, ``max``, ``counts`` (``str(n)`` to the formatted count)
        and ``states``.

    Raises
    ------
    TypeError, ValueError
        As :func:`grid_config`.

    Examples
    --------
    >>> f = grid_fixture(grid_config())
    >>> f["counts"]["64"], len(f["counts"]), f["states"][0]["n"]
    ('4,096', 61, 8)
    """
    n_min, n_max = config["min"], config["max"]
    return {
        "min": n_min,
        "max": n_max,
        "counts": {str(n): format_count(sa.cost.score_count(n)) for n in range(n_min, n_max + 1)},
        "states": grid_states(config),
    }


def _press(n: int, keys: Sequence[str], n_min: int, n_max: int) -> int:
    """Where keys on a focused ``<input type=range>`` with step 1 move ``n``."""
    moves = {"ArrowRight": 1, "ArrowUp": 1, "ArrowLeft": -1, "ArrowDown": -1}
    for key in keys:
        if key == "Home":
            n = n_min
        elif key == "End":
            n = n_max
        else:
            n = min(n_max, max(n_min, n + moves[key]))
    return n


def _buttons(n: int, presses: Sequence[str], n_min: int, n_max: int) -> int:
    """Where the double and halve buttons take ``n`` (a disabled button does nothing)."""
    for press in presses:
        if press == "double" and 2 * n <= n_max:
            n *= 2
        elif press == "halve" and n % 2 == 0 and n // 2 >= n_min:
            n //= 2
    return n
