"""One version: pyproject.toml holds it; the package, the book and CITATION.cff agree."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import selfattention

ROOT = Path(__file__).resolve().parents[1]


def pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_package_reads_the_pyproject_version():
    assert selfattention.__version__ == pyproject_version()


def test_citation_cff_names_the_pyproject_version():
    text = (ROOT / "CITATION.cff").read_text()
    match = re.search(r"^version:\s*\"?([^\"\n]+)\"?\s*$", text, re.M)
    assert match, "CITATION.cff has no version line"
    assert match.group(1) == pyproject_version()


def test_no_version_typed_outside_pyproject():
    version = pyproject_version()
    # "==0.1.0" pins another package (the model weights), not ours.
    ours = re.compile(r"(?<![=\w.])" + re.escape(version) + r"(?![\w.])")
    files = [ROOT / "conf.py", *sorted((ROOT / "book").glob("*.md")), *sorted((ROOT / "src").rglob("*.py"))]
    typed = [str(path.relative_to(ROOT)) for path in files if ours.search(path.read_text())]
    assert typed == [], f"version {version} typed in {typed}; read it from pyproject.toml"
