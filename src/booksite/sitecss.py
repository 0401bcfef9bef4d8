"""One stylesheet per page, without the theme's unused rules: the text shows sooner on a phone.

Every page links eleven stylesheets (the theme's, Sphinx's, each extension's,
ours). Each is a request the browser waits for before it draws any text, and
the theme's own (376 KB, with all of Bootstrap and Font Awesome) holds many
rules that match nothing in this book. After the build, for each page:

* the stylesheets it links are joined, in order, into ``_static/sa/site-<hash>.css``
  (``@import`` inlined, relative ``url()`` rewritten);
* rules of the theme's big stylesheet whose classes or ids occur nowhere in the
  site (no page, no script) are left out (:func:`purge`);
* the page links that one file instead.

A rebuild writes only the pages that changed, so the pages it leaves alone
still link the bundles of an earlier build: a bundle is deleted only when no
page links it any more (:func:`linked_bundles`). Sphinx writes the index and
the search page on every build; a page written again exactly as before,
with the same stylesheets, gets its earlier bundle back (noted in the
doctree folder), so such a rebuild never reads the site's words.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import posixpath
import re
from pathlib import Path

#: Stylesheets whose unused rules are left out (fnmatch patterns; the others are small and kept whole).
PURGED = ("styles/pydata-sphinx-theme.css", "sphinx-design.min.css", "mystnb.*.css")
#: Class names made by scripts from parts (Bootstrap's ``bs-tooltip-${placement}``...): always kept.
SAFE_PREFIXES = ("bs-", "tooltip", "popover", "dropdown", "show", "fade", "collaps", "modal", "offcanvas",
                 "active", "disabled", "pst-", "bd-", "theme-", "search", "sidebar", "toc", "navbar", "nav")

_LINK = re.compile(r'<link[^>]*\brel="stylesheet"[^>]*>\n?')
_HREF = re.compile(r'\bhref="([^"]+)"')
_URL = re.compile(r'url\(\s*(["\']?)(?!data:|https?:|/|#)([^"\')]+)\1\s*\)')
_IMPORT = re.compile(r'@import\s+(?:url\()?["\']([^"\']+)["\']\)?\s*;')
_FUNCTIONAL = re.compile(r":(?:not|is|where|has|matches|-webkit-any|nth-[a-z-]+|host|host-context)\(")
_TOKEN = re.compile(r"([.#])(-?[_a-zA-Z][\w-]*)")
_BUNDLE = re.compile(r'<link rel="stylesheet" href="(?:\.\./)*(_static/sa/site-[0-9a-f]{10}\.css)"')


def split_rules(css: str) -> list[str]:
    """Top-level rules and at-rules of a stylesheet, comments dropped.

    Examples
    --------
    >>> split_rules("a{x:1}/* c */@media (min-width:1px){b{y:2}}@import 'u';")
    ['a{x:1}', '@media (min-width:1px){b{y:2}}', "@import 'u';"]
    """
    rules, out, depth, i, quote = [], [], 0, 0, None
    while i < len(css):
        c = css[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif css.startswith("/*", i):
            end = css.find("*/", i + 2)
            i = len(css) if end < 0 else end + 2
            continue
        elif c in "\"'":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                out.append(c)
                rules.append("".join(out).strip())
                out, i = [], i + 1
                continue
        elif c == ";" and depth == 0:
            out.append(c)
            rules.append("".join(out).strip())
            out, i = [], i + 1
            continue
        out.append(c)
        i += 1
    rest = "".join(out).strip()
    if rest:
        rules.append(rest)
    return [r for r in rules if r]


def _strip_functional(selector: str) -> str:
    """The selector without the insides of :not(), :is(), :has() and the like."""
    while True:
        m = _FUNCTIONAL.search(selector)
        if not m:
            return selector
        depth, j = 1, m.end()
        while j < len(selector) and depth:
            depth += {"(": 1, ")": -1}.get(selector[j], 0)
            j += 1
        selector = selector[: m.start()] + selector[j:]


def split_selectors(selectors: str) -> list[str]:
    """A selector list split at its own commas, not at those inside ``:is(...)`` or ``[...]``.

    Examples
    --------
    >>> split_selectors(':is(.a,.b):before,.c[x="1,2"]')
    [':is(.a,.b):before', '.c[x="1,2"]']
    """
    parts, depth, start, quote = [], 0, 0, None
    for i, c in enumerate(selectors):
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(selectors[start:i])
            start = i + 1
    parts.append(selectors[start:])
    return parts


def selector_is_used(selector: str, words: set[str]) -> bool:
    """Whether every class and id the selector needs occurs among ``words``.

    Examples
    --------
    >>> selector_is_used(".btn:not(.nope) > .x", {"btn", "x"})
    True
    >>> selector_is_used(".carousel-item", {"btn"})
    False
    >>> selector_is_used("a[href$='.pdf']", set())
    True
    """
    bare = re.sub(r"\[[^\]]*\]", "", _strip_functional(selector))
    if "\\" in bare:
        return True
    for _, name in _TOKEN.findall(bare):
        if name not in words and not name.startswith(SAFE_PREFIXES):
            return False
    return True


def purge(css: str, words: set[str]) -> str:
    """The stylesheet without the rules whose every selector needs a class or id not in ``words``.

    Examples
    --------
    >>> purge(".a,.b{x:1}.c{y:2}@media print{.c{z:3}.a{w:4}}@font-face{src:url(f)}", {"a"})
    '.a{x:1}\\n@media print{.a{w:4}}\\n@font-face{src:url(f)}'
    """
    kept = []
    for rule in split_rules(css):
        if rule.startswith("@"):
            head, brace, body = rule.partition("{")
            if brace and head.split()[0] in ("@media", "@supports", "@layer", "@container"):
                inner = purge(body[:-1], words)
                if inner:
                    kept.append(f"{head}{{{inner.replace(chr(10), '')}}}")
            else:
                kept.append(rule)
            continue
        selectors, brace, body = rule.partition("{")
        used = [s.strip() for s in split_selectors(selectors) if selector_is_used(s.strip(), words)]
        if used:
            kept.append(",".join(used) + brace + body)
    return "\n".join(kept)


#: Scripts the pages never run (the theme's icon script, replaced by icons.css) or that hold text only.
NOT_RUN = ("fontawesome.js", "searchindex.js")


def site_words(root: Path) -> set[str]:
    """Every word-like token in the site's pages and scripts (class names, ids, strings)."""
    words: set[str] = set()
    for path in list(root.rglob("*.html")) + list(root.rglob("*.js")):
        if path.name not in NOT_RUN:
            words.update(re.findall(r"[\w-]+", path.read_text(encoding="utf-8", errors="replace")))
    return words


