"""The explorer's "Compute": the real model, run offline in Chromium, equals the package.

One page load serves most tests: a sentence that appears nowhere in the book
is typed and computed once (the runtime and the model's float16 files come
from 127.0.0.1; every other host is blocked), and the weights on screen are
compared with the package's float32 forward pass computed here,
:func:`selfattention.minilm.sentence_attentions`, within the float16
storage tolerance that the model's own tests measure. Also: nothing is
fetched before Compute; a second visit starts Python from the cache as the
reader comes to the box; a model file whose SHA-256 is wrong is refused;
an empty, a too long and an unknown-character
sentence get their messages or marks; Cancel aborts the downloads; the
heatmap is saved as PNG and SVG under the name
:func:`booktools.labs.explorer_export.export_stem` gives; the keyboard reaches the
box, Compute and the export; a browser without the WebAssembly it needs
gets the command-line explorer's command; and the new parts fit 1366 and
390 px in light and dark mode.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from booktools.labs.explorer import COMMAND, MAX_TOKENS, export_stem
from tests.browser.conftest import PageWatch, read_config
from tests.browser.test_lab_devices import TEXT_AND_BACKGROUND, contrast
from tests.browser.test_lab_reader_walk import choose as choose_mode
from tests.selfattention.test_minilm import F16_TOLERANCE

pytestmark = pytest.mark.browser

PAGE = "attention-in-a-real-model.html"
LAB = "#explorer-lab"
READY = f"{LAB}.sa-lab-ready table.sa-ex-grid td"
#: A sentence the book never shows (the test checks), short enough for the table view.
SENTENCE = "Seven quiet otters juggle marmalade beneath the lighthouse."
#: Characters the vocabulary cannot spell become [UNK].
UNKNOWN = "Snowmen ☃ wave 🙂 kindly."
#: Fetched only after Compute.
LOADED_LATER = re.compile(r"/_static/(sa/run/runtime/|model/)|explorer-compute\.js")
#: Whether, within 30 s, the caches of the runtime (runtime.js) and of the model (model-files.js) hold
#: ``n`` files in all (a copy is listed once it is written whole).
KEPT = """async (n) => {
  const held = async (name) => ((await caches.has(name)) ? (await (await caches.open(name)).keys()).length : 0);
  for (let i = 0; i < 300; i += 1) {
    if ((await held("sa-python-runtime")) + (await held("sa-model")) >= n) return true;
    await new Promise((done) => setTimeout(done, 100));
  }
  return false;
}"""
#: 7 decimals in data-w, 3 on screen.
SHOWN_DECIMALS = 5e-4

WEIGHTS = """root => [...root.querySelectorAll("table.sa-ex-grid tbody tr")].map(tr =>
    [...tr.querySelectorAll("td")].map(td => [Number(td.dataset.w), td.textContent]))"""


#: Counts the page's Worker.terminate() calls (Cancel ends Python's Worker).
COUNT_TERMINATE = """window.__saTerminated = 0;
window.__saWorkers = 0;
const SaWorker = window.Worker;
window.Worker = class extends SaWorker {
  constructor(...args) { super(...args); window.__saWorkers += 1; }
};
const saTerminate = Worker.prototype.terminate;
Worker.prototype.terminate = function terminate() { window.__saTerminated += 1; return saTerminate.call(this); };"""


def new_page(browser, site_url, init_script=None, **options):
    context = browser.new_context(accept_downloads=True, **options)
    if init_script:
        context.add_init_script(init_script)
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)   # every host but the book's is blocked: offline
    pg.requests = []
    context.on("request", lambda r: pg.requests.append(r.url))
    pg.goto(f"{site_url}/{PAGE}")
    pg.wait_for_selector(READY)
    return context, pg


def later(pg) -> list[str]:
    return [u for u in pg.requests if LOADED_LATER.search(u)]


def message(lab) -> str:
    return lab.locator(".sa-ex-own-status").text_content()


def press_compute(pg, lab, text: str) -> None:
    lab.locator(".sa-ex-text").fill(text)
    lab.locator("button[data-action=compute]").click()


def wait_message(pg, pattern: str) -> None:
    pg.wait_for_function("([sel, p]) => new RegExp(p).test(document.querySelector(sel).textContent)",
                         arg=[f"{LAB} .sa-ex-own-status", pattern], timeout=60_000)


def wait_computed(pg, lab, count: int) -> None:
    pg.wait_for_function(f"() => Number(document.querySelector('{LAB}').dataset.computed || 0) >= {count}",
                         timeout=240_000)


def choose(lab, layer, head, temperature=None) -> None:
    lab.locator("select.sa-ex-layer").select_option(str(layer))
    lab.locator("select.sa-ex-head").select_option(str(head))
    if temperature is not None:
        lab.locator("input.sa-ex-temperature").fill(str(temperature))


@pytest.fixture(scope="module")
def package():
    from selfattention.minilm import sentence_attentions

    return sentence_attentions(SENTENCE)


@pytest.fixture(scope="module")
def shared(browser, site_url):
    """One page for the module, at 1366 x 900."""
    context, pg = new_page(browser, site_url, viewport={"width": 1366, "height": 900})
    yield pg
    context.close()


@pytest.fixture(scope="module")
def computed(shared):
    """SENTENCE computed once, cold; what the download looked like on the way."""
    pg = shared
    lab = pg.locator(LAB)
    before = later(pg)
    press_compute(pg, lab, SENTENCE)
    pg.wait_for_selector(f"{LAB} .sa-ex-progress:not([hidden])", timeout=60_000)
    progress = lab.locator(".sa-ex-progress-text").text_content()
    busy = lab.locator("button[data-action=compute]").get_attribute("aria-disabled")
    cancel_shown = lab.locator("button[data-action=cancel]").is_visible()
    wait_computed(pg, lab, 1)
    return {"before": before, "progress": progress, "busy": busy, "cancel_shown": cancel_shown,
            "ms": float(lab.get_attribute("data-compute-ms"))}


@pytest.fixture
def lab(shared):
    yield shared.locator(LAB)
    assert shared.watch.console_errors == [], f"console errors: {shared.watch.console_errors}"
    assert shared.watch.foreign == [], f"requests to other hosts: {shared.watch.foreign}"


def test_the_sentence_is_nowhere_in_the_book(built_book):
    config = read_config(built_book, PAGE, "explorer-lab")
    assert SENTENCE not in {s["text"] for s in config["sentences"]}
    assert not any(SENTENCE in p.read_text(encoding="utf-8") for p in built_book.rglob("*.html"))
    assert config["compute"]["max_tokens"] == MAX_TOKENS


def test_chapter_one_sends_the_reader_of_the_referent_game_to_the_explorer(built_book):
    html = (built_book / "words-are-islands.html").read_text(encoding="utf-8")
    game = html.index('id="referent-game"')
    link = re.search(r'<p>Try your own sentence: the <a class="reference internal" '
                     r'href="attention-in-a-real-model\.html#sec-explorer">', html[game:])
    assert link, "no 'Try your own sentence' link after the referent game"
    target = (built_book / PAGE).read_text(encoding="utf-8")
    assert re.search(r'<section id="sec-explorer">|id="sec-explorer"', target)


def test_nothing_is_fetched_before_compute_and_bad_input_gets_a_message(shared, lab):
    assert later(shared) == []
    go = lab.locator("button[data-action=compute]")
    assert go.text_content() == "Compute" and lab.locator(".sa-ex-text").get_attribute("id")
    label = lab.locator(f"label[for='{lab.locator('.sa-ex-text').get_attribute('id')}']")
    assert label.text_content() == "Your own sentence"
    assert f"At most {MAX_TOKENS} tokens" in lab.locator(".sa-ex-own-note").text_content()
    # An empty box: a message, nothing loaded.
    press_compute(shared, lab, "   ")
    assert "empty" in message(lab)
    assert lab.locator(".sa-ex-own-status").get_attribute("aria-live") == "polite"
    # Far too many words: refused at once, with the limit and the command line; nothing cut, nothing loaded.
    long = " ".join(["otter"] * 300)
    press_compute(shared, lab, long)
    text = message(lab)
    assert f"at most {MAX_TOKENS}" in text and "302 tokens" in text and "nothing is cut" in text
    assert lab.locator(".sa-ex-command").text_content() == f'{COMMAND} "{long}"'
    assert lab.locator(".sa-ex-sentence").evaluate("s => s.options.length") == 8   # no sentence added
    assert later(shared) == []


def test_compute_shows_the_package_weights_offline(shared, lab, computed, package):
    assert computed["before"] == []   # nothing of the runtime or the model before the press
    assert re.fullmatch(r"\d+\.\d of \d+\.\d MB", computed["progress"]), computed["progress"]
    assert computed["busy"] == "true" and computed["cancel_shown"]
    got = [u.split("?")[0].rsplit("/", 1)[1] for u in later(shared)]
    assert {"python.wasm.gz", "stdlib.zip", "model.json", "model-f16.safetensors", "tokenizer.json",
            "config.json"} <= set(got)
    assert "Computed in" in message(lab)
    assert lab.locator("button[data-action=cancel]").is_hidden()
    assert lab.locator(".sa-ex-sentence option:checked").text_content() == f"Yours: {SENTENCE}"
    tokens = lab.locator(".sa-ex-strip .sa-ex-tok").all_text_contents()
    assert tokens == list(package.tokens)
    worst = 0.0
    for layer, head in [(0, 0), (4, 0), (2, 7), (5, 11), (3, "mean")]:
        choose(lab, layer, head)
        shown = lab.evaluate(WEIGHTS)
        exact = np.array([[w for w, _ in row] for row in shown])
        text = np.array([[float(t) for _, t in row] for row in shown])
        a = package.attentions[layer].mean(axis=0) if head == "mean" else package.attentions[layer, head]
        np.testing.assert_allclose(exact, a, rtol=0, atol=F16_TOLERANCE + 1e-7)
        np.testing.assert_allclose(text, a, rtol=0, atol=F16_TOLERANCE + SHOWN_DECIMALS)
        worst = max(worst, float(np.abs(exact - a).max()))
    # The temperature slider works on a computed sentence: softmax(log(w) / T) = w^(1/T), renormalised.
    choose(lab, 4, 0, temperature=0.5)
    sharp = package.attentions[4, 0].astype(np.float64) ** 2
    sharp /= sharp.sum(axis=-1, keepdims=True)
    exact = np.array([[w for w, _ in row] for row in lab.evaluate(WEIGHTS)])
    np.testing.assert_allclose(exact, sharp, rtol=0, atol=3 * F16_TOLERANCE)
    # A click on a token locks its row, as for the gallery.
    lab.locator(".sa-ex-strip button.sa-ex-token[data-i='3']").click()
    assert lab.get_attribute("data-locked") == "3"
    lab.locator("button[data-action=unlock]").click()
    lab.locator("button[data-action=reset]").click()
    print(f"\nlargest browser - package difference: {worst:.2e} (tolerance {F16_TOLERANCE})")


def test_a_second_compute_is_warm_marks_unknown_and_refuses_too_many_tokens(shared, lab, computed):
    fetched = len(later(shared))
    press_compute(shared, lab, UNKNOWN)
    wait_computed(shared, lab, 2)
    assert len(later(shared)) == fetched   # Python and the weights are kept: nothing is fetched again
    tokens = lab.locator(".sa-ex-strip .sa-ex-tok").all_text_contents()
    unk = [i for i, t in enumerate(tokens) if t == "[UNK]"]
    assert len(unk) == 2
    marked = lab.evaluate("r => [...r.querySelectorAll('.sa-ex-strip .sa-ex-token.is-unk')].map(b => +b.dataset.i)")
    assert marked == unk
    assert lab.locator(".sa-ex-unk-note").is_visible() and "2 of them [UNK]" in message(lab)
    border = lab.locator(f".sa-ex-strip .sa-ex-token[data-i='{unk[0]}']").evaluate(
        "el => getComputedStyle(el).borderTopStyle")
    assert border == "dashed"   # marked by more than colour
    # Few words, many tokens: the tokenizer counts them and the package refuses; nothing is cut.
    options = lab.locator(".sa-ex-sentence").evaluate("s => s.options.length")
    press_compute(shared, lab, " ".join(["supercalifragilistic"] * 40) + ".")
    wait_message(shared, "Not computed")
    # In the reader's words, as the word count's check says it, with the command-line explorer's command.
    said = message(lab)
    assert f"Compute takes at most {MAX_TOKENS}" in said and "nothing is cut" in said, said
    assert "max_tokens" not in said and "command-line explorer:" in said, said
    assert lab.locator(".sa-ex-own-status .sa-ex-command").count() == 1
    assert lab.locator(".sa-ex-sentence").evaluate("s => s.options.length") == options
    assert lab.locator("button[data-action=compute]").get_attribute("aria-disabled") == "false"


def test_export_saves_png_and_svg_named_after_what_is_shown(shared, lab, computed, package):
    lab.locator(".sa-ex-sentence").select_option(label=f"Yours: {SENTENCE}")
    choose(lab, 2, "mean", temperature=0.5)
    stem = export_stem(SENTENCE, 2, "mean", 0.5)
    with shared.expect_download() as info:
        lab.locator("button[data-action=save-png]").click()
    png = info.value
    assert png.suggested_filename == f"{stem}.png"
    assert Path(png.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with shared.expect_download() as info:
        lab.locator("button[data-action=save-svg]").click()
    svg = info.value
    assert svg.suggested_filename == f"{stem}.svg"
    tree = ET.parse(svg.path()).getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    L = len(package.tokens)
    assert len(tree.findall("s:rect", ns)) == L * L + 1   # the cells and the white ground
    assert SENTENCE in tree.find("s:title", ns).text and "layer 2, average of 12 heads" in tree.find("s:title", ns).text
    numbers = [t.text for t in tree.findall("s:text", ns) if t.text and re.fullmatch(r"\d\.\d{3}", t.text)]
    shown = [td for row in lab.evaluate(WEIGHTS) for _, td in row]
    assert numbers == shown   # the file holds the numbers on screen, in order
    # A built-in sentence too, at the start.
    lab.locator("button[data-action=reset]").click()
    gallery = lab.locator(".sa-ex-sentence option:checked").text_content()
    with shared.expect_download() as info:
        lab.locator("button[data-action=save-svg]").click()
    assert info.value.suggested_filename == f"{export_stem(gallery, 4, 0, 1.0)}.svg"


def test_the_keyboard_reaches_the_box_compute_and_the_export(shared, lab, computed):
    from selfattention.minilm import load_tokenizer

    lab.locator("button[data-action=reset]").click()
    lab.locator(".sa-ex-text").fill("")
    lab.locator("select.sa-ex-sentence").focus()
    active = "() => document.activeElement.className + '|' + (document.activeElement.dataset.action || '')"
    shared.keyboard.press("Tab")
    assert shared.evaluate(active).startswith("sa-ex-text")
    shared.keyboard.type("The otters nap.")
    shared.keyboard.press("Tab")
    assert shared.evaluate(active).endswith("|compute")
    ring = shared.evaluate("() => getComputedStyle(document.activeElement).outlineWidth")
    assert ring == "3px"
    shared.keyboard.press("Enter")
    wait_computed(shared, lab, 3)
    tokens = lab.locator(".sa-ex-strip .sa-ex-tok").all_text_contents()
    assert tokens == list(load_tokenizer().encode("The otters nap.").tokens)
    lab.locator(".sa-ex-grid-wrap").focus()
    shared.keyboard.press("Tab")
    assert shared.evaluate(active).endswith("|save-png")
    shared.keyboard.press("Tab")
    assert shared.evaluate(active).endswith("|save-svg")
    with shared.expect_download() as info:
        shared.keyboard.press("Enter")
    assert info.value.suggested_filename == f"{export_stem('The otters nap.', 4, 0, 1.0)}.svg"


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_new_parts_fit_and_read_in_light_and_dark(shared, lab, computed, width, mode):
    shared.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
    choose_mode(shared, mode, "mouse")   # from the theme menu, as a reader does
    try:
        lab.locator(".sa-ex-sentence").select_option(label=f"Yours: {UNKNOWN}")
        press_compute(shared, lab, " ".join(["otter"] * 300))   # a message with the command in it
        assert lab.locator(".sa-ex-command").is_visible() and lab.locator(".sa-ex-unk-note").is_visible()
        texts = lab.evaluate(TEXT_AND_BACKGROUND)
        low = [(t["text"], round(contrast(t["fg"], t["bg"]), 2)) for t in texts if "bad" not in t
               and contrast(t["fg"], t["bg"]) < (3.0 if t["size"] >= 18.5 or (t["bold"] and t["size"] >= 14) else 4.5)
               and t["opacity"] == 1]
        assert low == [], f"{width}px {mode}: text that does not contrast: {low[:8]}"
        wide = lab.evaluate("""root => { const w = document.documentElement.clientWidth;
            return [...root.querySelectorAll("*")].filter(el => !el.closest(".sa-ex-grid-wrap"))
              .filter(el => { const r = el.getBoundingClientRect(); return r.width && r.right > w + 0.5; })
              .map(el => el.className); }""")
        assert wide == [], f"{width}px: parts of the lab reach past the screen: {wide[:8]}"
        small = lab.evaluate("""root => [...root.querySelectorAll(".sa-ex-group-own button, .sa-ex-group-own input, "
            + ".sa-ex-save button")].filter(el => !el.hidden && el.getBoundingClientRect().height < 24).length""")
        assert small == 0
    finally:
        shared.set_viewport_size({"width": 1366, "height": 900})
        lab.locator("button[data-action=reset]").click()


def test_cancel_aborts_the_download_and_compute_works_after(browser, site_url, package):
    context, pg = new_page(browser, site_url, viewport={"width": 1366, "height": 900}, init_script=COUNT_TERMINATE)
    try:
        stalled = []
        pg.route("**/_static/model/model-f16.safetensors*", lambda route: stalled.append(route))
        failed = []
        context.on("requestfailed", lambda r: failed.append(r.url))
        lab = pg.locator(LAB)
        press_compute(pg, lab, SENTENCE)
        pg.wait_for_selector(f"{LAB} button[data-action=cancel]:not([hidden])")
        for _ in range(100):
            if stalled:
                break
            pg.wait_for_timeout(100)
        assert stalled, "the weights were never asked for"
        lab.locator("button[data-action=cancel]").click()
        assert "Cancelled" in message(lab)
        assert lab.locator("button[data-action=cancel]").is_hidden()
        assert lab.locator("button[data-action=compute]").get_attribute("aria-disabled") == "false"
        assert lab.locator(".sa-ex-progress").is_hidden()
        pg.wait_for_timeout(300)
        assert any("model-f16.safetensors" in u for u in failed), failed   # the fetch was aborted
        # Python was ended: the page terminated its Worker (the browser's own "close" event can come
        # seconds later on a busy machine, so the test counts the page's calls instead).
        # Both are counted by the page itself: Playwright's "worker" event can come late or not at all.
        assert pg.evaluate("window.__saTerminated") == pg.evaluate("window.__saWorkers") >= 1
        pg.unroute("**/_static/model/model-f16.safetensors*")
        lab.locator("button[data-action=compute]").click()
        wait_computed(pg, lab, 1)
        assert lab.locator(".sa-ex-strip .sa-ex-tok").all_text_contents() == list(package.tokens)
        assert pg.watch.console_errors == [] and pg.watch.foreign == []
    finally:
        context.close()


def test_a_second_visit_starts_python_from_the_cache_while_the_reader_types(browser, site_url, package):
    """The files kept by a first Compute let a later visit start Python before Compute, offline."""
    context, pg = new_page(browser, site_url, viewport={"width": 1366, "height": 900})
    try:
        lab = pg.locator(LAB)
        press_compute(pg, lab, SENTENCE)
        wait_computed(pg, lab, 1)
        # The copies go into the Cache API while Python starts and computes; a tab closed before they
        # are written keeps nothing (the next visit downloads again). A reader's first Compute takes
        # longer than a write, but on a busy machine the test can be faster: it waits for the copies.
        files = {u.split("?")[0] for u in pg.requests if "?v=" in u and LOADED_LATER.search(u)}
        assert len(files) >= 3 and pg.evaluate(KEPT, len(files)), f"the Cache API did not keep {sorted(files)}"
        pg.close()
        seen = len(pg.requests)
        again = context.new_page()
        again.watch = PageWatch(again, site_url)
        again.goto(f"{site_url}/{PAGE}")
        again.wait_for_selector(READY)
        lab = again.locator(LAB)
        assert lab.get_attribute("data-warm-up") is None   # nothing starts before the reader comes to the box
        lab.locator(".sa-ex-text").focus()
        again.wait_for_function(f"() => ['ready', 'failed'].includes(document.querySelector('{LAB}').dataset.warmUp)",
                                timeout=120_000)
        assert lab.get_attribute("data-warm-up") == "ready"
        assert lab.locator(".sa-ex-progress").is_hidden()   # a warm-up is quiet
        asked = {u.split("?")[0].rsplit("/", 1)[1] for u in pg.requests[seen:] if LOADED_LATER.search(u)}
        assert asked == {"explorer-compute.js", "runtime.json", "model.json"}   # the manifests only
        press_compute(again, lab, SENTENCE)
        wait_computed(again, lab, 1)
        assert lab.get_attribute("data-start-ms") == "{}"   # Python was up: Compute ran the model only
        assert lab.locator(".sa-ex-strip .sa-ex-tok").all_text_contents() == list(package.tokens)
        assert again.watch.console_errors == [] and again.watch.foreign == []
    finally:
        context.close()


def test_a_browser_without_the_webassembly_it_needs_gets_the_command(browser, site_url):
    context = browser.new_context()
    context.add_init_script("WebAssembly.validate = () => false;")
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)
    pg.requests = []
    context.on("request", lambda r: pg.requests.append(r.url))
    try:
        pg.goto(f"{site_url}/{PAGE}")
        pg.wait_for_selector(READY)
        lab = pg.locator(LAB)
        press_compute(pg, lab, SENTENCE)
        wait_message(pg, "cannot run")
        assert "WebAssembly" in message(lab)
        assert lab.locator(".sa-ex-command").text_content() == f'{COMMAND} "{SENTENCE}"'
        assert [u for u in pg.requests if re.search(r"/_static/(sa/run/runtime/|model/)", u)] == []
        assert lab.locator("button[data-action=compute]").get_attribute("aria-disabled") == "false"
    finally:
        context.close()


def test_a_model_file_with_the_wrong_sha256_is_refused_and_not_kept(browser, site_url):
    context, pg = new_page(browser, site_url, viewport={"width": 1366, "height": 900})
    try:
        pg.route("**/_static/model/tokenizer.json*", lambda route: route.fulfill(status=200, body="{}"))
        lab = pg.locator(LAB)
        press_compute(pg, lab, SENTENCE)
        wait_message(pg, "failed")
        assert "tokenizer.json arrived damaged" in message(lab) and "SHA-256" in message(lab)
        assert lab.locator("button[data-action=compute]").get_attribute("aria-disabled") == "false"
        kept = pg.evaluate("""async () => (await (await caches.open("sa-model")).keys()).map(r => r.url)""")
        assert not any("tokenizer.json" in url for url in kept)
        assert pg.watch.foreign == []
    finally:
        context.close()
