"""The NumPy safetensors reader equals the safetensors package, and refuses bad files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from selfattention import minilm
from selfattention.bert.weightfile import read_safetensors, write_safetensors

safetensors_numpy = pytest.importorskip("safetensors.numpy")


def test_the_model_file_reads_as_safetensors_reads_it():
    path = minilm.find_model_dir() / "model.safetensors"
    ours, theirs = read_safetensors(path), safetensors_numpy.load_file(str(path))
    assert ours.keys() == theirs.keys()
    for name in theirs:
        assert ours[name].dtype == theirs[name].dtype and ours[name].shape == theirs[name].shape, name
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)   # bit for bit


def test_bytes_and_paths_read_alike(tmp_path):
    arrays = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array([-1, 2], np.int32)}
    raw = write_safetensors(arrays, tmp_path / "x.safetensors")
    for source in (raw, bytearray(raw), memoryview(raw), tmp_path / "x.safetensors", str(tmp_path / "x.safetensors")):
        got = read_safetensors(source)
        assert got.keys() == arrays.keys()
        for name in arrays:
            np.testing.assert_array_equal(got[name], arrays[name])


DTYPES = st.sampled_from([np.float32, np.float16, np.float64, np.int64, np.int32, np.int16, np.int8,
                          np.uint8, np.bool_])
TENSORS = st.dictionaries(
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=8).filter(lambda n: n != "__metadata__"),
    DTYPES.flatmap(lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))),
    max_size=5,
)


@settings(derandomize=True, database=None, deadline=None, max_examples=200)
@given(tensors=TENSORS)
def test_the_writer_makes_the_bytes_of_safetensors_and_reads_them_back(tensors):
    raw = write_safetensors(tensors)
    assert raw == safetensors_numpy.save(tensors)
    theirs = safetensors_numpy.load(raw)
    ours = read_safetensors(raw)
    assert ours.keys() == theirs.keys() == tensors.keys()
    for name in tensors:
        np.testing.assert_array_equal(ours[name], theirs[name])
        assert ours[name].dtype == theirs[name].dtype


def test_bfloat16_becomes_the_float32_it_stands_for():
    values = np.array([1.0, -2.5, 3.140625, 0.0], np.float32)
    top = (values.view(np.uint32) >> 16).astype("<u2")            # bf16 keeps the top 16 bits
    header = json.dumps({"x": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 8]}}).encode()
    raw = len(header).to_bytes(8, "little") + header + top.tobytes()
    got = read_safetensors(raw)["x"]
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, values)


def _file(header: dict, data: bytes = b"") -> bytes:
    text = json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + data


@pytest.mark.parametrize(("raw", "message"), [
    (b"\x01\x00", "too short for its 8-byte header length"),
    ((500).to_bytes(8, "little") + b"{}", "header length is 500 bytes but the file has only 2"),
    ((10**9).to_bytes(8, "little"), "over the 100000000-byte limit"),
    ((4).to_bytes(8, "little") + b"{nop", "not valid UTF-8 JSON"),
    (_file([1, 2]), "must be a JSON object"),
    (_file({"w": {"dtype": "F8", "shape": [1], "data_offsets": [0, 1]}}, b"\0"), "tensor 'w': unknown dtype 'F8'"),
    (_file({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 4),
     "tensor 'w': data_offsets end at 8, past the 4 bytes"),
    (_file({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8),
     "tensor 'w': F32 of shape \\[3\\] needs 12 bytes, data_offsets give 8"),
    (_file({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, b"\0" * 4), "tensor 'w': shape must be"),
    (_file({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}}, b"\0" * 4),
     "tensor 'w': data_offsets must be"),
    (_file({"w": {"dtype": "F32", "shape": [1]}}), "tensor 'w': header entry must have exactly"),
    (_file({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
            "b": {"dtype": "U8", "shape": [2], "data_offsets": [1, 3]}}, b"\0" * 3),
     "tensor 'b': data_offsets start at 1, expected 2"),
    (_file({"w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}, b"\0\0"), "trailing bytes"),
    (_file({"__metadata__": {"k": 1}}), "__metadata__ must map strings to strings"),
])
def test_a_bad_file_gets_a_value_error_that_names_the_fault(raw, message):
    with pytest.raises(ValueError, match=message):
        read_safetensors(raw)


def test_a_truncated_model_file_is_refused_naming_the_tensor():
    path = minilm.find_model_dir() / "model.safetensors"
    raw = path.read_bytes()
    with pytest.raises(ValueError, match=r"tensor '[^']+': data_offsets end at \d+, past the"):
        read_safetensors(raw[:-1000])


def test_bad_arguments_get_type_errors():
    with pytest.raises(TypeError, match="source must be a path or the file's bytes"):
        read_safetensors(3)
    with pytest.raises(TypeError, match="tensors must be a mapping"):
        write_safetensors([np.zeros(2)])
    with pytest.raises(TypeError, match="tensor 'x' has dtype complex128"):
        write_safetensors({"x": np.zeros(2, complex)})
    with pytest.raises(ValueError, match="tensor name '__metadata__' is not allowed"):
        write_safetensors({"__metadata__": np.zeros(2)})
