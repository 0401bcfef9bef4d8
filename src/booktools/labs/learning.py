"""The "learning" lab of the chapter "Nobody designs these matrices: learning where to look".

One number ``c`` sets the query matrix ``W_Q = [[0, 0], [c, 0]]`` of the
apple/sweet head. The reader takes 1, 10 or 200 steps of gradient descent,
or sets ``c`` with a slider, and watches the loss curve over ``c`` (drawn
as far as training has gone), the current loss, the gradient and the next
step. The page emits the element (:func:`learning_lab`) with its
configuration (:func:`learning_config`); ``_static/sa/labs/learning.js``
computes the steps with the shared ``maths.js``. The browser tests compare
the lab with :func:`learning_fixture`, computed by the package from the
page's configuration.
"""

from __future__ import annotations

import selfattention as sa
from selfattention import learning

from ..formatting import fmt
from ..html import HTMLBlock
from .contract import FALLBACK_CLASS
from .element import lab_element

#: The step buttons: how many steps of gradient descent each one takes.
BUTTONS = (1, 10, 200)
#: The slider for c: lowest, highest, and one step (an arrow key).
SLIDER = {"min": -2.0, "max": 8.0, "step": 0.1}
#: The loss axis of the plot runs from 0 to this (the loss at c = -2 is below it).
LOSS_MAX = 1.5
#: Decimals of each number the lab shows.
DECIMALS = {"c": 3, "weight": 3, "loss": 4, "gradient": 4, "step": 4}


def learning_config(c0: float = 0.0, learning_rate: float = learning.LEARNING_RATE) -> dict:
    """The lab's JSON configuration.

    Parameters
    ----------
    c0 : float, default 0.0
        Where ``c`` starts (and where Reset puts it back).
    learning_rate : float, default :data:`selfattention.learning.LEARNING_RATE`
        The step size of gradient descent.

    Returns
    -------
    dict
        ``words``, ``c0``, ``learning_rate``, ``buttons``, ``slider``,
        ``loss_max`` and ``decimals``.

    Raises
    ------
    TypeError, ValueError
        If ``c0`` or ``learning_rate`` is not a finite number, the learning
        rate is not positive, or ``c0`` lies outside the slider.

    Examples
    --------
    >>> c = learning_config()
    >>> c["c0"], c["learning_rate"], c["buttons"]
    (0.0, 1.0, [1, 10, 200])
    """
    sa.gradient_step(c0, learning_rate)   # raises a clear error for a bad c0 or learning rate
    c0 = float(c0)
    if not SLIDER["min"] <= c0 <= SLIDER["max"]:
        raise ValueError(f"c0 must lie on the slider, from {SLIDER['min']} to {SLIDER['max']}, got {c0}")
    return {"words": list(learning.APPLE_SWEET), "c0": c0, "learning_rate": float(learning_rate),
            "buttons": list(BUTTONS), "slider": dict(SLIDER), "loss_max": LOSS_MAX, "decimals": dict(DECIMALS)}


def learning_lab(*, lab_id: str = "learning-lab", **options) -> HTMLBlock:
    """The lab's element, with a short text for readers without JavaScript.

    Parameters
    ----------
    lab_id : str, default "learning-lab", keyword-only
        The ``id`` of the element.
    **options
        Passed to :func:`learning_config`.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    TypeError, ValueError
        As :func:`learning_config`.

    Examples
    --------
    >>> learning_lab().markup.startswith('<div class="sa-lab" data-lab="learning" id="learning-lab">')
    True
    """
    config = learning_config(**options)
    fallback = (f'<p class="{FALLBACK_CLASS}">This lab needs JavaScript. Without it, the table of steps '
                "below gives the same numbers after 1, 10 and 200 steps.</p>")
    return lab_element("learning", lab_id, config, fallback)


