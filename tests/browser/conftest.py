"""Playwright fixtures driving Debian's Chromium (never a downloaded browser)."""

from __future__ import annotations

import json
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
        # Watched, not routed: a route sends each of a page's fifty files through the driver and back,
        # which makes every load two to three times slower. A request to another host is recorded
        # here (the site's CSP blocks most before they start; this machine's network, the rest).
        page.on("request", self._request)

    def _console(self, msg):
        if msg.type == "error":
            self.console_errors.append(msg.text)

    def _request(self, request):
        url = urlparse(request.url)
        if url.scheme not in ("data", "blob") and url.netloc != self.host:
            self.foreign.append(request.url)


#: Sets the colour mode as the theme's menu does, before the page's scripts read it.
MODE_SCRIPT = ("try {{ localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}'); }} "
               "catch (e) {{}}")


#: Page methods whose effect outlives a navigation (a listener, a route, an init script, a window size,
#: emulated media, headers, timeouts): a tab on which a test called one is closed when the test ends,
#: never handed to another test (:class:`Tabs`).
LASTING = ("on", "once", "add_init_script", "route", "route_from_har", "unroute", "unroute_all",
           "expose_function", "expose_binding", "set_viewport_size", "emulate_media", "set_extra_http_headers",
           "set_default_timeout", "set_default_navigation_timeout")


class Tabs:
    """Tabs in browser contexts that one test worker keeps open: one context per set of options.

    A new context costs about a second of CPU before its first page (measured: 1.6 CPU-s for a
    chapter in a new context, 0.6 CPU-s in a new tab of a context kept open with one blank tab), and
    a new tab costs more than a page loaded in a tab that has loaded one before (measured on this
    machine, 20 loads of "A weighted average": 0.8 CPU-s of Chromium each in a new tab, 0.3 CPU-s in a
    tab used again; a new tab starts a new renderer, which parses the site's stylesheet and scripts
    again). The tests run two workers on two cores, so that CPU is paid by the whole run.

    Each test still starts as a new reader. :meth:`open` empties the cookies and every storage of
    the site's origins (local and session storage, IndexedDB, Cache Storage, service workers) first,
    then gives a tab that shows a new document: a new tab, or a tab that an earlier test of the same
    context used and left on ``about:blank`` (its Python and workers ended with its document), with
    its history cleared and the mouse outside the window, as a new tab has it. A tab on which a test
    changed something that outlives a navigation (:data:`LASTING`: a listener, a route, the window's
    size...) or opened a DevTools session is closed instead. What stays is the HTTP cache, warm as a
    returning reader's is. A test about a first visit, a download or a cache opens a context of its own.
    """

    def __init__(self, browser, site_url: str):
        self.browser, self.site_url = browser, site_url
        self.origins = {site_url}
        # options -> (context, CDP session of its blank tab, the context's own new_cdp_session)
        self.contexts: dict[str, tuple] = {}
        self.idle: dict[str, list] = {}        # options -> tabs left on about:blank, ready for another test
        self.opened: list = []                 # (options, tab) of the test that is running

    def open(self, path: str | None = None, *, mode: str | None = None, wait_until: str = "load", **options):
        """A new reader's tab in the context of ``options`` (``browser.new_context``'s), the colour mode
        set to ``mode`` if one is given, at ``path`` (a path of the site or a whole address) if one is
        given. It is left for another test, or closed, when the test ends (the ``tabs`` fixture)."""
        key = json.dumps([mode, options], sort_keys=True)
        if key not in self.contexts:
            context = self.browser.new_context(**options)
            if mode:
                context.add_init_script(MODE_SCRIPT.format(mode=mode))
            blank = context.new_page()   # keeps the context's processes and caches alive between tests
            new_session = context.new_cdp_session
            self.contexts[key] = (context, new_session(blank), new_session)
            self.idle[key] = []

            def marking_session(page, _new=new_session):   # a test's DevTools session outlives its document
                page.lasting = True
                return _new(page)
            context.new_cdp_session = marking_session
        context, cdp, new_session = self.contexts[key]
        url = None if path is None else path if "://" in path else f"{self.site_url}/{path}"
        if url:
            self.origins.add("{0.scheme}://{0.netloc}".format(urlparse(url)))
        context.clear_cookies()
        for origin in self.origins:
            cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        if self.idle[key]:
            page = self.idle[key].pop()
            del page.watch.console_errors[:], page.watch.foreign[:]
        else:
            page = context.new_page()
            page.watch = PageWatch(page, self.site_url)
            page.tab_session = new_session(page)   # kept for the tab's life: it clears its history
            mark_lasting(page)
        self.opened.append((key, page))
        if url:
            page.goto(url, wait_until=wait_until)
        return page

    def close_opened(self) -> None:
        """Leave each tab of the test on ``about:blank`` for another test, or close it (:data:`LASTING`)."""
        for key, page in self.opened:
            if page.is_closed():
                continue
            if page.lasting:
                page.close()
                continue
            try:
                page.goto("about:blank")
                page.mouse.move(-10, -10)   # a new tab's mouse has not moved: nothing is hovered
                page.tab_session.send("Page.resetNavigationHistory")
            except Exception:   # a crashed tab, say: it is not used again
                page.close()
                continue
            self.idle[key].append(page)
        self.opened.clear()

    def close(self) -> None:
        for context, _, _ in self.contexts.values():
            context.close()


