"""The book is citable, cross-referenced and navigable, and keeps its addresses.

What every chapter must do (a new chapter fails here until it does):

1. cite at least one source of ``book/references.bib`` with ``{cite:p}``/``{cite:t}``;
2. link at least one glossary word with ``{term}``;
3. link at least one package function to the API page with ``{func}`` (``selfattention.<name>``);
4. label every numbered equation ``$$ ... $$ (eq-<name>)`` and reference each label with ``{eq}``;
5. reference every figure and table name (``name: fig-...``/``tbl-...``) with ``{numref}``;
6. have its address (``<page>.html`` and its notebook) listed in ``book/_urls.txt``;
7. be listed, with its page, in ``CHAPTERS`` of ``book/index.md`` (that gives it its "Cite this
   chapter" box).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from tests.book.pages import BOOK, source_pages

ROOT = BOOK.parent
SCHEMA = ROOT / "tests" / "vendor" / "cff" / "schema-1.2.0.json"
#: The primary sources the issue names; the bibliography may hold more.
REQUIRED_SOURCES = {
    "vaswani2017attention", "bahdanau2015neural", "elman1990finding", "hochreiter1997long",
    "dao2022flashattention", "dao2023flashattention2", "child2019generating", "beltagy2020longformer",
    "reimers2019sentencebert", "wang2020minilm", "jain2019attention", "wiegreffe2019attention",
}
GLOSSARY_TERMS = ["query", "key", "value", "score", "attention weight", "softmax", "temperature", "mask",
                  "causal", "padding", "head", "d_k", "cross-attention", "KV cache", "parameter", "activation",
                  "token", "multi-head attention", "multi-query attention", "grouped-query attention", "prefill",
                  "decode", "sliding window", "ring buffer", "residual connection", "MLP", "feed-forward",
                  "layer norm", "logits", "greedy decoding", "embedding", "encoder", "decoder",
                  "loss", "cross-entropy", "gradient", "gradient descent", "learning rate", "Adam", "RoPE",
                  "ALiBi", "residual stream", "unembedding", "previous-token head", "induction head",
                  "K-composition", "Q-composition", "phase change", "ablation", "post-LN", "pre-LN", "RMSNorm",
                  "GELU", "SiLU", "sampling", "top-k", "top-p", "nucleus sampling", "bits per character",
                  "held-out text", "n-gram model"]


def chapters() -> dict[str, tuple[int, str]]:
    from booksite.citation import chapters as parse

    return parse((BOOK / "index.md").read_text(encoding="utf-8"))


def chapter_paths() -> list[Path]:
    return [BOOK / f"{page}.md" for page in chapters()]


def bib_entries():
    from pybtex.database import parse_file

    return parse_file(str(BOOK / "references.bib")).entries


# --- 1. References -----------------------------------------------------------------

def test_bibliography_holds_every_primary_source():
    assert REQUIRED_SOURCES <= set(bib_entries())


def test_every_entry_has_its_fields():
    problems = []
    for key, entry in bib_entries().items():
        f = entry.fields
        if not entry.persons.get("author"):
            problems.append(f"{key}: no author")
        for name in ("title", "year"):
            if name not in f:
                problems.append(f"{key}: no {name}")
        venue = {"article": "journal", "inproceedings": "booktitle", "misc": "howpublished"}[entry.type]
        if venue not in f:
            problems.append(f"{key}: no {venue}")
        if entry.type == "article" and not {"volume", "pages", "doi"} <= set(f):
            problems.append(f"{key}: a journal article needs volume, pages and doi")
        # A report or a repository that has neither (GPT-2's report, a changelog) is a misc with its address.
        # PMLR's proceedings (AISTATS) give a paper no DOI: its page there is its address.
        address = f.get("url", "").startswith("https://") and (
            entry.type == "misc" or f["url"].startswith("https://proceedings.mlr.press/"))
        if "doi" not in f and "eprint" not in f and not address:
            problems.append(f"{key}: neither a DOI nor an arXiv identifier (nor, for a misc or PMLR, an https address)")
        if "eprint" in f and not re.fullmatch(r"\d{4}\.\d{4,5}", f["eprint"]):
            problems.append(f"{key}: eprint {f['eprint']!r} is not an arXiv identifier")
        if "doi" in f and not f["doi"].startswith("10."):
            problems.append(f"{key}: doi {f['doi']!r}")
    assert problems == []


def test_every_source_is_cited_and_every_citation_is_a_source():
    cited = set()
    for path in source_pages():
        for keys in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", path.read_text(encoding="utf-8")):
            cited.update(k.strip() for k in keys.split(","))
    assert cited <= set(bib_entries()), cited - set(bib_entries())
    assert set(bib_entries()) <= cited, f"never cited: {set(bib_entries()) - cited}"


@pytest.mark.parametrize("path", chapter_paths(), ids=lambda p: p.name)
def test_chapter_cites_links_terms_and_functions(path):
    text = path.read_text(encoding="utf-8")
    assert re.search(r"\{cite:[pt]s?\}`", text), f"{path.name}: no {{cite}} of references.bib"
    assert "{term}`" in text, f"{path.name}: no {{term}} link to the glossary"
    assert re.search(r"\{(?:py:)?func\}`[^`]*selfattention\.", text), \
        f"{path.name}: no {{func}} link to the API reference"


# --- 3. Cross-references --------------------------------------------------------------

@pytest.mark.parametrize("path", source_pages(), ids=lambda p: p.name)
def test_every_labelled_equation_figure_and_table_is_referenced(path):
    text = path.read_text(encoding="utf-8")
    equations = re.findall(r"^\$\$ \((eq-[\w-]+)\)$", text, re.M)
    # Every figure or table name on the page (``name: fig-x``, ``:name: tbl-x``, a name passed to a helper).
    names = sorted(set(re.findall(r"(?<![\w-])((?:fig|tbl)-[a-z0-9]+(?:-[a-z0-9]+)*)", text)))
    everything = "".join(p.read_text(encoding="utf-8") for p in source_pages())
    unreferenced = [e for e in equations if f"{{eq}}`{e}`" not in everything]
    unreferenced += [n for n in names if not re.search(r"\{numref\}`(?:[^`<]*<)?" + n + ">?`", everything)]
    assert unreferenced == [], f"{path.name}: labelled but never referenced: {unreferenced}"


@pytest.mark.parametrize("path", source_pages(), ids=lambda p: p.name)
def test_every_numbered_equation_has_a_stable_label(path):
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"\\label\{", text), f"{path.name}: label equations with `$$ (eq-name)`, not \\label"
    assert not re.search(r"^```\{math\}", text, re.M) or ":label: eq-" in text


def published_urls() -> list[str]:
    lines = (BOOK / "_urls.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_page_addresses_are_slugs_and_every_page_is_listed():
    pages = [p.stem for p in source_pages()]
    assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", p) for p in pages), pages
    missing = [f"{p}.html" for p in pages if f"{p}.html" not in published_urls()]
    missing += [f"_notebooks/{p}.ipynb" for p in chapters() if f"_notebooks/{p}.ipynb" not in published_urls()]
    assert missing == [], f"add these to book/_urls.txt: {missing}"


@pytest.mark.book
def test_the_built_site_keeps_every_published_address(built_book):
    from booksite.publish import read_redirects

    redirects = read_redirects(BOOK / "_redirects.txt")
    lost = [url for url in published_urls() if not (built_book / url).exists()]
    assert lost == [], f"the site lost {lost}: add a redirect to book/_redirects.txt"
    for old, new in redirects.items():
        if old.endswith(".ipynb"):   # a moved chapter's notebook: the old address serves the new one
            assert (built_book / old).read_bytes() == (built_book / new).read_bytes(), old
        else:
            assert f"url={new}" in (built_book / old).read_text(encoding="utf-8")


# --- 2. Citing --------------------------------------------------------------------------

def test_citation_cff_is_valid_cff_1_2():
    import jsonschema

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(cff, schema, format_checker=jsonschema.FormatChecker())
    assert cff["cff-version"] == "1.2.0"


def test_chapter_bibtex_comes_from_citation_cff_and_the_package():
    import selfattention
    from booksite.citation import book_meta, chapter_bibtex, read_cff

    meta = book_meta(read_cff(ROOT / "CITATION.cff"), selfattention.__version__, url="https://example.org/b")
    number, title = chapters()["weighted-average"]
    entry = chapter_bibtex(meta, number=number, title=title, page="weighted-average")
    assert f"Version {selfattention.__version__}" in entry
    assert re.search(rf"chapter += \{{{number}\}}", entry) and f"{{{title}}}" in entry
    assert "https://example.org/b/weighted-average.html" in entry
    assert meta.date_released[:4] in entry


@pytest.mark.book
def test_every_chapter_has_a_cite_box_with_its_number_and_the_version(built_book):
    import selfattention

    for page, (number, _title) in chapters().items():
        html = (built_book / f"{page}.html").read_text(encoding="utf-8")
        assert 'id="cite-this-chapter"' in html, page
        box = html[html.index('id="cite-this-chapter"'):]
        assert "@incollection{" in box and re.search(rf"chapter += \{{{number}\}}", box), page
        assert f"Version {selfattention.__version__}" in box, page


# --- 4. and 5. API reference, glossary and index ---------------------------------------------

def test_glossary_defines_the_book_terms():
    text = (BOOK / "glossary.md").read_text(encoding="utf-8")
    body = re.search(r"```\{glossary\}\n(.*?)```", text, re.S).group(1)
    terms = [line.strip() for line in body.splitlines() if line and not line[0].isspace() and not line.startswith(":")]
    assert sorted(terms, key=str.lower) == sorted(GLOSSARY_TERMS, key=str.lower)


@pytest.mark.book
def test_api_glossary_and_index_pages_are_built_and_linked(built_book):
    api = (built_book / "api.html").read_text(encoding="utf-8")
    for name in ("softmax", "attention_scores", "scaled_dot_product_attention", "causal_mask"):
        assert f'id="selfattention.{name}"' in api, name
    glossary = (built_book / "glossary.html").read_text(encoding="utf-8")
    assert glossary.count('<dt id="term-') == len(GLOSSARY_TERMS)
    assert (built_book / "genindex.html").exists()
    weighted = (built_book / "weighted-average.html").read_text(encoding="utf-8")
    assert 'href="api.html#selfattention.softmax"' in weighted
    assert 'href="glossary.html#term-softmax"' in weighted
    index = (built_book / "index.html").read_text(encoding="utf-8")
    assert 'href="genindex.html"' in index and 'href="glossary.html"' in index and 'href="api.html"' in index


# --- 6. Notebooks ------------------------------------------------------------------------------

@pytest.mark.book
def test_front_page_and_api_page_link_the_notebooks(built_book):
    index = (built_book / "index.html").read_text(encoding="utf-8")
    for page in chapters():
        assert f'href="_notebooks/{page}.ipynb"' in index, page
        assert (built_book / "_notebooks" / f"{page}.ipynb").exists(), page
    api = (built_book / "api.html").read_text(encoding="utf-8")
    assert 'href="index.html#notebooks"' in api


# --- 8. Site extras ------------------------------------------------------------------------------

@pytest.mark.book
def test_pages_carry_opengraph_tags_and_the_footer_the_version_and_build_date(built_book):
    import selfattention

    for page in ("index.html", "weighted-average.html", "glossary.html"):
        html = (built_book / page).read_text(encoding="utf-8")
        assert '<meta property="og:title"' in html and '<meta property="og:description"' in html, page
        assert re.search(rf"Version {re.escape(selfattention.__version__)}, built on (\d{{4}}-\d\d-\d\d)", html), page


@pytest.mark.book
def test_status_page_lists_execution_times_and_package_versions(built_book):
    import numpy

    html = (built_book / "status.html").read_text(encoding="utf-8")
    assert "weighted-average" in html and "exec" in html.lower()
    assert f"<td><p>{numpy.__version__}</p></td>" in html or numpy.__version__ in html
    assert (built_book / "404.html").exists()


@pytest.mark.book
def test_sitemap_lists_the_pages_when_the_site_has_an_address(built_book):
    sitemap = built_book / "sitemap.xml"
    if not sitemap.exists():
        pytest.skip("this build has no address (SA_SITE_URL): no sitemap")
    text = sitemap.read_text(encoding="utf-8")
    assert "weighted-average.html</loc>" in text and "404.html" not in text


def test_pages_workflow_parses_and_publishes_make_html():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    steps = [s for job in workflow["jobs"].values() for s in job.get("steps", [])]
    runs = " ".join(s.get("run", "") for s in steps)
    uses = [s["uses"].split("@")[0] for s in steps if "uses" in s]
    assert "make html" in runs
    assert {"actions/checkout", "actions/configure-pages", "actions/upload-pages-artifact",
            "actions/deploy-pages"} <= set(uses)
    assert all(re.fullmatch(r"actions/[\w-]+@v\d+", s["uses"]) for s in steps if "uses" in s)
    # YAML reads a bare `on:` as True
    assert workflow.get("on", workflow.get(True))


def test_sitemap_and_404_base_are_written_when_the_site_has_an_address(tmp_path):
    from types import SimpleNamespace

    from booksite import publish

    (tmp_path / "404.html").write_text('<head><meta charset="utf-8">\n<link href="_static/a.css"></head>'
                                       '<a href="index.html">front</a><a href="#top">top</a>', encoding="utf-8")
    (tmp_path / "_pdf.html").write_text("the PDF's front matter", encoding="utf-8")
    (tmp_path / "src").mkdir()
    app = SimpleNamespace(
        builder=SimpleNamespace(format="html"), outdir=str(tmp_path), srcdir=str(tmp_path / "src"),
        env=SimpleNamespace(found_docs={"index", "weighted-average", "404", "search", "genindex"}),
        config=SimpleNamespace(html_baseurl="https://example.org/book", sa_build_date="2026-11-29", project="P"))
    publish._build_finished(app, None)
    publish._root_addresses_of_404(app, None)
    sitemap = (tmp_path / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://example.org/book/</loc>" in sitemap
    assert "<loc>https://example.org/book/weighted-average.html</loc>" in sitemap
    assert "404" not in sitemap and "search" not in sitemap
    page = (tmp_path / "404.html").read_text(encoding="utf-8")
    assert 'href="/book/_static/a.css"' in page and 'href="/book/index.html"' in page and 'href="#top"' in page
    assert not (tmp_path / "_pdf.html").exists() and "_pdf" not in sitemap
    publish._root_addresses_of_404(app, None)   # a second run changes nothing
    assert (tmp_path / "404.html").read_text(encoding="utf-8") == page


def test_page_titles_name_the_book_once(built_book):
    for page in sorted(built_book.rglob("*.html")):
        if page.relative_to(built_book).parts[0].startswith("_"):
            continue
        title = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), re.S)
        if title is None:   # a redirect page of _redirects.txt
            continue
        assert title.group(1).count("Self-Attention, Computed") <= 1, (page.name, title.group(1))
    front = (built_book / "index.html").read_text(encoding="utf-8")
    assert "<title>Self-Attention, Computed</title>" in front


def test_the_pdf_front_matter_is_not_in_the_site_and_every_page_has_the_csp(built_book):
    assert not (built_book / "_pdf.html").exists() and not (built_book / "_sources" / "_pdf.md.txt").exists()
    for page in sorted(built_book.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' in text:   # a redirect page of _redirects.txt: no script at all
            continue
        assert 'http-equiv="Content-Security-Policy"' in text, page.name


def test_the_search_index_names_every_page_and_leaves_out_the_pdf(built_book):
    text = (built_book / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1:text.rindex(")")])
    assert "_pdf" not in index["docnames"]
    titles = dict(zip(index["docnames"], index["titles"]))
    assert all(titles.values()), [d for d, t in titles.items() if not t]
    assert titles["api"] == "API reference"


def test_the_404_page_addresses_start_at_the_site_root(built_book):
    text = (built_book / "404.html").read_text(encoding="utf-8")
    addresses = re.findall(r'\s(?:href|src|action)="([^"]*)"', text)
    assert addresses and 'data-content_root="/"' in text
    relative = [a for a in addresses if not a.startswith(("/", "#", "http:", "https:", "data:", "mailto:"))]
    assert not relative, relative
