"""The page's Python starts from a snapshot (booksite.runtime.snapshot) and behaves as one just started.

The build started it once under Node with a clock stopped at 0 and random bytes that were all zero.
Nothing of that may reach a reader: in two workers of a fresh page, the clock is the browser's, random
generators differ, files written now can be imported, and NumPy and the package are there already.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import RUN_IN_WORKER

pytestmark = pytest.mark.browser

CODE = """import json, os, random, sys, time
import numpy as np
preloaded = sorted(m for m in ("numpy", "selfattention", "selfattention.minilm") if m in sys.modules)
with open("/tmp/made_now.py", "w") as f:
    f.write("VALUE = 42\\n")
sys.path.insert(0, "/tmp")
import made_now
print(json.dumps({"time": time.time(), "random": random.random(), "rng": np.random.default_rng().random(),
                  "legacy": np.random.rand(), "home": os.environ["HOME"], "made_now": made_now.VALUE,
                  "preloaded": preloaded}))
"""


def test_a_python_from_the_snapshot_has_the_browsers_clock_and_its_own_randomness(browser, site_url):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{site_url}/index.html")
        runs = [page.evaluate(RUN_IN_WORKER, [CODE, {}]) for _ in range(2)]
    finally:
        context.close()
    got = []
    for run in runs:
        assert run["ok"], run["err"]
        values = json.loads(run["out"])
        assert abs(values["time"] - run["now"]) < 60, (values["time"], run["now"])
        assert values["home"] == "/home/reader" and values["made_now"] == 42
        assert values["preloaded"] == ["numpy", "selfattention", "selfattention.minilm"]
        got.append(values)
    for key in ("random", "rng", "legacy"):
        assert got[0][key] != got[1][key], key
