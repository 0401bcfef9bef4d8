"""The 404 page at any depth, the search page, and link underlines: as a reader sees them."""

from __future__ import annotations

import functools
import http.server
import re
import threading
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": 1366, "phone": 390}


class _NotFoundHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site as a host does: a missing address gets 404.html, whatever its depth."""

    def log_message(self, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        if code != 404:
            return super().send_error(code, message, explain)
        body = (self.directory_path / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


#: Where the book sits on a host that serves it under a path (a project page), not at its root.
SUB_PATH = "/book/"


class _SubPathHandler(_NotFoundHandler):
    """Serves the site under SUB_PATH, as a project page is; the rest of the host is missing."""

    def translate_path(self, path):
        if not path.startswith(SUB_PATH):
            return str(self.directory_path / "no such file")
        return super().translate_path("/" + path[len(SUB_PATH):])


def _serve(built_book, handler_class):
    handler_class.directory_path = built_book
    handler = functools.partial(handler_class, directory=str(built_book))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def host_url(built_book):
    server = _serve(built_book, _NotFoundHandler)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def sub_path_url(built_book):
    server = _serve(built_book, _SubPathHandler)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def open_page(tabs, url, width, mode):
    """A new reader's tab for ``url`` (not loaded yet) and the list its errors go to."""
    tabs.origins.add("{0.scheme}://{0.netloc}".format(urlparse(url)))   # its storage starts empty too
    page = tabs.open(mode=mode, viewport={"width": width, "height": 900})
    errors = []

    def console(msg):
        # A 404 page is answered with status 404, which Chromium logs as a failed load: that one is meant.
        if msg.type == "error" and not (msg.text.startswith("Failed to load resource") and
                                        msg.location.get("url", "").split("#")[0] == page.url.split("#")[0]):
            errors.append(msg.text)

    page.on("console", console)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}")
            if r.status >= 400 and r.request.resource_type != "document" else None)
    return page, errors


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
@pytest.mark.parametrize("address", ["/no-such-page.html", "/deep/x/missing.html"])
def test_the_404_page_has_its_styles_and_working_links_at_any_depth(tabs, host_url, address, width, mode):
    page, errors = open_page(tabs, host_url + address, width, mode)
    response = page.goto(host_url + address, wait_until="load")
    assert response.status == 404 and page.title().startswith("Page not found")
    # The site's styles apply: the theme's layout and the book's own stylesheet.
    sheets = page.evaluate("""() => [...document.styleSheets].filter(s => s.href)
                                     .map(s => { try { return [s.href, s.cssRules.length]; }
                                                 catch (e) { return [s.href, -1]; } })""")
    assert sheets and all(n > 0 for _, n in sheets), sheets
    assert page.evaluate("getComputedStyle(document.querySelector('.bd-main')).display") == "flex"
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    # Every link and resource of the page points into the site, and is there.
    addresses = page.evaluate("""() => [...document.querySelectorAll('a[href], link[href], script[src], img[src]')]
        .map(el => el.href || el.src).filter(u => u.startsWith(location.origin))
        .map(u => u.split('#')[0]).filter(u => u !== location.href.split('#')[0])""")
    assert any(a.endswith("/index.html") for a in addresses)
    for url in sorted(set(addresses)):
        assert "/deep/" not in url, url
        status = page.evaluate("async (u) => (await fetch(u, {method: 'HEAD'})).status", url)
        assert status == 200, url
    page.get_by_role("link", name="front page").click()
    page.wait_for_load_state()
    assert page.url == host_url + "/index.html"
    assert not errors, errors


