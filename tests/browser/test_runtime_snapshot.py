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


#: Every dropped package whose Cython code is a trap (booksite.runtime.unreachable_functions), then
#: NumPy's own Cython modules (numpy.random), which keep theirs.
DROPPED = """import importlib, json
import numpy as np
refused = {}
for name in ("pandas", "scipy", "sklearn", "statsmodels", "lxml", "pandas._libs.lib", "scipy.linalg"):
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as exc:
        refused[name] = exc.name
rng = np.random.default_rng(0)
values = {"normal": rng.standard_normal(3).tolist(), "integers": rng.integers(0, 10, 5).tolist(),
          "permutation": rng.permutation(5).tolist()}
run = {}
exec(NUMPY_PARTS, run)
print(json.dumps({"refused": refused, **values, "numpy_parts": run["numpy_parts"]}))
"""

#: NumPy's compiled parts that a reader's cell may reach (LAPACK, FFT, sorting, einsum, casts), run in
#: the browser and here: the same numbers, to round-off.
NUMPY_PARTS = """import numpy as np
a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
b = np.array([1.0, 2.0, 3.0])
u, s, vt = np.linalg.svd(a)
parts = {"solve": np.linalg.solve(a, b), "eigvalsh": np.linalg.eigvalsh(a), "singular": s,
         "det": np.linalg.det(a), "inv": np.linalg.inv(a).ravel(), "qr_r": np.abs(np.linalg.qr(a)[1]).ravel(),
         "lstsq": np.linalg.lstsq(a[:, :2], b, rcond=None)[0], "rfft": np.abs(np.fft.rfft([1.0, 2.0, 0.0, -1.0])),
         "einsum": np.einsum("ij,jk->ik", a, a).ravel(), "sort": np.sort([3.0, -1.0, 2.5, 0.0]),
         "argsort": np.argsort([3, 1, 2], kind="stable"), "partition": np.partition([5, 1, 4, 2], 1)[:2],
         "unique": np.unique([3, 1, 3, 2]), "half": np.array([0.1, 65504.0], dtype=np.float16).astype(np.float64),
         "softmax": np.exp(b - np.logaddexp.reduce(b)), "median": np.median(b), "cumsum": np.cumsum(b)}
numpy_parts = {k: np.asarray(v, dtype=float).ravel().tolist() for k, v in parts.items()}
"""


def test_the_packages_whose_code_is_cut_cannot_be_imported_and_numpy_random_runs(browser, site_url):
    """A third of python.wasm's code, the Cython code of the packages stdlib.zip leaves out, is cut to
    traps: importing one of them is a plain ModuleNotFoundError, never a trap; NumPy's random
    generators (Cython too) and its compiled parts (NUMPY_PARTS) give what NumPy gives here."""
    import numpy as np

    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{site_url}/index.html")
        run = page.evaluate(RUN_IN_WORKER, [f"NUMPY_PARTS = {NUMPY_PARTS!r}\n{DROPPED}", {}])
    finally:
        context.close()
    assert run["ok"], run["err"]
    values = json.loads(run["out"])
    assert values["refused"] == {"pandas": "pandas", "scipy": "scipy", "sklearn": "sklearn",
                                 "statsmodels": "statsmodels", "lxml": "lxml", "pandas._libs.lib": "pandas",
                                 "scipy.linalg": "scipy"}
    rng = np.random.default_rng(0)
    assert values["normal"] == pytest.approx(rng.standard_normal(3).tolist(), rel=1e-12)
    assert values["integers"] == rng.integers(0, 10, 5).tolist()
    assert values["permutation"] == rng.permutation(5).tolist()
    here: dict = {}
    exec(NUMPY_PARTS, here)
    assert values["numpy_parts"].keys() == here["numpy_parts"].keys()
    for name, numbers in here["numpy_parts"].items():
        assert values["numpy_parts"][name] == pytest.approx(numbers, rel=1e-9, abs=1e-12), name
