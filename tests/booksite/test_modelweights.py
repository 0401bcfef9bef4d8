"""The site's model files: float16, deterministic, cached, under the size limit, in the manifest."""

from __future__ import annotations

import json

import numpy as np
import pytest

from booksite import modelweights
from selfattention import minilm
from selfattention.bert.weightfile import read_safetensors


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("model") / "model"
    return out, modelweights.build_model(out)


def test_the_files_are_the_manifests_and_under_the_site_limit(built):
    out, manifest = built
    names = {e["name"] for e in manifest["files"].values()}
    assert names | {minilm.MANIFEST_FILE} == {p.name for p in out.iterdir()}
    assert modelweights.verify_model(out, manifest) == []
    for entry in manifest["files"].values():
        assert entry["size"] == (out / entry["name"]).stat().st_size <= modelweights.LIMIT_BYTES
    assert json.loads((out / minilm.MANIFEST_FILE).read_text()) == manifest
    assert manifest["license"] == "Apache-2.0" and manifest["model"] == "sentence-transformers/all-MiniLM-L6-v2"


def test_the_weights_are_the_models_rounded_to_float16(built):
    out, _ = built
    half = read_safetensors(out / minilm.F16_WEIGHTS_FILE)
    full = read_safetensors(minilm.find_model_dir() / minilm.WEIGHTS_FILE)
    assert set(half) == {name for name, arr in full.items() if arr.dtype == np.float32}
    for name, arr in half.items():
        assert arr.dtype == np.float16
        np.testing.assert_array_equal(arr, full[name].astype(np.float16), err_msg=name)
    for name in modelweights.COPIED:
        assert (out / name).read_bytes() == (minilm.find_model_dir() / name).read_bytes()


def test_two_builds_give_the_same_bytes(built, tmp_path):
    out, manifest = built
    again = modelweights.build_model(tmp_path / "model")
    assert again == manifest
    for entry in manifest["files"].values():
        assert (tmp_path / "model" / entry["name"]).read_bytes() == (out / entry["name"]).read_bytes()


def test_a_rebuild_reuses_the_files_and_a_damaged_one_is_remade(built):
    out, manifest = built
    weights = out / minilm.F16_WEIGHTS_FILE
    mtime = weights.stat().st_mtime_ns
    assert modelweights.build_model(out) == manifest and weights.stat().st_mtime_ns == mtime   # nothing redone
    (out / "config.json").write_text("{}")
    assert modelweights.build_model(out) == manifest
    assert modelweights.verify_model(out, manifest) == []


def test_copy_into_the_site_puts_the_files_under_static_model(built, tmp_path):
    out, manifest = built
    site = tmp_path / "html" / modelweights.SITE_DIR
    copied = modelweights.copy_into(site, out)
    assert sorted(copied) == sorted(p.name for p in out.iterdir())
    assert modelweights.copy_into(site, out) == []


def test_the_site_folder_runs_the_explorers_function(built):
    out, _ = built
    result = minilm.sentence_attentions("The cat sat on the mat.", model_dir=out)
    assert result.attentions.shape == (6, 12, 9, 9)


def test_the_notice_names_the_model_its_licence_and_the_change(built):
    out, _ = built
    notice = (out / "NOTICE").read_text()
    assert "sentence-transformers/all-MiniLM-L6-v2" in notice and "Apache License" in notice
    assert "float16" in notice
    assert (out / "LICENSE").read_text().lstrip().startswith("Apache License")


def test_a_weight_beyond_float16_is_refused():
    with pytest.raises(ValueError, match="weight 'w' has values beyond float16's range"):
        modelweights.float16_weights({"w": np.array([7e4], np.float32)})
