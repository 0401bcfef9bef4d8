"""What ``pip install .`` installs: the library alone; the book's tooling is a second distribution.

Each wheel is built with ``pip wheel --no-deps`` from a copy of the checkout
(building in the checkout would leave ``build/`` there), and its files are
listed. pip fetches setuptools for the build, so these tests carry the
``library`` marker: ``make test-fast`` leaves them out, ``make test`` runs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLING = Path("tools") / "book-tooling"

pytestmark = pytest.mark.library


def copy_checkout(target: Path) -> Path:
    """The files a wheel is built from: both project files, the README, the licence and all of src/."""
    for name in ("pyproject.toml", "README.md", "LICENSE", TOOLING / "pyproject.toml"):
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, target / name)
    shutil.copytree(ROOT / "src", target / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return target


def wheel_files(project: Path, out: Path) -> list[str]:
    """The names of the files in the wheel that ``pip wheel --no-deps`` builds from ``project``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(project)]
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    (wheel,) = out.glob("*.whl")
    return zipfile.ZipFile(wheel).namelist()


def test_the_library_wheel_holds_selfattention_only(tmp_path):
    names = wheel_files(copy_checkout(tmp_path / "source"), tmp_path / "wheel")
    tops = {name.split("/")[0] for name in names}
    assert tops == {"selfattention", "selfattention-0.1.0.dist-info"}, sorted(tops)
    assert "selfattention/fast/__init__.py" in names and "selfattention/bert/encoder.py" in names
    assert "selfattention/induction/weights.npz" in names   # the copying model's trained weights
    assert "selfattention/induction/positions.npz" in names  # and the positions experiment's results


def test_the_book_tooling_wheel_holds_booktools_and_booksite(tmp_path):
    source = copy_checkout(tmp_path / "source")
    names = wheel_files(source / TOOLING, tmp_path / "wheel")
    tops = {name.split("/")[0] for name in names}
    assert tops == {"booktools", "booksite", "selfattention_book-0.1.0.dist-info"}, sorted(tops)
    assert "booksite/__init__.py" in names and "booktools/labs/__init__.py" in names
