"""The PDF (``make pdf``): it builds, has a chapter for every chapter, and every figure and table.

The PDF's root, ``book/_pdf.md``, lists the same pages as the front page's toctree (all but the
build status page): a new chapter must be added to both.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.book.pages import BOOK
from tests.conftest import ROOT, in_ci

TOOLS = ("xelatex", "latexmk", "pdftotext")


def toctree(page: str) -> list[str]:
    text = (BOOK / page).read_text(encoding="utf-8")
    bodies = re.findall(r"```\{toctree\}\n(.*?)```", text, re.S)  # every toctree: chapters, then appendices
    return [line.strip() for body in bodies for line in body.splitlines() if line.strip() and not line.startswith(":")]


def letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def test_the_pdf_has_every_page_of_the_book_but_the_status_page():
    assert toctree("_pdf.md") == [p for p in toctree("index.md") if p != "status"]


@pytest.fixture(scope="module")
def pdf(built_book, tmp_path_factory) -> tuple[Path, str]:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        if in_ci():
            pytest.fail(f"{missing} missing in CI (.ci/run installs texlive)")
        pytest.skip(f"{missing} not installed: apt-get install texlive-xetex texlive-latex-extra latexmk "
                    "poppler-utils fonts-freefont-otf")
    out = tmp_path_factory.mktemp("pdf")
    # In its own process, as `make pdf` runs it: a second sync Playwright in this process would fail
    # once the browser tests' session has started one.
    shots = subprocess.run([sys.executable, "-m", "booksite.pdf", str(built_book), str(out / "lab-shots")],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert shots.returncode == 0, shots.stdout[-3000:] + shots.stderr[-3000:]
    # A copy of the HTML build's doctrees: the LaTeX builder only writes, but it saves its environment
    # there, and the other test worker may be reading the session's build at the same time.
    doctrees = out / "doctrees"
    shutil.copytree(built_book.parent / "doctrees", doctrees)
    cmd = [sys.executable, "-m", "sphinx", "-b", "latex", "-n", "-W", "--keep-going", "-c", str(ROOT),
           "-D", f"sa_lab_shots={out / 'lab-shots'}", str(BOOK), str(out / "latex"), "-d", str(doctrees)]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    latex = subprocess.run(["latexmk", "-xelatex", "-interaction=nonstopmode", "-halt-on-error",
                            "self-attention-computed.tex"], cwd=out / "latex", capture_output=True, text=True,
                           timeout=1200)
    log = (out / "latex" / "self-attention-computed.log").read_text(encoding="utf-8", errors="replace")
    assert latex.returncode == 0, latex.stdout[-3000:] + log[-3000:]
    assert "Missing character" not in log, re.findall(r"Missing character: .*", log)[:5]
    path = out / "latex" / "self-attention-computed.pdf"
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return path, text


@pytest.mark.book
@pytest.mark.browser
def test_pdf_has_a_chapter_for_every_chapter(pdf):
    from booksite.citation import chapters

    _, text = pdf
    text = text.replace("\f", "\n")   # a page break may fall just before a chapter's line
    titles = [t for _, t in chapters((BOOK / "index.md").read_text(encoding="utf-8")).values()]
    for number, title in enumerate(titles, start=1):
        assert re.search(rf"^{number} {re.escape(title)}$", text, re.M), f"no chapter {number} {title!r}"
    for appendix in ("Glossary", "References", "API reference"):
        assert re.search(rf"^\d+ {appendix}$", text, re.M), appendix


def html_captions(built_book: Path) -> tuple[list[str], int]:
    """The captions of every figure and table of the pages in the PDF, and the number of labs."""
    captions, labs = [], 0
    for page in toctree("_pdf.md"):
        html = (built_book / f"{page}.html").read_text(encoding="utf-8")
        labs += html.count('<div class="sa-lab" ')
        # Numbered captions only: a lab's own markup may hold tables of its own.
        for m in re.finditer(r'<(?:figcaption|caption)[^>]*>(.*?)</(?:figcaption|caption)>', html, re.S):
            if 'class="caption-number"' not in m.group(1):
                continue
            text = re.sub(r"<math.*?</math>", " $ ", m.group(1), flags=re.S)  # cut the comparison there
            text = re.sub(r'<span class="caption-number">.*?</span>', "", text, flags=re.S)
            captions.append(re.sub(r"<[^>]+>", "", text))
    return captions, labs


@pytest.mark.book
@pytest.mark.browser
def test_pdf_holds_every_figure_and_table_of_the_html_and_each_lab_as_a_figure(pdf, built_book):
    _, text = pdf
    captions, labs = html_captions(built_book)
    pdf_captions = re.findall(r"^((?:Figure|Table) \d+\.\d+):", text, re.M)
    assert len(set(pdf_captions)) == len(captions) + labs, (len(set(pdf_captions)), len(captions), labs)
    flat = letters(text)
    missing = []
    for caption in captions:
        start = letters(re.split(r"[\d$=]", caption, maxsplit=1)[0])[:40]
        if len(start) >= 12 and start not in flat:
            missing.append(caption[:80])
    assert missing == [], f"captions of the HTML not found in the PDF: {missing}"
    assert text.count("lab as it opens") == labs
