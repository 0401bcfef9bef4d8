"""The "training" lab of the chapter "Two heads that learned to copy": the reader trains the copying model live.

The reader presses "Train" and the book's in-browser Python (the runtime of
the page's Run buttons, in a Worker of the lab's own) trains the chapter's
model with the package's own stepper,
:class:`selfattention.induction.training.Run`: one Adam step on a fresh
batch per step, the same float64 NumPy code as ``python -m
selfattention.induction``. The lab draws the loss of the part of each batch
that a copy determines and of the rest, step by step, and every head's
previous-token and induction scores at each checkpoint; it marks the step
where the heads have formed by the lab's rule: the first checkpoint where
the last layer's best induction score reaches the classic test's target,
:data:`selfattention.induction.circuits.SCORE_TARGET`. Pause,
Resume and Restart (with a seed and a design of the reader's choosing) work
between two messages to Python, each a fraction of a second of training.

Nothing is downloaded before the press: the runtime (which the browser
keeps for the Run buttons and the other labs) comes from this site. The
Python side is :data:`BROWSER_CODE`, one small code string; the lab's
JavaScript is ``_static/sa/labs/training.js``. The browser test runs the lab
and compares its losses with :func:`training_fixture`, which the package
computes from the page's own configuration.
"""

from __future__ import annotations

import math
import numbers

from selfattention.induction import circuits as _circuits
from selfattention.induction import model as _model
from selfattention.induction import training as _training

from ..html import HTMLBlock, esc
from .contract import FALLBACK_CLASS
from .element import lab_element

#: The designs the reader can train: where the learned positions enter the model (``Sizes.positions``).
DESIGNS = {
    "qk0": "only into layer 0's queries and keys (the chapter's model)",
    "stream": "into the residual stream, as in GPT-2",
}
#: Seconds of training per message to Python: Pause answers within about this, plus one step.
BUDGET_S = 0.25
#: The largest seed the lab accepts (NumPy takes any whole number from 0; a box wants a bound).
MAX_SEED = 2**32 - 1
#: Decimals of the losses and scores the lab shows.
DECIMALS = {"loss": 2, "score": 2}
#: How many steps of the lab's first run the browser test compares with the package's.
FIXTURE_STEPS = 200
#: How many steps of the run after a restart (:data:`RESTART`) the browser test compares.
RESTART_STEPS = 25
#: The restart the test makes: another seed, the other design.
RESTART = {"seed": 1, "design": "stream"}

#: The lab's Python, run by the browser's Python in the page's Worker (``training.js`` calls
#: ``_sa_train_start`` and ``_sa_train_steps``; each prints one JSON line). A step is
#: ``[step, loss, repeated_loss, rest_loss]``; a checkpoint names each head's scores, one list
#: per layer, and the held-out repeated-part loss. The design is ``Run``'s ``sizes.positions``.
#: The code itself is in this module's source.
#:
#: :meta hide-value:
BROWSER_CODE = '''
import json as _json, math as _math, time as _time
from selfattention.induction.model import SIZES as _SIZES
from selfattention.induction.training import Run as _Run

def _sa_number(x):
    x = float(x)
    return x if _math.isfinite(x) else None

def _sa_checkpoint():
    c = _sa_run.checkpoint()
    return {"step": c["step"], "previous": c["previous"], "induction": c["induction"],
            "held_out": _sa_number(c["repeated_loss"])}

def _sa_train_start(seed, positions):
    global _sa_run
    _sa_run = _Run(seed=seed, sizes=_SIZES._replace(positions=positions))
    print(_json.dumps({"steps": [], "checkpoints": [_sa_checkpoint()]}))

def _sa_train_steps(seconds, every, last):
    steps, checkpoints, end = [], [], _time.perf_counter() + seconds
    while _sa_run.done < last:
        s = _sa_run.step()
        steps.append([s["step"], *(_sa_number(s[k]) for k in ("loss", "repeated_loss", "rest_loss"))])
        if s["step"] % every == 0:
            checkpoints.append(_sa_checkpoint())
        if _time.perf_counter() >= end:
            break
    print(_json.dumps({"steps": steps, "checkpoints": checkpoints}))
'''


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a whole number from 0 to {MAX_SEED}, got {seed!r}")
    return int(seed)


def _check_design(design) -> str:
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {list(DESIGNS)}, got {design!r}")
    return design


