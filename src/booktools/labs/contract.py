"""The HTML contract between the book's Python and its labs' JavaScript, named once.

A page cell emits a lab's element; ``_static/sa/sa.js`` finds it, imports
``_static/sa/labs/NAME.js`` and mounts it. Both sides agree on a few names:
the element's class, the attribute that names the lab, the class of its JSON
configuration, and so on. This module names them for Python;
``_static/sa/contract.js`` names them for JavaScript, with the same names and
values (``tests/booktools/labs/test_contract.py`` checks that the two agree,
and that no other lab module spells them out).

======================  ==============================================
name                    what it is
======================  ==============================================
``LAB_CLASS``           class of the element a lab mounts on
``NAME_ATTR``           attribute naming the lab: its module ``labs/NAME.js``
``NAME_PATTERN``        what a lab's name may be made of
``CONFIG_CLASS``        class of the lab's ``<script>`` configuration block
``CONFIG_TYPE``         that block's ``type``: data, never executed
``CONFIG_SRC_ATTR``     attribute of an emptied block naming the file that holds the configuration
``FALLBACK_CLASS``      class of the text shown without JavaScript; the lab removes it
``READY_CLASS``         class the element gets once its lab is drawn and styled
``TRACE_STEPS_CLASS``   class of the page-made steps of the ``qkv-trace`` lab
``TRACE_STEP_CLASS``    class of each of those steps
======================  ==============================================
"""

from __future__ import annotations

import re

from ..html import esc, json_data

LAB_CLASS = "sa-lab"
NAME_ATTR = "data-lab"
NAME_PATTERN = "^[a-z0-9-]+$"
CONFIG_CLASS = "sa-lab-config"
CONFIG_TYPE = "application/json"
CONFIG_SRC_ATTR = "data-src"
FALLBACK_CLASS = "sa-lab-fallback"
READY_CLASS = "sa-lab-ready"
TRACE_STEPS_CLASS = "sa-trace-steps"
TRACE_STEP_CLASS = "sa-trace-step"

#: Every name of the contract and its value, as ``contract.js`` exports them.
CONTRACT = {
    "LAB_CLASS": LAB_CLASS, "NAME_ATTR": NAME_ATTR, "NAME_PATTERN": NAME_PATTERN,
    "CONFIG_CLASS": CONFIG_CLASS, "CONFIG_TYPE": CONFIG_TYPE, "CONFIG_SRC_ATTR": CONFIG_SRC_ATTR,
    "FALLBACK_CLASS": FALLBACK_CLASS, "READY_CLASS": READY_CLASS,
    "TRACE_STEPS_CLASS": TRACE_STEPS_CLASS, "TRACE_STEP_CLASS": TRACE_STEP_CLASS,
}

_NAME = NAME_PATTERN.strip("^$")

#: A lab's opening tag in a built page: groups ``name`` and ``id``.
LAB_TAG = re.compile(
    rf'<div class="{LAB_CLASS}" {NAME_ATTR}="(?P<name>{_NAME})" id="(?P<id>[\w-]+)">')

#: A configuration block in a built page: groups ``src`` (if it was moved to a file) and ``body``.
CONFIG_BLOCK = re.compile(
    rf'<script type="{CONFIG_TYPE}" class="{CONFIG_CLASS}"(?: {CONFIG_SRC_ATTR}="(?P<src>[^"]+)")?>'
    r"(?P<body>.*?)</script>", re.S)


def lab_open_tag(name: str, lab_id: str) -> str:
    """The opening tag of the element lab ``name`` mounts on.

    Parameters
    ----------
    name : str
        The lab's name (:data:`NAME_PATTERN`): its module is ``labs/NAME.js``.
    lab_id : str
        The element's ``id``.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``name`` does not match :data:`NAME_PATTERN` (``sa.js`` would not mount it).

    Examples
    --------
    >>> lab_open_tag("grid", "g1")
    '<div class="sa-lab" data-lab="grid" id="g1">'
    >>> LAB_TAG.match(lab_open_tag("grid", "g1"))["name"]
    'grid'
    >>> lab_open_tag("Grid", "g1")
    Traceback (most recent call last):
    ...
    ValueError: a lab's name is made of a-z, 0-9 and '-', got 'Grid'
    """
    if not isinstance(name, str) or not re.fullmatch(_NAME, name):
        raise ValueError(f"a lab's name is made of a-z, 0-9 and '-', got {name!r}")
    return f'<div class="{LAB_CLASS}" {NAME_ATTR}="{esc(name)}" id="{esc(lab_id)}">'


def config_block(config) -> str:
    """A lab's configuration as the data block ``sa.js`` reads (never executed).

    Parameters
    ----------
    config : dict
        JSON-serialisable.

    Returns
    -------
    str

    Examples
    --------
    >>> block = config_block({"n": 4})
    >>> block
    '<script type="application/json" class="sa-lab-config">{"n": 4}</script>'
    >>> CONFIG_BLOCK.match(block)["body"]
    '{"n": 4}'
    """
    return json_data(config, CONFIG_CLASS)


__all__ = [
    "CONFIG_BLOCK", "CONFIG_CLASS", "CONFIG_SRC_ATTR", "CONFIG_TYPE", "CONTRACT", "FALLBACK_CLASS", "LAB_CLASS",
    "LAB_TAG", "NAME_ATTR", "NAME_PATTERN", "READY_CLASS", "TRACE_STEPS_CLASS", "TRACE_STEP_CLASS", "config_block",
    "lab_open_tag",
]
