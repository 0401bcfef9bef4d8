"""The "writer" lab writes what the package writes, fetches its weights only when asked, and works by mouse,
keyboard and touch.

The expected values come from the lab's own configuration in the built page
and the shipped weights (``booktools.labs.writer``: ``selfattention.writer``'s
``write`` and ``next_distribution``), once the test has checked that the page
sends those very weights (the digest). The lab reports every step in an
``sa-writer`` event: the ids it read, the distribution it drew from, the
model's own distribution and every layer's and head's weights, which the tests
compare with the package's within :data:`TOLERANCE`. Nothing may be fetched for
the model before "Load the model" is pressed, and then only its one file,
from the book's own host, of the size the button says.

The maths under the lab (``writer-maths.js``: erfc, Φ, GELU, layer norm, NumPy's
sum, the writer's step with and without a KV cache, the choice of the next
character and the draw) is checked too, on models of other sizes.
"""

from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import pytest

from booktools.formatting import fmt
from booktools.labs.writer import MODEL, ids_text, prompt_ids, step_distribution, writer_sizes_json, writer_weights
from selfattention.bert.layers import gelu, layer_norm
from selfattention.fast.normal import normal_cdf
from selfattention.writer import WriterSizes, init_writer, load_writer, next_distribution, weights_digest, write
from selfattention.writer.model import LN_EPS, writer_shapes
from tests.browser.conftest import PageWatch, lab_fixture, open_lab_page, read_config
from tests.browser.test_lab_devices import TEXT_AND_BACKGROUND, contrast

pytestmark = pytest.mark.browser

