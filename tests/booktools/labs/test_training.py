"""The "training" lab's configuration, its Python and its fixture come from the package."""

from __future__ import annotations

import contextlib
import io
import json
import math

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from booktools.labs import FIXTURES
from booktools.labs.training import BROWSER_CODE, DESIGNS, training_config, training_fixture, training_lab
from selfattention.induction import circuits, model, training


def test_the_configuration_is_the_package_run():
    c = training_config()
    assert (c["seed"], c["design"]) == (training.SEED, model.SIZES.positions) == (0, "qk0")
    assert c["heads"] == list(model.SIZES.heads) and c["every"] == training.EVAL_EVERY
    assert c["steps"] == training.STEPS and c["formed"] == circuits.SCORE_TARGET
    assert c["guess"] == math.log(model.SIZES.vocab)
    assert [v for v, _ in c["designs"]] == list(DESIGNS) and set(DESIGNS) <= set(model.DESIGNS)
    assert c["code"] == BROWSER_CODE
    json.dumps(c, allow_nan=False)   # the page's JSON


class Browser:
    """The lab's Python run here, as the browser's Python runs it: each call prints one JSON line."""

    def __init__(self):
        self.namespace = {"__name__": "__main__"}
        exec(compile(BROWSER_CODE, "<lab>", "exec"), self.namespace)

    def __call__(self, line: str) -> dict:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), threadpool_limits(limits=1):
            exec(line, self.namespace)
        return json.loads(out.getvalue().strip().splitlines()[-1])


def test_the_labs_python_takes_the_fixture_steps_in_any_number_of_messages():
    config = training_config()
    expected = training_fixture(config, steps=30, restart_steps=3)["states"]
    py = Browser()
    start = py(f"_sa_train_start({config['seed']}, {json.dumps(config['design'])})")
    assert start["steps"] == [] and [c["step"] for c in start["checkpoints"]] == [0]
    steps, checkpoints = [], []
    while len(steps) < 30:
        # 0 seconds: one step per message; the browser's messages take a few, with the same numbers.
        got = py(f"_sa_train_steps(0, {config['every']}, 30)")
        steps += got["steps"]
        checkpoints += got["checkpoints"]
    assert steps == expected[0]["steps"]   # bit for bit: the same machine, one BLAS thread
    assert [c["step"] for c in checkpoints] == [25]
    c = checkpoints[0]
    assert [len(layer) for layer in c["induction"]] == list(model.SIZES.heads) and c["held_out"] > 0
    assert py("_sa_train_steps(0, 25, 30)") == {"steps": [], "checkpoints": []}   # no step past the last
    # A restart: another seed, the other design.
    py("_sa_train_start(1, 'stream')")
    again = [py("_sa_train_steps(0, 25, 3)")["steps"][0] for _ in range(3)]
    assert again == expected[1]["steps"]


def test_the_fixture_is_the_package_training_and_another_seed_differs():
    assert FIXTURES["training"] is training_fixture
    first, again = training_fixture(training_config(), steps=25, restart_steps=25)["states"]
    assert (first["seed"], first["design"], again["seed"], again["design"]) == (0, "qk0", 1, "stream")
    run = training.train(steps=5, schedule_steps=training.STEPS)
    np.testing.assert_array_equal([s[1] for s in first["steps"][:5]], run["history"]["loss"])
    assert [s[0] for s in first["steps"]] == list(range(1, 26))
    assert np.abs(np.array(first["steps"])[:, 1] - np.array(again["steps"])[:, 1]).max() > 1e-3


def test_with_seed_0_the_lab_takes_the_shipped_runs_steps():
    # The chapter: "With seed 0 its losses are the shipped run's."
    first = training_fixture(training_config(), steps=25, restart_steps=1)["states"][0]
    np.testing.assert_allclose([s[1] for s in first["steps"]], training.load()["history"]["loss"][:25],
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("kwargs", [{"seed": -1}, {"seed": 1.5}, {"seed": True}, {"seed": 2**32},
                                    {"design": "qk"}, {"design": "nowhere"}])
def test_bad_configuration_is_refused(kwargs):
    with pytest.raises(ValueError):
        training_lab(**kwargs)


def test_the_element_has_a_text_for_readers_without_javascript():
    markup = training_lab(lab_id="my-training").markup
    assert markup.startswith('<div class="sa-lab" data-lab="training" id="my-training">')
    assert "python -m selfattention.induction" in markup
