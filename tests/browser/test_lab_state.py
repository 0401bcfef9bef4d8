"""The labs' state modules, run on their own: pure functions of the config and the reader's moves.

``qkv-state.js``, ``three-moves-state.js`` and ``learning-state.js`` hold what
their labs compute, apart from the view. Each is imported in Chromium (no
lab mounted, no DOM used), driven through its own functions with the page's
configuration, and compared with the package: the same fixtures the lab's
own browser tests use.
"""

from __future__ import annotations

import numpy as np
import pytest

import selfattention as sa
from tests.browser.conftest import lab_fixture, read_config

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def run(browser, site_url):
    """Call ``fn(module, arg)`` in the browser with the state module ``labs/NAME-state.js``."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{site_url}/index.html")

    def call(name: str, body: str, arg=None):
        return page.evaluate(f"""async (arg) => {{
            const mod = await import("{site_url}/_static/sa/labs/{name}-state.js");
            return ({body})(mod, arg); }}""", arg)

    yield call
    context.close()


QKV = """(m, {config, action}) => {
  const lab = m.createState(config);
  if (action.preset) lab.preset(config.presets.find(p => p.id === action.preset));
  if (action.kind === "projections") lab.setProjections(action.on);
  if (action.kind === "edit") for (const [name, i, j, text] of action.edits) lab.set(name, i, j, Number(text));
  const r = lab.state.result;
  return {x: lab.state.x, q: r.q, k: r.k, v: r.v, scores: r.scores, weights: r.weights, output: r.output,
          symmetric: r.symmetric, projections: lab.state.projections};
}"""


def test_the_qkv_state_equals_the_package(run, built_book):
    page, lab_id = "queries-keys-values.html", "qkv-lab"
    config, fixture = read_config(built_book, page, lab_id), lab_fixture(built_book, page, lab_id, "qkv")
    checked = 0
    for state in fixture["states"]:
        if state["action"]["kind"] == "keys":  # a key in a box is the view's (the box's own step)
            continue
        got = run("qkv", QKV, {"config": config, "action": state["action"]})
        inputs = state["inputs"]
        eye = np.eye(len(config["x"][0]))
        w = [inputs[m] for m in ("w_q", "w_k", "w_v")] if state["projections"] else [eye, eye, eye]
        expected = sa.head_trace(np.array(inputs["x"]), *map(np.asarray, w))
        np.testing.assert_allclose(got["x"], inputs["x"])
        for name in ("q", "k", "v", "scores", "weights", "output"):
            np.testing.assert_allclose(got[name], expected[name], rtol=1e-12, atol=1e-13, err_msg=state["name"])
        assert got["symmetric"] == state["tables"]["symmetric"] and got["projections"] == state["projections"]
        checked += 1
    assert checked >= 8
    # Reset puts everything back, the switch included.
    start = run("qkv", """(m, {config}) => { const lab = m.createState(config); lab.set("w_q", 0, 0, 5);
        lab.setProjections(false); lab.reset(); return [lab.state.w_q, lab.state.projections]; }""",
                {"config": config})
    assert start == [config["w_q"], True]


def test_the_three_moves_state_walks_and_draws_the_package_moves(run, built_book):
    page, lab_id = "words-are-islands.html", "moves-lab"
    config, fixture = read_config(built_book, page, lab_id), lab_fixture(built_book, page, lab_id, "three-moves")
    for state in fixture["states"]:
        presses = state["keys"] if state["kind"] == "keys" else state["presses"]
        got = run("three-moves", """(m, {config, kind, presses}) => { const lab = m.createState(config);
            for (const p of presses) {
              const to = kind === "keys" ? lab.target(p) : lab.state.move + (p === "next" ? 1 : -1);
              if (to !== undefined) lab.go(to);
            }
            return lab.state.move; }""", {"config": config, "kind": state["kind"], "presses": presses})
        assert got == state["move"], state
    scenes = run("three-moves", "(m, config) => [0, 1, 2].map(k => m.scene(config, k))", config)
    assert [s["shareLabels"] for s in scenes] == [[], [r[2] for r in fixture["moves"][1]["rows"]], []]
    assert [len(s["pieces"]) for s in scenes] == [0, 0, len(config["words"])]
    assert scenes[2]["pieces"][-1][1] == pytest.approx(config["output"], abs=1e-12)  # the pieces end at the blend
    assert [s["blend"] is not None for s in scenes] == [False, False, True]


def test_the_learning_state_takes_the_package_steps(run, built_book):
    page, lab_id = "learning-where-to-look.html", "learning-lab"
    config, fixture = read_config(built_book, page, lab_id), lab_fixture(built_book, page, lab_id, "learning")
    checked = 0
    for state in fixture["states"]:
        if any(a["kind"] != "steps" for a in state["actions"]):  # the slider's keys are the view's
            continue
        got = run("learning", """(m, {config, actions}) => { const lab = m.createState(config);
            for (const a of actions) lab.take(a.n);
            return {c: lab.state.c, shown: m.readout(config, lab.state), path: lab.state.path.length}; }""",
                  {"config": config, "actions": state["actions"]})
        assert got["shown"] == state["shown"], state["name"]
        assert got["c"] == pytest.approx(state["c"], rel=1e-12)
        assert got["path"] == 1 + sum(a["n"] for a in state["actions"])
        checked += 1
    assert checked >= 4
