"""The element a lab mounts on, with its configuration and a text for readers without JavaScript."""

from __future__ import annotations

from ..html import HTMLBlock
from .contract import config_block, lab_open_tag


def lab_element(name: str, lab_id: str, config, fallback: str) -> HTMLBlock:
    """The element a lab mounts on: ``<div class="sa-lab" data-lab=NAME id=LAB_ID>``.

    ``_static/sa/sa.js`` imports ``_static/sa/labs/NAME.js`` and calls its
    ``mount`` with ``config``, read from a ``<script
    type="application/json" class="sa-lab-config">`` block (data, never
    executed).

    Parameters
    ----------
    name : str
        The lab's name: its module is ``labs/NAME.js``.
    lab_id : str
        The element's ``id``.
    config : dict
        The lab's configuration, computed by the package (JSON-serialisable).
    fallback : str
        Markup that readers without JavaScript see; the lab removes it.

    Returns
    -------
    HTMLBlock

    Examples
    --------
    >>> lab_element("grid", "g1", {"n": 4}, "<p>needs JavaScript</p>").markup[:44]
    '<div class="sa-lab" data-lab="grid" id="g1">'
    """
    return HTMLBlock(f"{lab_open_tag(name, lab_id)}{config_block(config)}{fallback}</div>")