def stylesheet(root: Path, href: str, words: set[str], bundle_dir: str) -> str:
    """One stylesheet, ``@import`` inlined, ``url()`` made relative to ``bundle_dir``."""
    rel = posixpath.normpath(href.split("?")[0])
    text = (root / rel).read_text(encoding="utf-8")
    here = posixpath.dirname(rel)

    def inline(m: re.Match) -> str:
        return stylesheet(root, posixpath.join(here, m.group(1)), words, bundle_dir)

    def rebase(m: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(here, m.group(2)))
        return f'url("{posixpath.relpath(target, bundle_dir)}")'

    text = _IMPORT.sub(inline, text)
    text = _URL.sub(rebase, text)
    if any(fnmatch.fnmatch(rel.removeprefix("_static/"), pattern) for pattern in PURGED):
        text = purge(text, words)
    return f"/* {rel} */\n{text}\n"


def bundle_page(page_html: str, depth: int, root: Path, words: set[str],
                written: dict[tuple, str]) -> str:
    """The page with its stylesheet links replaced by one link to their bundle (written once)."""
    links = _LINK.findall(page_html)
    if len(links) < 2:
        return page_html
    prefix = "../" * depth
    hrefs = tuple(_HREF.search(link).group(1).removeprefix(prefix) for link in links)
    if hrefs not in written:
        css = "".join(stylesheet(root, href, words, "_static/sa") for href in hrefs)
        name = f"_static/sa/site-{hashlib.sha256(css.encode()).hexdigest()[:10]}.css"
        (root / name).write_text(css, encoding="utf-8")
        written[hrefs] = name
    first = page_html.index(links[0])
    for link in links:
        page_html = page_html.replace(link, "", 1)
    tag = f'<link rel="stylesheet" href="{prefix}{written[hrefs]}" />\n'
    return page_html[:first] + tag + page_html[first:]


