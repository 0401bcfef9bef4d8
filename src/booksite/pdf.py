"""The book as a PDF: each lab becomes a figure of its opening state, with the address of its page.

Labs run only in a browser. ``make pdf`` therefore builds the HTML first, then
:func:`photograph_labs` opens every page in Chromium, waits until each lab has
mounted (``.sa-lab-ready``) and saves a PNG of it as it opens, before any
click. The LaTeX build (this module is also a Sphinx extension) replaces each
lab's output by a figure of that PNG whose caption names the page where the
lab is interactive. A lab with no photograph is a build warning, so with
``-W`` the PDF is never made without one.

Run ``python -m booksite.pdf HTML_DIR OUT_DIR`` to take the photographs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from booktools.labs.contract import LAB_TAG as _LAB

from .serve import serve

CHROMIUM = "/usr/bin/chromium"


def shot_name(page: str, lab_id: str) -> str:
    """File name of the photograph of one lab.

    Examples
    --------
    >>> shot_name("weighted-average", "wa-lab")
    'weighted-average--wa-lab.png'
    """
    return f"{page}--{lab_id}.png"


def labs_in(html: str) -> list[tuple[str, str]]:
    """``(name, id)`` of each lab element in a page's HTML, in order.

    Examples
    --------
    >>> labs_in('<div class="sa-lab" data-lab="grid" id="g1"><p>x</p></div>')
    [('grid', 'g1')]
    """
    return [(m.group("name"), m.group("id")) for m in _LAB.finditer(html)]


def photograph_labs(html_dir: Path, out_dir: Path, width: int = 900) -> list[Path]:
    """Save a PNG of every lab of the built site as it opens; return the files written."""
    from playwright.sync_api import sync_playwright  # here: only `make pdf` needs Playwright and Chromium

    html_dir, out_dir = Path(html_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pages = {p.stem: labs_in(p.read_text(encoding="utf-8")) for p in sorted(html_dir.glob("*.html"))}
    pages = {page: labs for page, labs in pages.items() if labs}
    written = []
    with serve(html_dir) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM)
        context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=2,
                                      color_scheme="light", reduced_motion="reduce")
        context.add_init_script("try { localStorage.setItem('mode', 'light'); } catch (e) {}")
        for page_name, labs in pages.items():
            page = context.new_page()
            # "load", then each lab's own signal that it has drawn (below): a lab that fetches its data
            # marks itself ready once it has. (Waiting for the network to be quiet added 0.5 s a page.)
            page.goto(f"{base}/{page_name}.html", wait_until="load")
            # A predict-first check folds the rest of its page until it is answered; on paper all is open.
            page.evaluate("() => document.querySelectorAll('.sa-fold-bar button').forEach(b => b.click())")
            for _, lab_id in labs:
                lab = page.locator(f"#{lab_id}")
                page.wait_for_selector(f"#{lab_id}.sa-lab-ready", timeout=30_000)
                lab.scroll_into_view_if_needed()
                target = out_dir / shot_name(page_name, lab_id)
                lab.screenshot(path=str(target), animations="disabled")
                written.append(target)
            page.close()
        browser.close()
    return written


# --- Sphinx: labs become figures in the LaTeX build -----------------------------------------

def _page_of(node) -> str:
    """The page a node came from in the LaTeX builder's one big doctree."""
    # Sphinx marks each inlined page with start_of_file and its sections with "docname".
    while node is not None:
        if isinstance(node, (addnodes.start_of_file, nodes.section)) and node.get("docname"):
            return node["docname"]
        node = node.parent
    return ""


def lab_figures(app, doctree, docname: str) -> int:
    """Replace each lab output by a figure of its photograph; return how many were replaced."""
    shots = Path(app.config.sa_lab_shots)
    base = app.config.html_baseurl
    base = (base if base.endswith("/") else base + "/") if base else ""
    done = 0
    for bundle in list(doctree.findall(nodes.container)):
        if bundle.get("nb_element") != "mime_bundle":
            continue
        html = "".join(c.astext() for c in bundle.children if c.get("mime_type") == "text/html")
        labs = labs_in(html)
        if not labs:
            continue
        page = _page_of(bundle) or docname
        figures = []
        for name, lab_id in labs:
            path = shots / shot_name(page, lab_id)
            if not path.exists():
                logging.getLogger(__name__).warning(
                    f"no photograph of lab {lab_id!r} of {page} for the PDF: `make pdf` takes them "
                    "(python -m booksite.pdf)", location=bundle)
                continue
            title = name.replace("-", " ")
            figure = nodes.figure(classes=["sa-lab-figure"])
            figure += nodes.image(uri=str(path), candidates={"*": str(path)}, width="80%",
                                  alt=f"The {title} lab as it opens.")
            caption = nodes.caption()
            caption += nodes.Text(f"The {title} lab as it opens. It is interactive on the web page of "
                                  "this chapter: ")
            url = f"{base}{page}.html#{lab_id}"
            caption += nodes.reference(url, url, refuri=url) if base else nodes.literal(url, url)
            caption += nodes.Text(".")
            figure += caption
            figures.append(figure)
            done += 1
        if figures:
            bundle.replace_self(figures)
        else:
            bundle.parent.remove(bundle)
    return done


class LabFigures(SphinxPostTransform):
    """LaTeX only: labs become figures, before myst-nb picks one output per bundle (priority 4)."""

    default_priority = 3
    builders = ("latex",)

    def run(self, **kwargs):
        lab_figures(self.app, self.document, self.env.docname)


def setup_pdf(app) -> None:
    """LaTeX only: each lab's output becomes a figure of its photograph (``sa_lab_shots``).

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def __init__(self): self.events = []
    ...     def add_config_value(self, name, default, rebuild): self.value = name
    ...     def add_post_transform(self, cls): self.events.append(cls.__name__)
    >>> app = App()
    >>> setup_pdf(app)
    >>> app.value, app.events
    ('sa_lab_shots', ['LabFigures'])
    """
    app.add_config_value("sa_lab_shots", "", "")  # only the LaTeX writer reads it
    app.add_post_transform(LabFigures)



if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m booksite.pdf HTML_DIR OUT_DIR")
    for path in photograph_labs(Path(sys.argv[1]), Path(sys.argv[2])):
        print(path)
