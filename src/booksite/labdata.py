"""Large lab configurations leave the page: a phone gets the text first.

A lab's configuration is a ``<script type="application/json"
class="sa-lab-config">`` block inside the lab (see :mod:`booktools.html`).
The explorer's holds a whole model's scores, 200 KB, which a phone on a slow
network would download and parse before it could show the page's first
paragraph. After the build, every configuration larger than
:data:`LIMIT_BYTES` moves to its own file, ``_labdata/<page>-<n>.json``; the
block stays, empty, with a ``data-src`` that names the file, and
``_static/sa/sa.js`` fetches it when it mounts the lab.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from booktools.labs.contract import CONFIG_BLOCK, CONFIG_CLASS, CONFIG_SRC_ATTR, CONFIG_TYPE

#: Configurations up to this size stay in the page.
LIMIT_BYTES = 16 * 1024
DATA_DIR = "_labdata"



def move_large_configs(page_html: str, stem: str, depth: int = 0,
                       limit: int = LIMIT_BYTES) -> tuple[str, dict[str, str]]:
    """Replace each large configuration block by a reference to a file.

    Parameters
    ----------
    page_html : str
        The page.
    stem : str
        The page's name, without ``.html`` (``a/b`` for ``a/b.html``).
    depth : int
        How many folders down the page is (``a/b.html``: 1).
    limit : int
        Largest configuration, in bytes, that stays in the page.

    Returns
    -------
    tuple of (str, dict)
        The new page, and the files to write: path under the site's root to JSON text.

    Raises
    ------
    ValueError
        If ``limit`` is negative.

    Examples
    --------
    >>> page = '<div><script type="application/json" class="sa-lab-config">{"x": [1, 2, 3]}</script></div>'
    >>> new, files = move_large_configs(page, "ch", limit=4)
    >>> new
    '<div><script type="application/json" class="sa-lab-config" data-src="_labdata/ch-1.json"></script></div>'
    >>> files
    {'_labdata/ch-1.json': '{"x": [1, 2, 3]}'}
    >>> move_large_configs(page, "ch")[1]  # small: stays
    {}
    """
    if limit < 0:
        raise ValueError(f"limit must be at least 0 bytes, got {limit}")
    files: dict[str, str] = {}

    def move(m: re.Match) -> str:
        body = m.group("body")
        if m.group("src") is not None or len(body.encode("utf-8")) <= limit:
            return m.group(0)
        name = f"{DATA_DIR}/{stem.replace('/', '-')}-{len(files) + 1}.json"
        # In the page, "</" inside JSON is written "<\/"; as a file it can be plain again.
        files[name] = body.replace("<\\/", "</")
        src = html.escape("../" * depth + name, quote=True)
        return f'<script type="{CONFIG_TYPE}" class="{CONFIG_CLASS}" {CONFIG_SRC_ATTR}="{src}"></script>'

    return CONFIG_BLOCK.sub(move, page_html), files


def _build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page in sorted(out.rglob("*.html")):
        rel = page.relative_to(out)
        if rel.parts[0].startswith("_"):
            continue
        text = page.read_text(encoding="utf-8")
        new, files = move_large_configs(text, rel.with_suffix("").as_posix(), depth=len(rel.parts) - 1)
        for name, body in files.items():
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            (out / name).write_text(body, encoding="utf-8")
        if files:
            page.write_text(new, encoding="utf-8")


def setup_labdata(app) -> None:
    """Move the large lab configurations out of the pages when the build ends.

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def connect(self, event, handler): self.event = event
    >>> app = App()
    >>> setup_labdata(app)
    >>> app.event
    'build-finished'
    """
    app.connect("build-finished", _build_finished)