def linked_bundles(pages_html) -> set[str]:
    """The bundles (``_static/sa/site-<hash>.css``) that the pages link, relative to the site's root.

    Examples
    --------
    >>> sorted(linked_bundles(['<link rel="stylesheet" href="../_static/sa/site-0123456789.css" />',
    ...                        '<link rel="stylesheet" href="_static/sa/sa.css" />']))
    ['_static/sa/site-0123456789.css']
    """
    return {m.group(1) for text in pages_html for m in _BUNDLE.finditer(text)}


def _inputs_key(page_html: str, depth: int, root: Path) -> str:
    """What a page's bundle is made from, besides the site's words: the page and its stylesheets."""
    h = hashlib.sha256(page_html.encode())
    for link in _LINK.findall(page_html):
        href = _HREF.search(link).group(1).removeprefix("../" * depth)
        path = root / posixpath.normpath(href.split("?")[0])
        h.update(b"\0" + (path.read_bytes() if path.exists() else b""))
    return h.hexdigest()


def _build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    root = Path(app.outdir)
    pages = {}
    for page in sorted(root.rglob("*.html")):
        rel = page.relative_to(root)
        if not rel.parts[0].startswith("_"):
            pages[rel] = page.read_text(encoding="utf-8")
    # Only the pages this build wrote link their stylesheets one by one.
    fresh = [rel for rel, text in pages.items() if len(_LINK.findall(text)) >= 2]
    notes = Path(app.doctreedir) / "sitecss.json"
    before = json.loads(notes.read_text(encoding="utf-8")) if notes.exists() else {}
    after, words, written = {}, None, {}
    for rel in fresh:
        depth = len(rel.parts) - 1
        key = _inputs_key(pages[rel], depth, root)
        if (root / before.get(key, "-")).is_file():  # this page, these stylesheets: bundled before
            links = _LINK.findall(pages[rel])
            hrefs = tuple(_HREF.search(link).group(1).removeprefix("../" * depth) for link in links)
            pages[rel] = bundle_page(pages[rel], depth, root, set(), {hrefs: before[key]})
        else:
            words = site_words(root) if words is None else words
            pages[rel] = bundle_page(pages[rel], depth, root, words, written)
        after[key] = linked_bundles([pages[rel]]).pop()
        (root / rel).write_text(pages[rel], encoding="utf-8")
    keep = linked_bundles(pages.values())
    notes.parent.mkdir(parents=True, exist_ok=True)
    notes.write_text(json.dumps({k: v for k, v in {**before, **after}.items() if v in keep}, indent=0,
                                sort_keys=True), encoding="utf-8")
    for old in (root / "_static" / "sa").glob("site-*.css"):  # bundles that no page links any more
        if f"_static/sa/{old.name}" not in keep:
            old.unlink()


def setup_sitecss(app, *, build_finished: int) -> None:
    """Bundle each page's stylesheets when the build ends (at ``build_finished``).

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def connect(self, event, handler, priority=500): self.event = (event, priority)
    >>> app = App()
    >>> setup_sitecss(app, build_finished=900)
    >>> app.event
    ('build-finished', 900)
    """
    app.connect("build-finished", _build_finished, priority=build_finished)

