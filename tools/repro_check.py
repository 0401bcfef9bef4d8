"""Build the book twice, from clean, in two different folders; compare every file.

Usage: ``python tools/repro_check.py`` (``make repro-check``). Exit status 1
if any output file differs, except those listed with a reason in
``tools/repro-exceptions.txt``.

Each build gets its own copy of the sources (``book/``, ``conf.py``) in a
folder of a different name and depth, and its own empty execution cache, so
absolute paths, leftover caches and run-to-run randomness all show up as
differences.
"""

from __future__ import annotations

import filecmp
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXCEPTIONS = ROOT / "tools" / "repro-exceptions.txt"


def exceptions() -> dict[str, str]:
    """Path patterns (fnmatch) allowed to differ, each with the reason it must."""
    found = {}
    if EXCEPTIONS.exists():
        for line in EXCEPTIONS.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                path, _, reason = line.partition("  ")
                found[path.strip()] = reason.strip()
    return found


def build(workdir: Path) -> Path:
    """Copy the sources into ``workdir`` and build them there from clean."""
    shutil.copytree(ROOT / "book", workdir / "book")
    for name in ("conf.py", "CITATION.cff", "pyproject.toml"):  # conf.py reads the other two
        shutil.copy2(ROOT / name, workdir / name)
    shutil.copytree(ROOT / "src", workdir / "src")
    env = dict(os.environ, SA_JUPYTER_CACHE=str(workdir / "cache"), SOURCE_DATE_EPOCH="1764374400")
    cmd = [sys.executable, "-m", "sphinx", "-q", "-n", "-W", "--keep-going", "-j", "2",
           "-c", str(workdir), str(workdir / "book"), str(workdir / "html"),
           "-d", str(workdir / "doctrees")]
    subprocess.run(cmd, cwd=workdir, env=env, check=True)
    return workdir / "html"


def compare(a: Path, b: Path) -> list[str]:
    """Relative paths that differ, or exist on one side only."""
    files_a = {p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()}
    diff = sorted(files_a ^ files_b)
    for rel in sorted(files_a & files_b):
        if not filecmp.cmp(a / rel, b / rel, shallow=False):
            diff.append(rel)
    return diff


def images_of(html_dir: Path) -> dict[str, set[str]]:
    """For each image under ``_images/``, the pages that show it."""
    shown: dict[str, set[str]] = {}
    for page in html_dir.rglob("*.html"):
        rel = page.relative_to(html_dir).as_posix()
        for src in re.findall(r'src="([^"]*_images/[^"]+)"', page.read_text(encoding="utf-8")):
            shown.setdefault("_images/" + src.split("_images/", 1)[1], set()).add(rel)
    return shown


def reason_for(rel: str, allowed: dict[str, str], shown: dict[str, set[str]]) -> str | None:
    """Why ``rel`` may differ, or None if it may not.

    A figure may differ when every page that shows it may differ (its file
    name is a hash of its content, so a changed figure is a new file).
    """
    for pattern, reason in allowed.items():
        if fnmatch.fnmatchcase(rel, pattern):
            return reason
    pages = shown.get(rel)
    if pages and all(reason_for(p, allowed, {}) for p in pages):
        return f"a figure shown only on {', '.join(sorted(pages))}"
    return None


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="repro-") as tmp:
        first = build(Path(tmp) / "a")
        second = build(Path(tmp) / "second-build" / "b")
        allowed = exceptions()
        shown = images_of(first)
        for rel, pages in images_of(second).items():
            shown.setdefault(rel, set()).update(pages)
        diff = compare(first, second)
        reasons = {rel: reason_for(rel, allowed, shown) for rel in diff}
        unexpected = [rel for rel in diff if reasons[rel] is None]
        n = sum(1 for p in first.rglob("*") if p.is_file())
        print(f"compared {n} files: {len(diff)} differ, "
              f"{len(diff) - len(unexpected)} of them for a listed reason")
        for rel in diff:
            print(f"{'DIFFERS' if reasons[rel] is None else 'allowed'}: {rel}"
                  + (f"  ({reasons[rel]})" if reasons[rel] else ""))
        return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