def mark_lasting(page) -> None:
    """Set ``page.lasting`` when a method of :data:`LASTING` is called on ``page``."""
    page.lasting = False
    for name in LASTING:
        method = getattr(page, name)

        def marking(*args, _method=method, **kwargs):
            page.lasting = True
            return _method(*args, **kwargs)
        setattr(page, name, marking)


@pytest.fixture(scope="session")
def _tab_contexts(browser, site_url):
    tabs = Tabs(browser, site_url)
    yield tabs
    tabs.close()


@pytest.fixture
def tabs(_tab_contexts):
    """``tabs.open(path, mode=..., **context_options)``: a new reader's tab (:class:`Tabs`), closed
    when the test ends."""
    yield _tab_contexts
    _tab_contexts.close_opened()


@pytest.fixture
def page(tabs):
    """A new reader's tab (:class:`Tabs`) at 1280 x 720 in light mode (the browser's default), on
    ``about:blank``."""
    return tabs.open()


def read_config(built_book: Path, page_path: str, lab_id: str) -> dict:
    """The configuration of lab ``lab_id`` as its built page holds it (public data)."""
    import json

    from booktools.labs.contract import CONFIG_BLOCK, LAB_TAG

    html = (built_book / page_path).read_text(encoding="utf-8")
    tag = next((m for m in LAB_TAG.finditer(html) if m["id"] == lab_id), None)
    assert tag, f"{page_path} has no lab {lab_id}"
    found = CONFIG_BLOCK.match(html, tag.end())
    assert found, f"lab {lab_id} of {page_path} has no configuration block"
    if found["src"]:  # a large configuration lives in its own file (booksite.labdata)
        return json.loads((built_book / page_path).parent.joinpath(found["src"]).read_text(encoding="utf-8"))
    return json.loads(found["body"].replace("<\\/", "</"))


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


# ---------------------------------------------------------------------------
# The one interpreter of lab actions
# ---------------------------------------------------------------------------

