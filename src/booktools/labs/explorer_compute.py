"""The explorer's "Compute" button: the reader's own sentence, run in the browser.

The lab (:mod:`booktools.labs.explorer`) takes the reader's own sentence: its
"Compute" button runs :func:`booktools.labs.explorer_browser.explore` in the
book's in-browser Python, on the model's float16 files that the site ships
(:func:`compute_config` says where). Nothing is downloaded before the
reader presses it. The lab shows those weights as it shows the gallery's.
"""

from __future__ import annotations

import numbers
from pathlib import Path

#: The longest sentence that "Compute" takes, in tokens with [CLS] and [SEP] (the model takes 512).
MAX_TOKENS = 128

#: Where the site keeps the model's files (``model.json`` lists them), from the site's root.
MODEL_SITE_DIR = "_static/model/"

#: Where the in-browser Python finds them.
MODEL_BROWSER_DIR = "/home/reader/model"

#: The command-line explorer, for a browser that cannot run the book's Python.
COMMAND = "python -m booktools.show_attention"

# Read as text, never imported here: the browser's Python runs it.
_BROWSER_CODE = Path(__file__).with_name("explorer_browser.py")


def compute_config(max_tokens: int = MAX_TOKENS) -> dict:
    """What the lab's "Compute" button needs: the code it runs and where the model is.

    Parameters
    ----------
    max_tokens : int, default ``MAX_TOKENS``
        The longest sentence accepted, in tokens (at most the model's 512).

    Returns
    -------
    dict
        ``max_tokens``; ``model`` (the site's folder of the model files,
        :data:`MODEL_SITE_DIR`); ``dir`` (the same files in the browser's
        Python, :data:`MODEL_BROWSER_DIR`); ``code`` (the source of
        :mod:`booktools.labs.explorer_browser`) and ``call`` (the function
        to call, :func:`~booktools.labs.explorer_browser.explore`);
        ``command`` (:data:`COMMAND`).

    Raises
    ------
    ValueError
        If ``max_tokens`` is not a whole number from 3 to 512.

    Examples
    --------
    >>> c = compute_config()
    >>> c["max_tokens"], c["model"], c["call"], "def explore(" in c["code"]
    (128, '_static/model/', 'explore', True)
    >>> compute_config(600)
    Traceback (most recent call last):
    ...
    ValueError: max_tokens must be a whole number from 3 to 512, got 600
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, numbers.Integral) or not 3 <= max_tokens <= 512:
        raise ValueError(f"max_tokens must be a whole number from 3 to 512, got {max_tokens!r}")
    return {
        "max_tokens": int(max_tokens),
        "model": MODEL_SITE_DIR,
        "dir": MODEL_BROWSER_DIR,
        "code": _BROWSER_CODE.read_text(encoding="utf-8"),
        "call": "explore",
        "command": COMMAND,
    }


__all__ = ["COMMAND", "MAX_TOKENS", "MODEL_BROWSER_DIR", "MODEL_SITE_DIR", "compute_config"]