PAGE = "a-model-that-writes.html"
LAB_ID = "writer-lab"
LAB = f"#{LAB_ID}"
READY = f"{LAB}.sa-lab-ready button[data-action=load]"
#: How far the lab's probabilities and weights may be from the package's (float64 both sides, summed in
#: other orders: the differences seen are about 1e-16).
TOLERANCE = 1e-5
#: Collects the lab's "sa-writer" events on the element (the tests' own property, not the lab's).
RECORD = "root => { root.saSteps = []; root.addEventListener('sa-writer', (e) => root.saSteps.push(e.detail)); }"
DESK = {"viewport": {"width": 1366, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


@pytest.fixture(scope="module")
def config(built_book) -> dict:
    return read_config(built_book, PAGE, LAB_ID)


@pytest.fixture(scope="module")
def fixture(built_book) -> dict:
    return lab_fixture(built_book, PAGE, LAB_ID, "writer")


@pytest.fixture(scope="module")
def run(config) -> dict:
    run = load_writer()
    assert config["digest"] == weights_digest(run["params"]), "the built page sends other weights: rebuild the book"
    return run


@pytest.fixture(scope="module")
def desk(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, READY, **DESK)


@pytest.fixture(scope="module")
def phone(browser, site_url):
    yield from open_lab_page(browser, site_url, PAGE, READY, **PHONE)


def fresh(page):
    page.reload()
    page.wait_for_selector(READY)
    lab = page.locator(LAB)
    lab.scroll_into_view_if_needed()
    lab.evaluate(RECORD)
    return lab


def press(page, target, how="mouse"):
    if how == "touch":
        target.tap()
    elif how == "keyboard":
        target.focus()
        page.keyboard.press("Enter")
    else:
        target.click()


def button(lab, action):
    return lab.locator(f"button[data-action={action}]")


def field(lab, part):
    return lab.locator(f"[data-part={part}]")


def load(page, lab, how="mouse"):
    press(page, button(lab, "load"), how)
    page.wait_for_selector(f"{LAB}[data-state=ready]")


def choose(lab, *, temperature=0.0, top_k=0, top_p=1.0, seed=0, prompt=None):
    """Fill the settings, then the prompt (which starts the text again, with the seed's draws)."""
    for part, value in (("temperature", temperature), ("top-k", top_k), ("top-p", top_p), ("seed", seed)):
        field(lab, part).fill(str(value))
    if prompt is not None:
        field(lab, "prompt").fill(prompt)


def write_many(page, lab, how="mouse"):
    press(page, button(lab, "many"), how)
    page.wait_for_selector(f"{LAB}[data-state=ready]")


def steps(lab, start: int = 0, stop: int | None = None) -> list[dict]:
    """The steps the lab has reported since :data:`RECORD`, ``[start:stop]`` (each carries every layer's
    weights: a run of 40 is megabytes to send, so a test asks only for what it reads)."""
    return lab.evaluate("(root, [start, stop]) => root.saSteps.slice(start, stop ?? undefined)", [start, stop])


def count(lab) -> int:
    """How many steps the lab has reported: :func:`steps` without sending them."""
    return lab.evaluate("root => root.saSteps.length")


def modes(lab, start: int = 0) -> list[str]:
    """Each reported step's mode (``prefill``, ``row`` or ``full``), from ``start`` on."""
    return lab.evaluate("(root, start) => root.saSteps.slice(start).map((s) => s.mode)", start)


def shown_text(lab) -> str:
    return field(lab, "text").text_content()


# --- the weights: fetched on demand only, one file of the size the button says ---------------------------------

def test_nothing_is_fetched_for_the_model_before_load_and_then_one_file_of_the_size_shown(browser, site_url, fixture):
    context = browser.new_context(**DESK)
    page = context.new_page()
    page.watch = PageWatch(page, site_url)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{site_url}/{PAGE}")
    page.wait_for_selector(READY)
    page.wait_for_load_state("networkidle")
    lab = page.locator(LAB)
    src = lab.evaluate("root => root.querySelectorAll(':scope > script')[1].getAttribute('data-src')")
    assert src and src.startswith("_labdata/"), "the build must move the weights' block out of the page"
    assert not [u for u in requests if "_labdata/" in u]
    kb = round(fixture["bytes"] / 1000)
    assert button(lab, "load").text_content() == f"Load the model, {kb} kB"
    press(page, button(lab, "many"), "keyboard")                       # nothing to write with yet (aria-disabled)
    assert lab.locator("[role=status]").text_content() == "Load the model first."
    with page.expect_response(lambda r: "_labdata/" in r.url) as response:
        load(page, lab)
    assert len(response.value.body()) == fixture["bytes"]
    assert [u for u in requests if "_labdata/" in u] == [f"{site_url}/{src}"]
    assert field(lab, "loaded").text_content() == f"Loaded: 221,056 numbers, {kb} kB."
    assert page.watch.foreign == [] and page.watch.console_errors == []
    context.close()


def test_the_file_holds_the_packages_numbers_exactly(built_book, config, run):
    """What the lab downloads decodes to the shipped parameters, bit for bit (float16 in the file, float64 here)."""
    src = re.search(r'<script type="application/json" class="sa-lab-config" data-src="([^"]+)"></script>',
                    (built_book / PAGE).read_text(encoding="utf-8").split(f'id="{LAB_ID}"', 1)[1])[1]
    stored = json.loads((built_book / src).read_text(encoding="utf-8"))
    assert stored["digest"] == config["digest"] and list(stored["params"]) == list(config["shapes"])
    for name, entry in stored["params"].items():
        flat = np.frombuffer(base64.b64decode(entry["data"]), dtype="<f2").astype(np.float64)
        np.testing.assert_array_equal(flat.reshape(config["shapes"][name]), run["params"][name])


# --- greedy writing: the package's characters, distributions and weights ----------------------------------------

def compare_greedy(lab, state, n_positions: int, *, cache: bool = True):
    """The lab's first steps against the state's: the window read, the character, both distributions, the weights."""
    ids, k = list(state["ids"]), len(state["written"])
    got = steps(lab, 0, k)
    assert len(got) == k
    want_ids = ids + [int(np.argmax(p)) for p in state["probs"]]
    for s in range(k):
        step = got[s]
        assert step["read"] == want_ids[:len(ids) + s][-n_positions:], (state["name"], s)
        assert step["token"] == want_ids[len(ids) + s], (state["name"], s)
        np.testing.assert_allclose(step["probs"], state["probs"][s], rtol=0, atol=TOLERANCE)
        np.testing.assert_allclose(step["model"], state["model"][s], rtol=0, atol=TOLERANCE)
        for layer, want in enumerate(state["weights"][s]):
            np.testing.assert_allclose(np.array(step["weights"][layer]), want, rtol=0, atol=TOLERANCE)
        if not cache:
            assert step["mode"] == "full"
        elif s == 0 or len(ids) + s > n_positions:
            assert step["mode"] == "prefill", (state["name"], s)
        else:
            assert step["mode"] == "row", (state["name"], s)
    assert shown_text(lab).startswith(state["text"])


@pytest.mark.parametrize("how", ["mouse", "keyboard"])
def test_greedy_writing_is_the_packages(desk, fixture, how):
    """Mouse: "Write 40", for every test prompt. Keyboard: Enter in the prompt, then "Write one" by Enter, one
    character at a time, for the prompt that crosses the context while it writes (the mouse's run checks the
    same numbers for the others)."""
    for state in fixture["states"] if how == "mouse" else fixture["states"][3:]:
        lab = fresh(desk)
        load(desk, lab, how)
        choose(lab, prompt=state["prompt"])
        if how == "mouse":
            write_many(desk, lab)
            assert count(lab) == 40
        else:
            field(lab, "prompt").focus()
            desk.keyboard.press("Enter")
            for _ in range(fixture["steps"] - 1):
                press(desk, button(lab, "one"), "keyboard")
        compare_greedy(lab, state, fixture["positions"])
    assert desk.watch.console_errors == [] and desk.watch.foreign == []


def test_the_cache_off_writes_the_same_characters_in_full_passes(desk, fixture):
    for state in fixture["states"][3:]:   # it crosses the context; the sampling test below writes others without
        lab = fresh(desk)
        load(desk, lab)
        field(lab, "cache").uncheck()
        choose(lab, prompt=state["prompt"])
        write_many(desk, lab)
        compare_greedy(lab, state, fixture["positions"], cache=False)


def test_the_text_shows_unknown_characters_as_the_unknown_symbol(desk, fixture, config):
    state = fixture["states"][1]
    lab = fresh(desk)
    choose(lab, prompt=state["prompt"])
    shown = ids_text(config, state["ids"])
    assert shown_text(lab) == shown and config["unknown"] in shown
    strange = shown.count(config["unknown"])
    note = f"{strange} characters the model never saw read as {config['unknown']}."
    assert field(lab, "unknown").text_content() == note


def test_past_the_context_the_lab_reads_the_last_characters_and_says_so(desk, fixture):
    state = fixture["states"][2]
    lab = fresh(desk)
    load(desk, lab)
    choose(lab, prompt=state["prompt"])
    press(desk, button(lab, "one"))
    n, total = fixture["positions"], len(state["ids"]) + 1
    assert field(lab, "window").text_content().startswith(f"The model reads the last {n} of {total} characters")
    assert lab.locator(".sa-writer-cell").count() == n


# --- sampling: temperature, top-k, top-p and the browser's seeded draws ------------------------------------------

def test_temperature_top_k_and_top_p_give_the_packages_distribution(desk, fixture):
    for case in fixture["sampling"]:
        s = case["settings"]
        lab = fresh(desk)
        load(desk, lab)
        choose(lab, temperature=s["temperature"], top_k=s["topK"], top_p=s["topP"], prompt=fixture["prompt"])
        press(desk, button(lab, "one"))
        got = np.array(steps(lab)[0]["probs"])
        np.testing.assert_allclose(got, case["probs"], rtol=0, atol=TOLERANCE)
        np.testing.assert_array_equal(got == 0, case["probs"] == 0)      # the same characters kept
        shown = lab.locator("[data-part=candidates] td[data-part=p]").all_text_contents()
        order = np.argsort(-case["probs"], kind="stable")
        assert shown[:2] == [fmt(case["probs"][i], 2) for i in order[:2]]


@pytest.mark.parametrize("settings", [{"temperature": 1.2, "top_k": 30, "top_p": 0.92, "seed": 5},
                                      {"temperature": 0.8, "top_k": 0, "top_p": 1.0, "seed": 123456789}])
def test_every_sampled_step_draws_from_the_packages_distribution(desk, config, run, settings):
    """Along the browser's own draws, each step's distribution and weights are the package's for the text so far,
    and each drawn character has a probability above 0."""
    lab = fresh(desk)
    load(desk, lab)
    choose(lab, **settings, prompt="Attention ")
    write_many(desk, lab)
    got = steps(lab)
    ids = prompt_ids(config, "Attention ")
    lab_settings = {"temperature": settings["temperature"], "topK": settings["top_k"], "topP": settings["top_p"]}
    for step in got:
        want = step_distribution(config, ids, lab_settings, run=run)
        assert step["read"] == ids[-config["sizes"]["nPositions"]:]
        np.testing.assert_allclose(step["probs"], want["probs"], rtol=0, atol=TOLERANCE)
        np.testing.assert_allclose(step["weights"][-1], want["weights"][-1], rtol=0, atol=TOLERANCE)
        assert want["probs"][step["token"]] > 0
        ids.append(step["token"])
    assert shown_text(lab) == ids_text(config, ids)


def test_a_seed_repeats_the_browsers_draws_and_another_seed_does_not(desk):
    lab = fresh(desk)
    load(desk, lab)
    choose(lab, temperature=1.0, seed=7, prompt="The model ")
    write_many(desk, lab)
    first = shown_text(lab)
    press(desk, button(lab, "reset"))
    assert shown_text(lab) == "The model " and steps(lab, -1)[0]["text"] == first
    write_many(desk, lab)
    assert shown_text(lab) == first
    field(lab, "seed").fill("8")
    field(lab, "seed").press("Tab")                                    # a change: the draws start again from it
    assert lab.locator("[role=status]").text_content() == "Seed 8: the draws start again from it."
    press(desk, button(lab, "reset"))
    write_many(desk, lab)
    assert shown_text(lab) != first


def test_sampling_with_and_without_the_cache_writes_the_same_and_both_are_timed(desk):
    texts, written = [], []
    lab = fresh(desk)
    load(desk, lab)
    prompt = ("Each head reads the keys of the characters before it. " * 2)[:100]
    for cache in (True, False):
        field(lab, "cache").set_checked(cache)
        choose(lab, temperature=0.9, top_p=0.95, seed=3, prompt=prompt)
        press(desk, button(lab, "reset"))                              # the same prompt again: start it again
        before = count(lab)
        write_many(desk, lab)
        texts.append(shown_text(lab))
        written.append(modes(lab, before))
    assert texts[0] == texts[1] and len(texts[0]) == 140
    assert written[0] == ["prefill"] + ["row"] * 28 + ["prefill"] * 11 and set(written[1]) == {"full"}
    timing = field(lab, "timing").text_content()
    assert re.fullmatch(r"Time per character: with the cache [\d.]+ ms \(median of 28\); "
                        r"filling the cache [\d.]+ ms \(median of 12\); without [\d.]+ ms \(median of 40\)\.",
                        timing), timing


def test_stop_ends_a_run_early(desk):
    lab = fresh(desk)
    load(desk, lab)
    field(lab, "cache").uncheck()                                       # full passes: slower steps
    choose(lab, prompt="A long prompt makes every full pass slow. " * 3)
    many = button(lab, "many")
    many.click()
    assert many.text_content() == "Stop"
    many.click()
    desk.wait_for_selector(f"{LAB}[data-state=ready]")
    n = count(lab)
    assert 1 <= n < 40 and many.text_content() == "Write 40"
    assert lab.locator("[role=status]").text_content().startswith(f"Wrote {n} character")


# --- the attention view: the package's weights, with their numbers for screen readers ----------------------------

def test_the_layer_and_head_picked_show_the_packages_weights(desk, fixture, config):
    state = fixture["states"][0]
    lab = fresh(desk)
    load(desk, lab)
    choose(lab, prompt=state["prompt"])
    for _ in range(3):
        press(desk, button(lab, "one"))
    want = state["weights"][2]                                          # (layers, heads, S) of the third step
    chars = ids_text(config, state["ids"] + [int(np.argmax(p)) for p in state["probs"][:2]])
    for layer, head in ((0, 0), (2, 3), (3, 1), (1, 2)):
        field(lab, "layer").select_option(str(layer))
        field(lab, "head").select_option(str(head))
        cells = lab.locator(".sa-writer-cell")
        assert cells.count() == want.shape[-1] == len(chars)
        got = [float(w) for w in cells.evaluate_all("els => els.map(e => e.dataset.w)")]
        np.testing.assert_allclose(got, want[layer, head], rtol=0, atol=TOLERANCE)
        labels = cells.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
        assert [label.rsplit(": ", 1)[1] for label in labels] == [fmt(w, 2) for w in want[layer, head]]
        assert labels[0].startswith(chars[0]) and labels[-1].endswith(f"position {len(chars) - 1}: "
                                                                      f"{fmt(want[layer, head, -1], 2)}")
        assert lab.locator(".sa-writer-cells").get_attribute("aria-label") == (
            f"Weights of layer {layer}, head {head}, over the {len(chars)} characters read")


# --- errors, phones, keyboards, colours ---------------------------------------------------------------------------

def test_a_setting_out_of_range_is_named_and_nothing_is_written(desk):
    lab = fresh(desk)
    load(desk, lab)
    field(lab, "top-p").fill("0")
    press(desk, button(lab, "one"))
    assert lab.locator("[role=status]").text_content() == "Top-p is above 0 and at most 1 (all)."
    assert field(lab, "top-p").get_attribute("aria-invalid") == "true"
    assert desk.evaluate("document.activeElement.dataset.part") == "top-p" and count(lab) == 0
    field(lab, "top-p").fill("1")
    field(lab, "seed").fill("1.5")                                      # a seed that is not whole: nothing either
    press(desk, button(lab, "one"))
    assert lab.locator("[role=status]").text_content().startswith("The seed is a whole number") and count(lab) == 0
    field(lab, "seed").fill("0")
    press(desk, button(lab, "one"))
    assert count(lab) == 1 and field(lab, "top-p").get_attribute("aria-invalid") == "false"


def test_the_keyboard_reaches_every_control_in_order_and_enter_writes(desk):
    lab = fresh(desk)
    load(desk, lab, "keyboard")
    assert desk.evaluate("document.activeElement.dataset.action") == "one"   # Load is done: focus moves on
    field(lab, "prompt").focus()
    order = []
    for _ in range(11):
        order.append(desk.evaluate("(() => { const e = document.activeElement; "
                                   "return e.dataset.action || e.dataset.part; })()"))
        outline = desk.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none", order[-1]                           # the focus is visible
        desk.keyboard.press("Tab")
    assert order == ["prompt", "one", "many", "reset", "temperature", "top-k", "top-p", "seed", "cache", "layer",
                     "head"]
    field(lab, "prompt").focus()
    desk.keyboard.press("End")
    desk.keyboard.type("cat ")
    desk.keyboard.press("Enter")
    assert count(lab) == 1 and shown_text(lab).startswith("The weights of cat ")
    field(lab, "cache").focus()
    desk.keyboard.press("Space")
    assert not field(lab, "cache").is_checked()


def test_a_phone_by_touch(phone, fixture):
    state = fixture["states"][0]
    lab = fresh(phone)
    load(phone, lab, "touch")
    for _ in range(3):
        press(phone, button(lab, "one"), "touch")
    assert shown_text(lab) == state["text"][:len(state["prompt"]) + 3]
    write_many(phone, lab, "touch")
    assert phone.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    wide = lab.evaluate("""root => { const w = document.documentElement.clientWidth;
        return [...root.querySelectorAll("*")].filter(el => el.getBoundingClientRect().right > w + 0.5)
          .map(el => el.className); }""")
    assert wide == []
    sizes = lab.evaluate("""root => [...root.querySelectorAll("button, select, input")].map(el => {
        const box = (el.type === "checkbox" ? el.parentElement : el).getBoundingClientRect();
        return {name: el.dataset.action || el.dataset.part, width: box.width, height: box.height};
    })""")
    assert sizes and all(s["height"] >= 44 and s["width"] >= 24 for s in sizes), sizes
    for control in lab.locator("button, select, input").all():
        name = (control.get_attribute("aria-label") or control.text_content() or "").strip()
        assert name or control.evaluate("el => el.labels ? el.labels.length : 0")
    assert phone.watch.console_errors == []


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_every_text_is_readable_after_writing(tabs, mode):
    page = tabs.open(PAGE, mode=mode, **DESK)
    page.wait_for_selector(READY)
    lab = page.locator(LAB)
    load(page, lab)
    press(page, button(lab, "one"))
    field(lab, "temperature").fill("1")
    press(page, button(lab, "one"))
    texts = lab.evaluate(TEXT_AND_BACKGROUND)
    assert len(texts) >= 30 and [t for t in texts if "bad" in t] == []
    low = [(t["text"], round(contrast(t["fg"], t["bg"]), 2)) for t in texts
           if contrast(t["fg"], t["bg"]) < (3.0 if t["size"] >= 18.5 or (t["bold"] and t["size"] >= 14) else 4.5)
           and t["opacity"] == 1]
    assert low == [], f"{mode} mode: {low[:8]}"
    assert page.watch.console_errors == []


# --- the maths under the lab (writer-maths.js), on inputs chosen here -----------------------------------------------

@pytest.fixture(scope="module")
def maths(browser, site_url):
    """Call ``fn(maths, arg)`` in the browser with the site's own writer-maths.js."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{site_url}/index.html")

    def call(body: str, arg=None):
        return page.evaluate(f"""async (arg) => {{
            const maths = await import("{site_url}/_static/sa/writer-maths.js");
            return ({body})(maths, arg);
        }}""", arg)

    yield call
    context.close()


def test_erfc_phi_and_gelu_equal_the_packages(maths):
    x = np.concatenate([np.linspace(-27, 27, 5401), np.random.default_rng(3).normal(0, 3, 2000), [0.0, 1.0, -1.0]])
    got = maths("(m, x) => ({erfc: x.map(m.erfc), cdf: x.map(m.normalCdf), gelu: x.map(m.gelu)})", x.tolist())
    want = np.array([math.erfc(v) for v in x])
    big = want > 1e-300
    np.testing.assert_allclose(np.array(got["erfc"])[big], want[big], rtol=1e-14, atol=0)
    np.testing.assert_allclose(got["erfc"], want, rtol=0, atol=1e-15)
    np.testing.assert_allclose(got["cdf"], normal_cdf(x), rtol=0, atol=2.3e-16)
    np.testing.assert_allclose(got["gelu"], gelu(x), rtol=1e-14, atol=1e-300)   # relatively, far left too


def test_sums_are_numpys_to_the_last_bit_and_layer_norm_is_the_packages(maths):
    rng = np.random.default_rng(4)
    rows = [rng.normal(0, 10, n) * rng.choice([1e-3, 1, 1e3], n) for n in (1, 5, 8, 9, 64, 127, 128, 129, 300, 1000)]
    got = maths("(m, rows) => rows.map((r) => m.npSum(r))", [r.tolist() for r in rows])
    assert got == [float(np.sum(r)) for r in rows]
    x, g, b = rng.normal(1, 3, (5, 64)), rng.normal(1, 0.2, 64), rng.normal(0, 0.2, 64)
    got = maths("(m, a) => Array.from(m.layerNorm(a.x.flat(), 5, 64, a.g, a.b, 0, 1e-5))",
                {"x": x.tolist(), "g": g.tolist(), "b": b.tolist()})
    np.testing.assert_allclose(np.reshape(got, (5, 64)), layer_norm(x, g, b, eps=1e-5), rtol=1e-13, atol=1e-14)


def test_the_next_distribution_and_the_draw_are_the_packages_ties_included(maths):
    cases = [([1.0, 3.0, 3.0, 0.0, 3.0, -1.0], {"temperature": 1.0, "top_k": 2}),       # a tie cut by top-k
             ([1.0, 3.0, 3.0, 0.0, 3.0, -1.0], {"temperature": 0.0}),                    # greedy: the first largest
             (np.log([0.5, 0.3, 0.15, 0.05]).tolist(), {"temperature": 1.0, "top_p": 0.8}),
             (np.log([0.5, 0.3, 0.15, 0.05]).tolist(), {"temperature": 1.0, "top_k": 3, "top_p": 0.6}),
             ([2.0, 2.0, 2.0, 2.0], {"temperature": 0.5, "top_p": 0.5}),
             (np.random.default_rng(5).normal(0, 3, 108).tolist(), {"temperature": 1.3, "top_k": 40, "top_p": 0.9})]
    got = maths("""(m, cases) => cases.map(([z, s]) => Array.from(m.nextDistribution(z,
        {temperature: s.temperature, topK: s.top_k ?? null, topP: s.top_p ?? null})))""", cases)
    for (z, s), js in zip(cases, got, strict=True):
        want = next_distribution(z, **s)
        np.testing.assert_allclose(js, want, rtol=1e-15, atol=0)
        np.testing.assert_array_equal(np.array(js) == 0, want == 0)
    probs = next_distribution(np.random.default_rng(6).normal(0, 2, 108), top_k=20)
    us = np.concatenate([np.random.default_rng(7).random(300), [0.0, 0.999999999]])
    got = maths("(m, a) => a.us.map((u) => m.drawIndex(a.p, u))", {"p": probs.tolist(), "us": us.tolist()})
    cumulative = np.cumsum(probs)
    assert got == [int(min(np.searchsorted(cumulative, u * cumulative[-1], side="right"), 107)) for u in us]
    assert probs[got].min() > 0


WRITER_RUN = """(m, a) => {
  const p = m.writerParams(a.weights.params, a.shapes);
  const out = {};
  for (const useCache of [true, false]) {
    const ids = [...a.prompt];
    const cache = m.writerCache(a.sizes);
    const logits = [], weights = [], modes = [];
    for (let s = 0; s < a.steps; s += 1) {
      const r = m.writerRead(p, a.sizes, useCache ? cache : null, ids, a.eps);
      logits.push(Array.from(r.logits));
      weights.push(r.weights.map((l) => l.map((w) => Array.from(w))));
      modes.push(r.mode);
      ids.push(m.drawIndex(m.nextDistribution(r.logits, { temperature: 0 }), 0.5));
    }
    out[useCache ? "cache" : "full"] = { ids, logits, weights, modes };
  }
  return out;
}"""


@pytest.mark.parametrize("sizes", [WriterSizes(vocab=11, n_positions=9, d_model=12, heads=3, layers=2, d_ff=20),
                                   WriterSizes(vocab=7, n_positions=6, d_model=8, heads=1, layers=3, d_ff=8)],
                         ids=["two layers of three heads", "three layers of one head"])
def test_the_writers_step_equals_the_package_for_other_sizes(maths, sizes):
    """Greedy writing past the context, with the cache (a prefill, rows, then a prefill each step) and without."""
    params = {k: (v * 8.0 if k.startswith("W_") else v + np.random.default_rng(1).normal(0, 0.3, v.shape))
              for k, v in init_writer(sizes, 2).items()}                  # larger weights: sharper softmaxes
    params = {k: v.astype(np.float16).astype(np.float64) for k, v in params.items()}
    prompt, n_steps = [1, 4, 2, 6, 3], 8
    got = maths(WRITER_RUN, {"weights": writer_weights({"params": params, "sizes": sizes}), "prompt": prompt,
                             "shapes": {k: list(v) for k, v in writer_shapes(sizes).items()},
                             "sizes": writer_sizes_json(sizes), "eps": LN_EPS, "steps": n_steps})
    want = write(params, prompt, n_steps, sizes, temperature=0.0, weights=True)
    assert got["cache"]["ids"] == got["full"]["ids"] == want["ids"]
    assert got["cache"]["modes"] == ["prefill"] + ["row"] * (sizes.n_positions - len(prompt)) + ["prefill"] * (
        n_steps - 1 - (sizes.n_positions - len(prompt)))
    for how in ("cache", "full"):
        for s in range(n_steps):
            model = next_distribution(np.array(got[how]["logits"][s]), temperature=1.0)
            window = want["ids"][:len(prompt) + s][-sizes.n_positions:]
            page_config = {"digest": weights_digest(params), "sizes": writer_sizes_json(sizes)}
            expected = step_distribution(page_config, window, MODEL, run={"params": params, "sizes": sizes})
            np.testing.assert_allclose(model, expected["probs"], rtol=0, atol=1e-13)
            for layer in range(sizes.layers):
                np.testing.assert_allclose(got[how]["weights"][s][layer], want["weights"][s][layer], rtol=0, atol=1e-13)