def learning_shown(c: float, steps: int, config: dict) -> dict:
    """The numbers the lab shows at ``c`` after ``steps`` steps, as strings.

    Parameters
    ----------
    c : float
        The current ``c``.
    steps : int
        Steps taken since the start (or since the slider last moved).
    config : dict
        The lab's configuration (its learning rate and decimals).

    Returns
    -------
    dict
        ``c``, ``weight`` (sweet's weight on apple), ``loss``, ``gradient``,
        ``step`` (the next step, ``-learning_rate * gradient``) and ``steps``.

    Examples
    --------
    >>> learning_shown(0.0, 0, learning_config())
    {'c': '0.000', 'weight': '0.500', 'loss': '0.5000', 'gradient': '-0.3536', 'step': '0.3536', 'steps': '0'}
    """
    d = config["decimals"]
    r = sa.apple_sweet_loss(c)
    g = sa.apple_sweet_gradient(c)
    return {"c": fmt(c, d["c"]), "weight": fmt(r["weight"], d["weight"]), "loss": fmt(r["loss"], d["loss"]),
            "gradient": fmt(g, d["gradient"]), "step": fmt(-config["learning_rate"] * g, d["step"]),
            "steps": str(steps)}


def _slide(c: float, keys, slider: dict) -> float:
    """Where arrow keys, Home and End put the slider's value from ``c`` (as a range input does)."""
    lo, hi, step = slider["min"], slider["max"], slider["step"]
    n = round((c - lo) / step)                       # the slider shows c on its grid
    top = round((hi - lo) / step)
    for key in keys:
        n = {"ArrowRight": n + 1, "ArrowUp": n + 1, "ArrowLeft": n - 1, "ArrowDown": n - 1,
             "Home": 0, "End": top}[key]
        n = min(top, max(0, n))
    return round(lo + n * step, 10)


def learning_fixture(config: dict) -> dict:
    """What the browser tests compare the lab with, computed from the page's configuration.

    Each state starts from Reset and lists its ``actions``: presses of a step
    button (``{"kind": "steps", "n": 10}``) or keys on the focused slider
    (``{"kind": "keys", "keys": [...]}``). ``shown`` is what the lab must
    then show (:func:`learning_shown`).

    Parameters
    ----------
    config : dict
        From :func:`learning_config` (or the page's JSON of it).

    Returns
    -------
    dict
        ``states``: ``name``, ``actions``, ``c``, ``steps`` and ``shown``.

    Examples
    --------
    >>> f = learning_fixture(learning_config())
    >>> [(s["name"], s["shown"]["c"]) for s in f["states"]][:4]
    [('start', '0.000'), ('1 step', '0.354'), ('10 steps', '1.960'), ('200 steps', '4.572')]
    """
    lr = config["learning_rate"]
    plans = [
        ("start", []),
        ("1 step", [{"kind": "steps", "n": 1}]),
        ("10 steps", [{"kind": "steps", "n": 10}]),
        ("200 steps", [{"kind": "steps", "n": 200}]),
        ("1 then 10 steps", [{"kind": "steps", "n": 1}, {"kind": "steps", "n": 10}]),
        ("slider right 5", [{"kind": "keys", "keys": ["ArrowRight"] * 5}]),
        ("slider right 5, then 1 step", [{"kind": "keys", "keys": ["ArrowRight"] * 5}, {"kind": "steps", "n": 1}]),
        ("slider left 12", [{"kind": "keys", "keys": ["ArrowLeft"] * 12}]),
        ("slider End, then 10 steps", [{"kind": "keys", "keys": ["End"]}, {"kind": "steps", "n": 10}]),
        ("200 steps, then slider Home", [{"kind": "steps", "n": 200}, {"kind": "keys", "keys": ["Home"]}]),
    ]
    states = []
    for name, actions in plans:
        c, steps = float(config["c0"]), 0
        for a in actions:
            if a["kind"] == "steps":
                c = float(sa.descend(c, a["n"], lr)[-1])
                steps += a["n"]
            else:
                c, steps = _slide(c, a["keys"], config["slider"]), 0
        states.append({"name": name, "actions": actions, "c": c, "steps": steps,
                       "shown": learning_shown(c, steps, config)})
    return {"states": states}
