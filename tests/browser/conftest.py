"""Playwright fixtures driving Debian's Chromium (never a downloaded browser)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.conftest import in_ci

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        msg = f"{CHROMIUM} is missing (apt-get install -y chromium)"
        if in_ci():
            pytest.fail(msg)
        pytest.skip(msg)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


class PageWatch:
    """Records console errors, page errors and requests to other hosts."""

    def __init__(self, page, base_url: str):
        self.page = page
        self.host = urlparse(base_url).netloc
        self.console_errors: list[str] = []
        self.foreign: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.console_errors.append(f"pageerror: {exc}"))
        page.route("**/*", self._route)

    def _console(self, msg):
        if msg.type == "error":
            self.console_errors.append(msg.text)

    def _route(self, route):
        url = urlparse(route.request.url)
        if url.scheme in ("data", "blob") or url.netloc == self.host:
            route.continue_()
        else:
            self.foreign.append(route.request.url)
            route.abort()


@pytest.fixture
def page(browser, site_url):
    context = browser.new_context()
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)
    yield pg
    context.close()


def read_config(built_book: Path, page_path: str, lab_id: str) -> dict:
    """The configuration of lab ``lab_id`` as its built page holds it (public data)."""
    import json
    import re

    html = (built_book / page_path).read_text(encoding="utf-8")
    found = re.search(
        rf'<div class="sa-lab" data-lab="[a-z0-9-]+" id="{re.escape(lab_id)}">'
        r'<script type="application/json" class="sa-lab-config"( data-src="([^"]+)")?>(.*?)</script>', html, re.S)
    assert found, f"{page_path} has no lab {lab_id}"
    if found.group(2):  # a large configuration lives in its own file (booksite.labdata)
        return json.loads((built_book / page_path).parent.joinpath(found.group(2)).read_text(encoding="utf-8"))
    return json.loads(found.group(3).replace("<\\/", "</"))


def lab_fixture(built_book: Path, page_path: str, lab_id: str, name: str) -> dict:
    """The package's values for the lab's test states, computed here from the page's own config.

    Nothing for the tests ships in the public page: the tests call
    ``booktools.labs.fixture`` on the configuration the lab itself reads.
    """
    from booktools.labs import fixture

    return fixture(name, read_config(built_book, page_path, lab_id))


def open_lab_page(browser, site_url: str, page_path: str, ready: str, **context_options):
    """Open a page once for a whole test module; yield it, then close it.

    ``ready`` is a selector that exists once the lab has drawn itself.
    """
    context = browser.new_context(**context_options)
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)
    pg.goto(f"{site_url}/{page_path}")
    pg.wait_for_selector(ready)
    yield pg
    context.close()
