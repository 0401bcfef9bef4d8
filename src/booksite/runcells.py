"""Run buttons: a page's code cells and code exercises run in the reader's browser.

How a page opts in:

* a code cell tagged ``run`` (``:tags: [run]``) gets a Run button; its output
  appears under it. Running a cell first runs the ``run`` cells above it that
  have not run yet, in page order, so its variables exist;
* every code exercise (a ``python`` block inside ``:::{exercise}`` that calls
  one of the package's checkers, ``sa.check_...``) becomes an editable cell
  with its starter code and a Run button, on every page.

Nothing changes in the HTML that the build writes: ``run.js`` (a small
module added only to pages that have such cells) adds the buttons, so the
page is complete without it. Python itself (about 27 MB) is downloaded at
the first Run, never before.

The runtime files come from :mod:`booksite.runtime`; they are copied to
``_static/sa/run/runtime/`` when the build ends. The directive
``{runtime-licences}`` lists their licence notices.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive

from .runtime import DEFAULT_OUT, WHEEL_REQUIREMENT, build, copy_into

#: Where the runtime files live in the site.
SITE_DIR = "_static/sa/run/runtime"
#: The vendored WASI shim (book/_static/vendor/), named with its version.
SHIM = "browser_wasi_shim-0.4.2"

_CELL_CLASSES = re.compile(r'<div class="(?P<classes>cell(?: [^"]*)?)"')
_EXERCISE_START = re.compile(r'<div class="exercise admonition"')
_DIV = re.compile(r"<(?P<end>/?)div\b")


def _exercise_blocks(body: str):
    """The HTML of each exercise box: from its ``<div>`` to the ``</div>`` that closes it."""
    for start in _EXERCISE_START.finditer(body):
        depth = 0
        for tag in _DIV.finditer(body, start.start()):
            depth += -1 if tag.group("end") else 1
            if depth == 0:
                yield body[start.start():tag.end()]
                break
        else:
            yield body[start.start():]


def page_runs(body: str) -> bool:
    """Whether a page's HTML has a cell tagged ``run`` or a code exercise with a checker.

    The tag must be ``run`` itself (``run-later`` is another tag), and the
    checker call must sit in the exercise's own code block.

    Examples
    --------
    >>> page_runs('<div class="cell tag_run docutils container">')
    True
    >>> page_runs('<div class="cell tag_hide-input tag_run docutils container">')
    True
    >>> page_runs('<div class="exercise admonition" id="x"><pre>sa.check_scores(s)</pre></div>')
    True
    >>> page_runs('<div class="cell tag_run-later docutils container">')
    False
    >>> page_runs('<div class="exercise admonition" id="x"><p>Guess.</p></div><p>sa.check_scores</p>')
    False
    """
    if any("tag_run" in m.group("classes").split() for m in _CELL_CLASSES.finditer(body)):
        return True
    return any("<pre" in block and "check_" in block for block in _exercise_blocks(body))


def _add_run_script(app, pagename, templatename, context, doctree):
    if doctree is None or not page_runs(context.get("body", "")):
        return
    app.add_js_file("sa/run/run.js", type="module")
    app.add_css_file("sa/run/run.css")


def _copy_runtime(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    build()
    copy_into(Path(app.outdir) / SITE_DIR)


class RuntimeLicences(Directive):
    """``{runtime-licences}``: a list of the runtime's licence notices, each a link to its text."""

    has_content = False

    def run(self):
        env = self.state.document.settings.env
        manifest = build(DEFAULT_OUT)
        up = "../" * env.docname.count("/")
        items = "".join(
            f'<li><a href="{up}{SITE_DIR}/LICENSES/{name}">{name.rsplit(".", 1)[0]}</a></li>'
            for name in manifest["licenses"])
        size = sum(f["size"] for f in manifest["files"].values())
        shim = f"{up}_static/vendor/{SHIM}"
        html = (f'<p>The runtime is PyPI <code>{WHEEL_REQUIREMENT}</code>: {size / 1e6:.0f} MB to download. '
                f'The list of its parts and their versions is its <a href="{up}{SITE_DIR}/MANIFEST">MANIFEST</a>, '
                f'and the SHA-256 of every file served is in <a href="{up}{SITE_DIR}/SHA256SUMS">SHA256SUMS</a>.</p>'
                f'<ul class="sa-licence-list">{items}</ul>'
                f'<p>The browser side uses <code>{SHIM.replace("browser_wasi_shim-", "@bjorn3/browser_wasi_shim ")}'
                f'</code> (MIT or Apache-2.0), served from this site with its licence texts: '
                f'<a href="{shim}/LICENSE-MIT">MIT</a>, <a href="{shim}/LICENSE-APACHE">Apache-2.0</a>.</p>')
        return [nodes.raw("", html, format="html")]


def setup_runcells(app) -> None:
    """Register Run buttons, the runtime files and ``{runtime-licences}``.

    Examples
    --------
    >>> class App:
    ...     def __init__(self): self.events, self.directives = [], []
    ...     def connect(self, event, handler): self.events.append(event)
    ...     def add_directive(self, name, cls): self.directives.append(name)
    >>> app = App()
    >>> setup_runcells(app)
    >>> app.events, app.directives
    (['html-page-context', 'build-finished'], ['runtime-licences'])
    """
    app.connect("html-page-context", _add_run_script)
    app.connect("build-finished", _copy_runtime)
    app.add_directive("runtime-licences", RuntimeLicences)
