"""The explorer's export: the heatmap on screen, saved as PNG or SVG, and its file name.

The lab's JavaScript (``_static/sa/labs/explorer-export.js``) draws the file;
:func:`export_stem` is the name it gives it, which the browser tests compare.
"""

from __future__ import annotations

import re
import unicodedata

from ..head_weights import MEAN

#: Longest sentence part of an export's file name, in characters.
STEM_WORDS = 40


def export_stem(sentence: str, layer: int, head, temperature: float) -> str:
    """The name, without extension, of the lab's exported heatmap.

    The sentence is slugged (accents dropped, lower case, every run of other
    characters one ``-``) and cut at a word to :data:`STEM_WORDS`
    characters; the lab's JavaScript names its files the same way.

    Parameters
    ----------
    sentence : str
        The sentence shown.
    layer : int
        The layer shown.
    head : int or "mean"
        The head shown, or the average of the layer's heads.
    temperature : float
        The temperature ``T`` shown.

    Returns
    -------
    str
        ``attention-<sentence>-layer<l>-head<h>-t<T>`` (``average`` for the
        mean of the heads, ``T`` with two decimals).

    Examples
    --------
    >>> export_stem("The animal didn't cross the street because it was too wide.", 4, 0, 1.0)
    'attention-the-animal-didn-t-cross-the-street-layer4-head0-t1.00'
    >>> export_stem("Café, déjà vu!", 0, "mean", 0.25)
    'attention-cafe-deja-vu-layer0-headaverage-t0.25'
    >>> export_stem("\\u6771\\u4eac", 5, 11, 2)   # "Tokyo" in kanji: no letter a to z
    'attention-sentence-layer5-head11-t2.00'
    """
    plain = "".join(c for c in unicodedata.normalize("NFKD", sentence) if not unicodedata.combining(c))
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    if len(slug) > STEM_WORDS:
        cut = slug[:STEM_WORDS + 1]
        slug = cut[:cut.rfind("-")] if "-" in cut else slug[:STEM_WORDS]
    head_name = "average" if head == MEAN else str(int(head))
    return f"attention-{slug or 'sentence'}-layer{int(layer)}-head{head_name}-t{float(temperature):.2f}"


__all__ = ["STEM_WORDS", "export_stem"]