def training_config(seed: int = _training.SEED, design: str | None = None) -> dict:
    """The lab's JSON configuration: the run it starts with, the package's sizes and the code it runs.

    Parameters
    ----------
    seed : int, default :data:`selfattention.induction.training.SEED`
        The seed the seed box starts with (the chapter's run).
    design : {"qk0", "stream"}, optional
        Where the positions enter, chosen at the start: a key of
        :data:`DESIGNS`. By default the package's model's (``SIZES.positions``).

    Returns
    -------
    dict
        ``seed``, ``design``, ``designs`` (``[value, label]`` pairs),
        ``max_seed``, ``every`` (steps between checkpoints), ``steps`` (the
        schedule's length: the lab stops there), ``heads`` (heads per
        layer), ``vocab`` (``V``, the symbols) and ``guess`` (``ln V``, the
        loss of a uniform guess),
        ``formed`` (the induction score that marks the heads as formed:
        :data:`~selfattention.induction.circuits.SCORE_TARGET`), ``budget`` (:data:`BUDGET_S`),
        ``decimals`` and ``code`` (:data:`BROWSER_CODE`).

    Raises
    ------
    ValueError
        If ``seed`` is not a whole number from 0 to :data:`MAX_SEED`, or
        ``design`` is not a key of :data:`DESIGNS`.

    Examples
    --------
    >>> c = training_config()
    >>> c["seed"], c["design"], c["heads"], c["every"], round(c["guess"], 3)
    (0, 'qk0', [2, 1], 25, 3.951)
    >>> "_sa_train_steps" in c["code"]
    True
    >>> training_config(seed=-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be a whole number from 0 to 4294967295, got -1
    """
    sizes = _model.SIZES
    return {
        "seed": _check_seed(seed), "design": _check_design(sizes.positions if design is None else design),
        "designs": [[value, label] for value, label in DESIGNS.items()], "max_seed": MAX_SEED,
        "every": int(_training.EVAL_EVERY), "steps": int(_training.STEPS), "heads": [int(h) for h in sizes.heads],
        "vocab": int(sizes.vocab), "guess": math.log(sizes.vocab), "formed": float(_circuits.SCORE_TARGET),
        "budget": BUDGET_S,
        "decimals": dict(DECIMALS), "code": BROWSER_CODE,
    }


def _losses(seed: int, design: str, steps: int) -> list[list[float]]:
    """The package's first ``steps`` steps of a run of the book's length: ``[step, loss, repeated_loss, rest_loss]``."""
    run = _training.train(seed=seed, steps=steps, schedule_steps=_training.STEPS,
                          sizes=_model.SIZES._replace(positions=design))
    h = run["history"]
    return [[int(h["step"][i]), float(h["loss"][i]), float(h["repeated_loss"][i]), float(h["rest_loss"][i])]
            for i in range(steps)]


def training_fixture(config: dict, *, steps: int = FIXTURE_STEPS, restart_steps: int = RESTART_STEPS) -> dict:
    """What the browser test compares the lab with: the package's losses for the lab's test runs.

    Parameters
    ----------
    config : dict
        From :func:`training_config` (or the page's JSON of it).
    steps, restart_steps : int, keyword-only
        Steps of the first run (the page's seed and design), and of the run
        after a restart with :data:`RESTART`'s seed and design.

    Returns
    -------
    dict
        ``states``: ``name``, ``seed``, ``design`` and ``steps``, each step
        ``[step, loss, repeated_loss, rest_loss]`` as
        :func:`~selfattention.induction.training.train` gives them (one
        BLAS thread; the lab's :class:`~selfattention.induction.training.Run`
        takes the same steps).

    Examples
    --------
    >>> f = training_fixture(training_config(), steps=2, restart_steps=1)
    >>> [(s["seed"], s["design"], len(s["steps"])) for s in f["states"]]
    [(0, 'qk0', 2), (1, 'stream', 1)]
    >>> f["states"][0]["steps"][1][0]
    2
    """
    first = {"name": "first run", "seed": config["seed"], "design": config["design"]}
    again = {"name": "after a restart", **RESTART}
    return {"states": [{**first, "steps": _losses(first["seed"], first["design"], steps)},
                       {**again, "steps": _losses(again["seed"], again["design"], restart_steps)}]}


def training_lab(*, lab_id: str = "train-lab", seed: int = _training.SEED, design: str | None = None) -> HTMLBlock:
    """The lab's element: configuration and a text for readers without JavaScript.

    Parameters
    ----------
    lab_id : str, default "train-lab", keyword-only
        The ``id`` of the element.
    seed, design : keyword-only
        As :func:`training_config`.

    Returns
    -------
    HTMLBlock

    Raises
    ------
    ValueError
        As :func:`training_config`.

    Examples
    --------
    >>> training_lab().markup.startswith('<div class="sa-lab" data-lab="training" id="train-lab">')
    True
    """
    config = training_config(seed, design)
    fallback = (f'<p class="{FALLBACK_CLASS}">This lab trains the model in your browser, which needs '
                "JavaScript and WebAssembly. Without them, the same training runs on your computer: "
                f"<code>{esc('python -m selfattention.induction')}</code>.</p>")
    return lab_element("training", lab_id, config, fallback)


__all__ = ["BROWSER_CODE", "BUDGET_S", "DECIMALS", "DESIGNS", "FIXTURE_STEPS", "MAX_SEED", "RESTART", "RESTART_STEPS",
           "training_config", "training_fixture", "training_lab"]
