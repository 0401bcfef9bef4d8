"""The book's interactive labs: one module per JavaScript lab.

Each module builds its lab's configuration (from the package's numbers) and
the element a page emits, and computes the lab's test states from that
configuration. ``_static/sa/labs/NAME.js`` draws lab ``NAME``; the browser
tests read the configuration from the built page and compare the lab with
:func:`fixture` of it.

======================  ==============================================
lab (``data-lab``)      module
======================  ==============================================
``weighted-average``    :mod:`booktools.labs.weighted_average`
``explorer``            :mod:`booktools.labs.explorer`
``grid``                :mod:`booktools.labs.grid`
``referent-game``       :mod:`booktools.labs.referent_game`
``three-moves``         :mod:`booktools.labs.three_moves`
``qkv``                 :mod:`booktools.labs.qkv`
``qkv-trace``           :mod:`booktools.labs.qkv_trace`
``learning``            :mod:`booktools.labs.learning`
``temperature``         :mod:`booktools.labs.temperature`
``mask``                :mod:`booktools.labs.mask`
``generation``          :mod:`booktools.labs.generation`
``position-dial``       :mod:`booktools.labs.position_dial`
``copying``             :mod:`booktools.labs.copying`
``several-heads``       :mod:`booktools.labs.several_heads`
``training``            :mod:`booktools.labs.training`
``writer``              :mod:`booktools.labs.writer`
======================  ==============================================

The names both sides of a lab agree on (the element's class, ``data-lab``,
the configuration block, ...) live in :mod:`booktools.labs.contract`, and
in ``_static/sa/contract.js`` for the JavaScript. The explorer keeps its gallery, its
"Compute" button and its export in :mod:`booktools.labs.explorer_gallery`,
:mod:`booktools.labs.explorer_compute` and :mod:`booktools.labs.explorer_export`.
"""

from __future__ import annotations

from . import (
    contract,
    copying,
    explorer,
    generation,
    grid,
    learning,
    mask,
    position_dial,
    qkv,
    qkv_trace,
    referent_game,
    several_heads,
    temperature,
    three_moves,
    training,
    weighted_average,
    writer,
)

#: Each lab's name (its ``data-lab`` and JavaScript module) and its fixture builder.
FIXTURES = {
    "weighted-average": weighted_average.weighted_average_fixture,
    "explorer": explorer.explorer_fixture,
    "grid": grid.grid_fixture,
    "referent-game": referent_game.referent_game_fixture,
    "three-moves": three_moves.three_moves_fixture,
    "qkv": qkv.qkv_fixture,
    "qkv-trace": qkv_trace.qkv_trace_fixture,
    "learning": learning.learning_fixture,
    "temperature": temperature.temperature_fixture,
    "mask": mask.mask_fixture,
    "generation": generation.generation_fixture,
    "position-dial": position_dial.position_dial_fixture,
    "copying": copying.copying_fixture,
    "several-heads": several_heads.several_heads_fixture,
    "training": training.training_fixture,
    "writer": writer.writer_fixture,
}


def fixture(name: str, config: dict) -> dict:
    """The package's values for the test states of lab ``name`` configured by ``config``.

    Parameters
    ----------
    name : str
        The lab's name, a key of :data:`FIXTURES`.
    config : dict
        The lab's configuration, as the page holds it.

    Returns
    -------
    dict
        The lab's fixture: ``states`` and what else its tests need.

    Raises
    ------
    ValueError
        If there is no lab ``name``.

    Examples
    --------
    >>> fixture("grid", grid.grid_config())["states"][0]["count"]
    '64'
    >>> fixture("slider", {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: no lab 'slider'; the labs are ['weighted-average', 'explorer', 'grid', ...]
    """
    if name not in FIXTURES:
        raise ValueError(f"no lab {name!r}; the labs are {list(FIXTURES)}")
    return FIXTURES[name](config)


__all__ = [
    "FIXTURES", "contract", "explorer", "fixture", "generation", "grid", "learning", "mask", "position_dial", "qkv",
    "qkv_trace", "referent_game", "temperature", "three_moves", "training", "weighted_average", "writer",
]
