"""The "training" lab: the copying model trained live in Chromium, offline, equals the package's training.

One page serves most tests. Nothing of the runtime is fetched before Train.
Train starts the book's Python in the lab's own Worker (every file from
127.0.0.1) and runs :class:`selfattention.induction.training.Run`; the
browser's first :data:`~booktools.labs.training.FIXTURE_STEPS` steps (loss,
repeated part, rest) equal the package's
(:func:`booktools.labs.training.training_fixture`, computed here from the
page's own configuration) within :data:`TOLERANCE`. Pause stops the step
count, Resume continues it, and Restart with another seed and the other
design starts over, with that run's losses, which differ from the first.
The controls have names, the status is announced, the keyboard reaches
everything, a bad seed gets a message, the drawn lab fits 390 px and reads
in light and dark mode, and a browser without the WebAssembly it needs gets
the command line. The test stops shortly after 200 steps: the time to the
heads' forming is a benchmark (``make bench-train-lab``), not a test.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from booktools.labs.training import FIXTURE_STEPS, RESTART, RESTART_STEPS
from tests.browser.conftest import PageWatch, lab_fixture, perform, read_config
from tests.browser.test_lab_devices import TEXT_AND_BACKGROUND, contrast
from tests.browser.test_lab_reader_walk import choose as choose_mode

pytestmark = pytest.mark.browser

PAGE = "two-heads-that-copy.html"
LAB_ID = "train-lab"   # as the chapter names it
LAB = f"#{LAB_ID}"
READY = f"{LAB}.sa-lab-ready svg.sa-train-svg-loss text"
#: What only Train may fetch: the runtime's Worker and files.
RUNTIME = re.compile(r"/_static/sa/run/(runtime/|runtime\.js)")
#: float64 in WebAssembly against float64 here: the same NumPy code, summed in other orders.
TOLERANCE = 1e-9
#: Time for Python to start (a cold download from 127.0.0.1 included) and take the steps asked for.
WAIT_MS = 300_000

#: Collects what the lab reports after each message to Python (its "sa-training" event).
COLLECT = """root => {
  window.__saTraining = [];
  root.addEventListener("sa-training", (e) => window.__saTraining.push(e.detail));
}"""


def new_page(browser, site_url, init_script=None, **options):
    context = browser.new_context(**options)
    if init_script:
        context.add_init_script(init_script)
    pg = context.new_page()
    pg.watch = PageWatch(pg, site_url)   # every host but the book's is recorded: offline
    pg.requests = []
    context.on("request", lambda r: pg.requests.append(r.url))
    pg.goto(f"{site_url}/{PAGE}")
    pg.wait_for_selector(READY)
    return context, pg


def runtime_requests(pg) -> list[str]:
    return [u for u in pg.requests if RUNTIME.search(u)]


def status(lab) -> str:
    return lab.locator(".sa-train-status").text_content()


def step(lab) -> int:
    return int(lab.get_attribute("data-step"))


def wait_steps(pg, n: int, run: int) -> None:
    """Until run ``run`` (1 the first, 2 after one Restart) has taken ``n`` steps."""
    pg.wait_for_function(f"""() => (window.__saTraining || []).filter(d => d.run === {run})
        .reduce((t, d) => t + d.steps.length, 0) >= {n}""", timeout=WAIT_MS)


def steps_of(pg, run: int) -> list:
    return pg.evaluate(f"""() => window.__saTraining.filter(d => d.run === {run}).flatMap(d => d.steps)""")


def pause(pg, lab, how: str = "mouse") -> int:
    """Press Pause and wait for the lab to say it has stopped; return the step it stopped at."""
    assert lab.locator("button[data-action=train]").text_content() == "Pause"
    perform(pg, lab, [("click", "button[data-action=train]")], how=how)
    pg.wait_for_function(f"() => document.querySelector('{LAB}').dataset.state === 'paused'", timeout=WAIT_MS)
    at = step(lab)
    assert status(lab) == f"Paused at step {at:,}."
    return at


@pytest.fixture(scope="module")
def package(built_book):
    return lab_fixture(built_book, PAGE, LAB_ID, "training")


@pytest.fixture(scope="module")
def shared(browser, site_url):
    """One page for the module, at 1366 x 900."""
    context, pg = new_page(browser, site_url, viewport={"width": 1366, "height": 900})
    yield pg
    context.close()


@pytest.fixture
def lab(shared):
    yield shared.locator(LAB)
    assert shared.watch.console_errors == [], f"console errors: {shared.watch.console_errors}"
    assert shared.watch.foreign == [], f"requests to other hosts: {shared.watch.foreign}"


@pytest.fixture(scope="module")
def trained(shared):
    """The first run, from a press of Train to a pause just after FIXTURE_STEPS steps."""
    pg = shared
    lab = pg.locator(LAB)
    before = runtime_requests(pg)
    pg.locator(LAB).evaluate(COLLECT)
    lab.locator("button[data-action=train]").click()
    button = lab.locator("button[data-action=train]")
    loading = {"state": lab.get_attribute("data-state"), "button": button.text_content()}
    wait_steps(pg, FIXTURE_STEPS, 1)
    at = pause(pg, lab)
    return {"before": before, "loading": loading, "paused_at": at, "steps": steps_of(pg, 1)}


def test_the_lab_is_configured_by_the_package(built_book):
    from selfattention.induction import circuits, model, training

    config = read_config(built_book, PAGE, LAB_ID)
    assert (config["seed"], config["design"]) == (training.SEED, model.SIZES.positions)
    assert config["heads"] == list(model.SIZES.heads) and config["every"] == training.EVAL_EVERY
    assert config["steps"] == training.STEPS and config["formed"] == circuits.SCORE_TARGET
    assert "_sa_train_steps" in config["code"] and "Run(" in config["code"]


def test_nothing_is_fetched_before_train_and_every_control_has_a_name(shared, lab):
    assert runtime_requests(shared) == []
    train = lab.locator("button[data-action=train]")
    restart = lab.locator("button[data-action=restart]")
    assert train.text_content() == "Train" and restart.text_content() == "Restart" and restart.is_disabled()
    seed = lab.locator(".sa-train-seed-box")
    assert lab.locator(f"label[for='{seed.get_attribute('id')}']").text_content() == "Seed"
    assert seed.input_value() == "0"
    assert lab.locator(".sa-train-design legend").text_content() == "Positions enter"
    choices = lab.locator(".sa-train-design-choice")
    assert choices.count() == 2 and choices.nth(0).locator("input").is_checked()
    assert "layer 0's queries and keys" in choices.nth(0).text_content()
    assert "residual stream" in choices.nth(1).text_content()
    live = lab.locator(".sa-train-status")
    assert live.get_attribute("aria-live") == "polite" and live.get_attribute("role") == "status"
    for svg in lab.locator("svg.sa-train-svg").all():
        assert svg.get_attribute("role") == "img" and "no " in svg.get_attribute("aria-label")
    assert "0.6" in lab.locator(".sa-train-rule").text_content()   # the rule, in words
    assert lab.get_attribute("data-state") == "idle"


def test_a_seed_that_is_not_a_whole_number_gets_a_message_and_loads_nothing(shared, lab):
    seed = lab.locator(".sa-train-seed-box")
    for bad in ("1.5", "-3", "seven", "99999999999"):
        seed.fill(bad)
        lab.locator("button[data-action=train]").click()
        assert "whole number from 0 to 4,294,967,295" in status(lab), bad
        assert seed.get_attribute("aria-invalid") == "true"
        assert shared.evaluate("document.activeElement.classList.contains('sa-train-seed-box')")
    seed.fill("0")
    assert runtime_requests(shared) == [] and lab.get_attribute("data-state") == "idle"


def test_the_first_steps_in_the_browser_are_the_package_steps(shared, lab, trained, package):
    assert trained["before"] == []   # nothing of the runtime before the press
    assert trained["loading"] == {"state": "loading", "button": "Pause"}
    got = {u.split("?")[0].rsplit("/", 1)[1] for u in runtime_requests(shared)}
    assert {"runtime.js", "runtime.json", "python.wasm.gz", "stdlib.zip"} <= got
    first = package["states"][0]
    assert (first["seed"], first["design"]) == (0, "qk0")
    browser = np.array(trained["steps"][:FIXTURE_STEPS], dtype=float)
    expected = np.array(first["steps"], dtype=float)
    assert browser.shape == expected.shape == (FIXTURE_STEPS, 4)
    np.testing.assert_array_equal(browser[:, 0], np.arange(1, FIXTURE_STEPS + 1))
    np.testing.assert_allclose(browser[:, 1:], expected[:, 1:], rtol=0, atol=TOLERANCE)


def test_the_lab_shows_the_run_and_its_checkpoints(shared, lab, trained):
    at = trained["paused_at"]
    assert at >= FIXTURE_STEPS and lab.locator("[data-fact=step]").text_content() == f"{at:,} of 12,000"
    assert re.fullmatch(r"\d+\.\d s", lab.locator("[data-fact=time]").text_content())
    assert re.fullmatch(r"\d\.\d{3} s", lab.locator("[data-fact=pace]").text_content())
    checkpoints = shared.evaluate("() => window.__saTraining.filter(d => d.run === 1).flatMap(d => d.checkpoints)")
    assert [c["step"] for c in checkpoints] == list(range(0, at + 1, 25))
    assert all([len(layer) for layer in c["induction"]] == [2, 1] for c in checkpoints)
    assert all(0 <= v <= 1 for c in checkpoints for layer in c["previous"] + c["induction"] for v in layer)
    # Six score lines (three heads, two scores) and the loss lines, drawn to the last checkpoint.
    assert lab.locator("svg.sa-train-svg-score path.sa-train-line").count() == 6
    assert lab.locator("svg.sa-train-svg-loss .sa-train-dots circle").count() == len(checkpoints)
    label = lab.locator("svg.sa-train-svg-score").nth(1).get_attribute("aria-label")
    assert f"up to step {checkpoints[-1]['step']}" in label and "head 1.0" in label


def test_pause_stops_the_steps_and_resume_continues_them(shared, lab, trained):
    at = step(lab)
    assert lab.get_attribute("data-state") == "paused"
    train = lab.locator("button[data-action=train]")
    assert train.text_content() == "Resume"
    shared.wait_for_timeout(1500)
    assert step(lab) == at   # nothing moves while paused
    perform(shared, lab, [("click", "button[data-action=train]")], how="keyboard")   # Resume, by the keyboard
    assert train.text_content() == "Pause" and status(lab) == f"Training again from step {at:,}."
    shared.wait_for_function(f"() => Number(document.querySelector('{LAB}').dataset.step) >= {at + 3}",
                             timeout=WAIT_MS)
    again = pause(shared, lab, how="keyboard")
    assert again >= at + 3
    steps = steps_of(shared, 1)
    assert [s[0] for s in steps] == list(range(1, again + 1))   # one run, no step lost or repeated


def test_restart_with_another_seed_and_design_starts_over(shared, lab, trained, package):
    lab.locator(".sa-train-seed-box").fill(str(RESTART["seed"]))
    perform(shared, lab, [("click", ".sa-train-design-choice:nth-of-type(2) input")])
    assert lab.locator(".sa-train-design-choice input").nth(1).is_checked()
    lab.locator("button[data-action=restart]").click()
    wait_steps(shared, RESTART_STEPS, 2)
    status_text = status(lab)
    pause(shared, lab)
    again = package["states"][1]
    assert (again["seed"], again["design"]) == (RESTART["seed"], RESTART["design"])
    assert "Restarted: seed 1, positions into the residual stream" in status_text or "Paused" in status_text
    browser = np.array(steps_of(shared, 2)[:RESTART_STEPS], dtype=float)
    np.testing.assert_array_equal(browser[:, 0], np.arange(1, RESTART_STEPS + 1))   # from step 1 again
    np.testing.assert_allclose(browser[:, 1:], np.array(again["steps"], dtype=float)[:, 1:], rtol=0, atol=TOLERANCE)
    first = np.array(trained["steps"][:RESTART_STEPS], dtype=float)
    assert np.abs(browser[:, 1] - first[:, 1]).max() > 1e-3   # another seed: other losses
    assert lab.locator("[data-fact=formed]").text_content() == "not yet"


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_drawn_lab_fits_and_reads_in_light_and_dark(shared, lab, trained, width, mode):
    shared.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
    choose_mode(shared, mode, "mouse")   # from the theme menu, as a reader does
    try:
        texts = lab.evaluate(TEXT_AND_BACKGROUND)
        assert len(texts) >= 20
        low = [(t["text"], round(contrast(t["fg"], t["bg"]), 2)) for t in texts if "bad" not in t
               and contrast(t["fg"], t["bg"]) < (3.0 if t["size"] >= 18.5 or (t["bold"] and t["size"] >= 14) else 4.5)
               and t["opacity"] == 1]
        assert low == [], f"{width}px {mode}: text that does not contrast: {low[:8]}"
        wide = lab.evaluate("""root => { const w = document.documentElement.clientWidth;
            return [...root.querySelectorAll("*")]
              .filter(el => { const r = el.getBoundingClientRect(); return r.width && r.right > w + 0.5; })
              .map(el => el.className.baseVal ?? el.className); }""")
        assert wide == [], f"{width}px: parts of the lab reach past the screen: {wide[:8]}"
        assert shared.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        small = lab.evaluate("""root => [...root.querySelectorAll("button, input")]
            .filter(el => (el.closest("label") || el).getBoundingClientRect().height < 24).length""")
        assert small == 0
        # The lines keep a colour of their own in each mode, apart from the page's background.
        colours = lab.evaluate("""root => [...root.querySelectorAll("svg.sa-train-svg-score path.sa-train-line")]
            .slice(0, 3).map(p => getComputedStyle(p).stroke)""")
        assert len(set(colours)) == 3
    finally:
        shared.set_viewport_size({"width": 1366, "height": 900})


def test_a_phone_reaches_every_control_by_touch_before_training(browser, site_url):
    context, pg = new_page(browser, site_url, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        lab = pg.locator(LAB)
        perform(pg, lab, [("click", ".sa-train-design-choice:nth-of-type(2)")], how="touch")
        assert lab.locator(".sa-train-design-choice input").nth(1).is_checked()
        lab.locator(".sa-train-seed-box").tap()
        assert pg.evaluate("document.activeElement.classList.contains('sa-train-seed-box')")
        small = lab.evaluate("""root => [...root.querySelectorAll("button, input")]
            .filter(el => (el.closest("label") || el).getBoundingClientRect().height < 44).length""")
        assert small == 0   # a finger's size on a touch screen
        assert pg.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        assert runtime_requests(pg) == []
        assert pg.watch.console_errors == [] and pg.watch.foreign == []
    finally:
        context.close()


def test_a_browser_without_the_webassembly_it_needs_gets_the_command(browser, site_url):
    context, pg = new_page(browser, site_url, init_script="WebAssembly.validate = () => false;")
    try:
        lab = pg.locator(LAB)
        lab.locator("button[data-action=train]").click()
        assert "cannot run" in status(lab) and "python -m selfattention.induction" in status(lab)
        assert runtime_requests(pg) == [] and lab.get_attribute("data-state") == "idle"
        assert pg.watch.console_errors == [] and pg.watch.foreign == []
    finally:
        context.close()
