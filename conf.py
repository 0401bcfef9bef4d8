"""Sphinx configuration for *Self-Attention, Computed*.

Build with ``sphinx-build -n -W --keep-going -c . book _build/html``
(``make html`` does this).
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent

project = "Self-Attention, Computed"
author = "The Self-Attention, Computed authors"
copyright = "2026, the Self-Attention, Computed authors (text CC BY 4.0, code MIT)"
# The one version of the book and the package lives in pyproject.toml.
release = version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]

extensions = [
    "myst_nb",
    "sphinx_design",
    "sphinx_togglebutton",
    "sphinx_copybutton",
    "sphinxcontrib.bibtex",
    "sphinx_exercise",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]
templates_path = ["book/_templates"]
html_static_path = ["book/_static"]

# --- MyST and notebook execution -------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "substitution"]
myst_heading_anchors = 3

# The front page's BibTeX entry, built here so that it always names this version.
# The release date (and the address, once the book has one) come from CITATION.cff,
# which reference managers read; only standard BibTeX fields of @misc are used.
def _citation_field(name: str) -> str | None:
    import re

    match = re.search(rf"^{name}:\s*\"?([^\"\n]+?)\"?\s*$", (ROOT / "CITATION.cff").read_text(), re.M)
    return match.group(1) if match else None


release_date = _citation_field("date-released")
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
_url = _citation_field("url")
_BIBTEX = "\n".join([
    "```bibtex",
    "@misc{selfattention_computed,",
    "  author       = {{The Self-Attention, Computed authors}},",
    "  title        = {Self-Attention, Computed: An Executable Textbook},",
    *([f"  howpublished = {{\\url{{{_url}}}}},"] if _url else []),
    f"  year         = {{{release_date[:4]}}},",
    f"  month        = {_MONTHS[int(release_date[5:7]) - 1]},",
    f"  note         = {{Version {release}, released {release_date}}}",
    "}",
    "```",
])
myst_substitutions = {"version": release, "release_date": release_date, "cite_bibtex": _BIBTEX}
numfig = True
numfig_format = {"figure": "Figure %s", "table": "Table %s", "code-block": "Listing %s"}



def _source_digest() -> str:
    """Hash of the package sources: pages re-execute when the code they call changes.

    jupyter-cache keys a page on its own cells only; keying the cache folder
    on src/ as well means no page can show output of an older package.
    """
    h = hashlib.sha256()
    for path in sorted((ROOT / "src").rglob("*.py")):
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


nb_execution_mode = "cache"
# The cache lives beside the HTML output, not inside it: `make clean` keeps it.
nb_execution_cache_path = str(
    Path(os.environ.get("SA_JUPYTER_CACHE", ROOT / "_build" / ".jupyter_cache")) / _source_digest()
)


def _create_cache_db(path: str) -> None:
    """Create the cache database here, in the main process, before the build starts.

    With ``-j 2`` Sphinx reads pages in two worker processes; if the database
    did not exist yet, both would try to create its tables and one would fail
    with "table settings already exists".
    """
    from jupyter_cache.cache.db import create_db

    Path(path).mkdir(parents=True, exist_ok=True)
    create_db(path).dispose()


_create_cache_db(nb_execution_cache_path)
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_timeout = 300
nb_render_markdown_format = "myst"  # tables computed by cells get numbers
nb_merge_streams = True
nb_ipywidgets_js = {}  # never load widget scripts from another host

# --- Bibliography -----------------------------------------------------------
# The text cites author-year ("Vaswani et al. (2017)"), so the list is labelled
# the same way, not [1]-[10]: pybtex's plain style with author-year labels.
def _register_author_year_style() -> str:
    from pybtex.plugin import register_plugin
    from pybtex.richtext import Text
    from pybtex.style.formatting.plain import Style as PlainStyle
    from pybtex.style.labels import BaseLabelStyle

    class AuthorYearLabels(BaseLabelStyle):
        """'Vaswani et al., 2017', 'Jain and Wallace, 2019'; a, b, ... when two agree."""

        def format_labels(self, sorted_entries):
            labels = []
            for entry in sorted_entries:
                people = entry.persons.get("author") or entry.persons.get("editor") or []
                last = [Text.from_latex(" ".join(p.last_names)).render_as("text") for p in people]
                who = (last[0] if len(last) == 1 else " and ".join(last) if len(last) == 2
                       else f"{last[0]} et al." if last else entry.key)
                labels.append(f"{who}, {entry.fields.get('year', 'n.d.')}")
            for label in labels:
                same = [i for i, other in enumerate(labels) if other == label]
                if len(same) > 1:
                    for n, i in enumerate(same):
                        labels[i] = f"{label}{'abcdefghijklmnopqrstuvwxyz'[n]}"
            yield from labels

    class AuthorYearStyle(PlainStyle):
        default_label_style = "author_year"

    register_plugin("pybtex.style.labels", "author_year", AuthorYearLabels, force=True)
    register_plugin("pybtex.style.formatting", "plain_author_year", AuthorYearStyle, force=True)
    return "plain_author_year"


bibtex_bibfiles = ["book/references.bib"]
bibtex_default_style = _register_author_year_style()
bibtex_reference_style = "author_year"

# --- HTML ---------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = project
html_favicon = "book/_static/favicon.svg"
html_last_updated_fmt = None
html_copy_source = True
html_show_sourcelink = True
html_theme_options = {
    "use_download_button": True,
    "show_toc_level": 2,
    "home_page_in_toc": True,
}
# Math is rendered at build time as MathML (booktools.mathml): pages carry no math script.
html_math_renderer = "mathml"

nitpicky = True

# pydata-sphinx-theme logs "Got invalid theme mode" unless a mode is named.
html_context = {"default_mode": "auto"}

# --- The interactive layer and the booktools Sphinx extension ----------------
extensions += ["booktools.sphinxext", "booktools.mathml", "booktools.pagemeta", "booktools.labdata",
               "booktools.sitecss"]
html_css_files = ["sa/icons.css", "sa/sa.css"]
html_js_files = [("sa/sa.js", {"type": "module"})]