@pytest.mark.parametrize("address", ["no-such-page.html", "deep/x/missing.html"])
def test_the_404_page_finds_the_book_under_a_path_the_build_did_not_know(tabs, sub_path_url, address):
    """Hosted under /book/, the page moves its addresses from the root the build wrote (W3 #21).

    Until it has found the book, its first stylesheet and scripts fail to load: those errors are
    expected here, and only the page it ends with is checked.
    """
    url = sub_path_url + SUB_PATH + address
    page, _ = open_page(tabs, url, WIDTHS["phone"], "dark")
    response = page.goto(url, wait_until="load")
    assert response.status == 404 and page.title().startswith("Page not found")
    page.wait_for_function("() => document.documentElement.dataset.saRoot")
    assert page.evaluate("document.documentElement.dataset.content_root") == SUB_PATH
    # The styles apply, and the book's own script ran (it marks <html> when it starts).
    page.wait_for_function("() => getComputedStyle(document.querySelector('.bd-main')).display === 'flex'")
    page.wait_for_function("() => document.documentElement.classList.contains('sa-js')")
    addresses = page.evaluate("""() => [...document.querySelectorAll('a[href], link[href], script[src], img[src]')]
        .map(el => el.href || el.src).filter(u => u.startsWith(location.origin))
        .map(u => u.split('#')[0]).filter(u => u !== location.href.split('#')[0])""")
    assert any(a.endswith(SUB_PATH + "index.html") for a in addresses)
    for a in sorted(set(addresses)):
        assert a.startswith(sub_path_url + SUB_PATH) and "/deep/" not in a, a
        assert page.evaluate("async (u) => (await fetch(u, {method: 'HEAD'})).status", a) == 200, a
    page.get_by_role("link", name="front page").click()
    page.wait_for_load_state()
    assert page.url == sub_path_url + SUB_PATH + "index.html"


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
def test_search_shows_what_is_typed_names_the_pages_and_quotes_the_prose(tabs, site_url, width, mode):
    page, errors = open_page(tabs, site_url + "/search.html", width, mode)
    page.goto(site_url + "/search.html", wait_until="load")
    field = page.locator("#main-content form.bd-search input")
    icon = page.locator("#main-content form.bd-search .fa-magnifying-glass")
    field.fill("softmax")
    # The magnifier ends before the first letter typed starts.
    text_start = field.evaluate("el => el.getBoundingClientRect().left"
                                " + parseFloat(getComputedStyle(el).paddingLeft)")
    assert icon.bounding_box()["x"] + icon.bounding_box()["width"] <= text_start + 0.5
    field.press("Enter")
    page.wait_for_selector("#search-results li.kind-object")
    page.wait_for_selector("#search-results li.kind-text p.context", timeout=30_000)
    # API results name the page they are on.
    descriptions = [d.strip() for d in page.locator("#search-results li.kind-object > span").all_inner_texts()]
    assert descriptions and all(re.fullmatch(r"\(Python [\w ]+, in \S.*\)", d) for d in descriptions), \
        descriptions[:5]
    # A chapter's snippet quotes its prose, not the contents list above it.
    result = page.locator("#search-results li.kind-text").first
    link = result.locator("a").first.get_attribute("href")
    snippet = result.locator("p.context").inner_text().strip().strip(".…").strip()
    contents = page.evaluate("""async (u) => {
        const doc = new DOMParser().parseFromString(await (await fetch(u)).text(), 'text/html');
        return [...doc.querySelectorAll('.bd-header-article, .bd-sidebar-secondary')]
               .map(e => e.textContent).join(' ');}""", link)
    norm = lambda s: " ".join(s.split())  # noqa: E731
    assert norm(snippet)[:60] not in norm(contents), snippet
    assert "softmax" in snippet.lower()
    assert not errors, errors


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
def test_link_underlines_do_not_hide_an_underscore(tabs, site_url, width):
    page, _ = open_page(tabs, site_url + "/index.html", width, "light")
    page.goto(site_url + "/index.html", wait_until="load")
    link = page.locator("#tbl-chapters a", has_text="√d_k").first
    offset, size, line = link.evaluate("""el => { const s = getComputedStyle(el);
        return [parseFloat(s.textUnderlineOffset), parseFloat(s.fontSize), s.textDecorationLine]; }""")
    assert "underline" in line
    # The underscore reaches about 0.2 em below the baseline; the underline sits lower.
    assert offset >= 0.25 * size, (offset, size)