def perform(page, root, steps, *, how: str = "mouse") -> None:
    """Do ``steps`` on the lab ``root`` (a locator), one after the other.

    Each lab's tests translate the fixture's actions into these steps; this
    function alone drives the browser. Selectors are relative to ``root``.

    ==========================  ====================================================
    step                        what it does
    ==========================  ====================================================
    ``("click", sel)``          presses the control: a mouse click, a tap
                                (``how="touch"``), or focus and Enter
                                (``how="keyboard"``)
    ``("click-enabled", sel)``  the same, if the control is enabled
    ``("keys", sel, keys)``     focuses ``sel`` (``None``: keeps the focus) and
                                presses each key of ``keys``
    ``("fill", sel, text)``     sets an input's value, as typing it does
    ``("check", sel, on)``      ticks a checkbox (``on``) or clears it
    ``("select", sel, value)``  chooses an option of a ``<select>``
    ``("hover", sel)``          points at ``sel``; ``None``: the pointer leaves the lab
    ``("drag", start, end)``    drags the mouse from one viewport point to another
    ==========================  ====================================================

    Examples
    --------
    >>> perform(None, None, [("wave", "button")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: no lab action 'wave'; the actions are ['check', 'click', ...]
    """
    if how not in ("mouse", "touch", "keyboard"):
        raise ValueError(f"how must be 'mouse', 'touch' or 'keyboard', got {how!r}")
    for step in steps:
        verb, *args = step
        if verb not in _ACTIONS:
            raise ValueError(f"no lab action {verb!r}; the actions are {sorted(_ACTIONS)}")
        _ACTIONS[verb](page, root, how, *args)


def _press(page, root, how, sel):
    control = root.locator(sel)
    if how == "touch":
        control.tap()
    elif how == "keyboard":
        control.focus()
        page.keyboard.press("Enter")
    else:
        control.click()


def _press_enabled(page, root, how, sel):
    if root.locator(sel).is_enabled():
        _press(page, root, how, sel)


def _keys(page, root, how, sel, keys):
    if sel is not None:
        root.locator(sel).focus()
    for key in keys:
        page.keyboard.press(key)


def _hover(page, root, how, sel):
    if sel is None:
        page.mouse.move(1, 1)
    else:
        root.locator(sel).hover()


def _drag(page, root, how, start, end, steps=6):
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    page.mouse.up()


_ACTIONS = {
    "click": _press,
    "click-enabled": _press_enabled,
    "keys": _keys,
    "fill": lambda page, root, how, sel, text: root.locator(sel).fill(str(text)),
    "check": lambda page, root, how, sel, on: root.locator(sel).set_checked(on),
    "select": lambda page, root, how, sel, value: root.locator(sel).select_option(str(value)),
    "hover": _hover,
    "drag": _drag,
}


#: Starts the runtime's Worker on the page (as run.js does), puts ``files`` (Python path -> site path)
#: into its file system, runs ``code`` and resolves to ``{ok, out, err, now}`` (``now``: the browser's
#: clock, in seconds, when the cell finished). For tests of the runtime itself, without a Run button.
RUN_IN_WORKER = """async ([code, files]) => {
  const site = new URL("./", location.href);
  const base = new URL("_static/sa/run/runtime/", site);
  const manifest = await (await fetch(new URL("runtime.json", base))).json();
  const data = await Promise.all(Object.values(files).map(
    async (url) => (await fetch(new URL(url, site))).arrayBuffer()));
  const worker = new Worker(new URL("_static/sa/run/runtime.js", site), { type: "module" });
  const out = [], err = [];
  const done = new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      const msg = event.data;
      if (msg.type === "ready") {
        Object.keys(files).forEach((path, k) =>
          worker.postMessage({ type: "put", path, data: data[k] }, [data[k]]));
        worker.postMessage({ type: "run", id: "check", code });
      } else if (msg.type === "out") {
        (msg.stream === "stderr" ? err : out).push(msg.text);
      } else if (msg.type === "done") {
        resolve({ ok: msg.ok, out: out.join(""), err: err.join(""), now: Date.now() / 1000 });
      } else if (msg.type === "crash") {
        reject(new Error(msg.message));
      }
    };
    worker.onerror = (event) => reject(new Error(event.message || "the worker failed"));
  });
  worker.postMessage({ type: "start", base: base.href, manifest });
  try { return await done; } finally { worker.terminate(); }
}"""
