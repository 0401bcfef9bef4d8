"""The NumPy safetensors reader equals the safetensors package, and refuses bad files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from selfattention import minilm
from selfattention.bert import weightfile
from selfattention.bert.weightfile import read_safetensors, write_safetensors

safetensors_numpy = pytest.importorskip("safetensors.numpy")
import safetensors  # noqa: E402  (after importorskip, as safetensors.numpy)


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
    ((4).to_bytes(8, "little") + b"{nop", "not valid JSON"),
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


def _text(text: bytes, data: bytes = b"") -> bytes:
    return len(text).to_bytes(8, "little") + text + data


#: The faults hypothesis found (or that led to it): each was a crash, a silent acceptance, or a slow product.
@pytest.mark.parametrize(("raw", "message"), [
    # RecursionError escaped from json.loads
    (_text(b"[" * 100_000 + b"]" * 100_000), "nests too deeply"),
    (_text(b'{"a":' * 50_000 + b"1" + b"}" * 50_000), "nests too deeply"),
    # TypeError: unhashable type (a dtype that is not a string)
    (_file({"w": {"dtype": ["F32"], "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4),
     r"tensor 'w': unknown dtype \['F32'\]"),
    (_file({"w": {"dtype": {"F32": 1}, "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4), "tensor 'w': unknown dtype"),
    # accepted, the last one winning
    (_text(b'{"w":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
           b"\0"), "the key 'w' appears twice"),
    (_text(b'{"__metadata__":{},"__metadata__":{}}'), "the key '__metadata__' appears twice"),
    (_text(b'{"w":{"dtype":"U8","dtype":"I8","shape":[1],"data_offsets":[0,1]}}', b"\0"),
     "the key 'dtype' appears twice"),
    # accepted, though not JSON (safetensors refuses them)
    (_text(b'{"\\ud800":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\0"), "lone surrogate"),
    (_text(b'{"__metadata__":{"k":"\\udfff"}}'), "lone surrogate"),
    (_text(b'{"__metadata__":NaN}'), "NaN is not JSON"),
    (_text(b'{"w":{"dtype":"U8","shape":[-0],"data_offsets":[0,0]}}'), r"shape must be .*got \[-0.0\]"),
    # ValueErrors that named nothing, or took seconds to build their message
    (_text(b'{"w":{"dtype":"U8","shape":[' + b"9" * 5000 + b'],"data_offsets":[0,0]}}'),
     "header is not valid: Exceeds"),
    (_file({"w": {"dtype": "U8", "shape": [1] * 70, "data_offsets": [0, 1]}}, b"\0"), "shape has 70 dimensions"),
    (_file({"w": {"dtype": "U8", "shape": [2**62] * 20_000, "data_offsets": [0, 1]}}, b"\0"), "shape has 20000 dim"),
    (_file({"w": {"dtype": "U8", "shape": [2**62] * 4, "data_offsets": [0, 1]}}, b"\0"),
     "needs more than 2\\*\\*64 bytes"),
    # named "unknown", though the format knows them
    (_file({"w": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [0, 1]}}, b"\0"), "'F8_E4M3' has no NumPy type"),
    # a field too many or too few, said plainly
    (_file({"w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1], "x": 1}}, b"\0"), "must have exactly .* got"),
    (_file({"w": {"dtype": "U8", "shape": [1]}}), "lacks data_offsets"),
    (_file({"__metadata__": [1]}), "__metadata__ must map strings to strings, got \\[1\\]"),
])
def test_the_faults_hypothesis_found_get_value_errors(raw, message):
    with pytest.raises(ValueError, match=message):
        read_safetensors(raw)
    _same_as_safetensors(raw)


def test_a_message_quotes_a_huge_value_shortly():
    with pytest.raises(ValueError) as info:
        read_safetensors(_file({"w": {"dtype": "x" * 10**6, "shape": [1], "data_offsets": [0, 1]}}, b"\0"))
    assert len(str(info.value)) < 300


@pytest.mark.parametrize(("header", "data", "dtype"), [
    ({"w": {"dtype": "U16", "shape": [2], "data_offsets": [0, 4]}}, b"\1\0\2\0", np.uint16),
    ({"w": {"dtype": "U32", "shape": [1], "data_offsets": [0, 4]}}, b"\1\0\0\0", np.uint32),
    ({"w": {"dtype": "U64", "shape": [1], "data_offsets": [0, 8]}}, b"\1" + b"\0" * 7, np.uint64),
    ({"w": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, b"\0\0\x80\x3f" + b"\0" * 4, np.complex64),
    ({"__metadata__": None}, b"", None),
    ({"w": {"dtype": "F64", "shape": [1], "data_offsets": [1, 9]}, "v": {"dtype": "U8", "shape": [1],
      "data_offsets": [0, 1]}}, b"\0" * 9, np.float64),                   # unaligned
    ({"a": {"dtype": "U8", "shape": [0], "data_offsets": [4, 4]}, "b": {"dtype": "U8", "shape": [4],
      "data_offsets": [0, 4]}}, b"\0" * 4, np.uint8),                      # an empty tensor at the end
])
def test_files_safetensors_reads_that_were_refused_read_alike(header, data, dtype):
    raw = _file(header, data)
    _same_as_safetensors(raw)
    assert read_safetensors(raw).keys() == {k for k in header if k != "__metadata__"}


def test_a_path_with_a_header_length_past_the_file_is_refused_before_reading_it(tmp_path):
    path = tmp_path / "x.safetensors"
    path.write_bytes((weightfile.MAX_HEADER_BYTES - 1).to_bytes(8, "little") + b"{}")
    with pytest.raises(ValueError, match="header length is 99999999 bytes but the file has only 2"):
        read_safetensors(path)


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


# ---------------------------------------------------------------------------
# Any file, good or bad, against the safetensors package
# ---------------------------------------------------------------------------

#: Refusals of files the safetensors package reads: the format's notes disallow a key given twice;
#: a tensor entry has exactly three fields here; NumPy has no 4-, 6- or 8-bit floats and 64 dimensions at most.
STRICTER = ("appears twice", "header entry must have exactly", "has no NumPy type", "more than NumPy's 64")


def _theirs(raw: bytes):
    """What the safetensors package reads from ``raw`` (name -> (dtype, shape, bytes)), or None if it refuses."""
    try:
        return {name: (t["dtype"], tuple(t["shape"]), bytes(t["data"])) for name, t in safetensors.deserialize(raw)}
    except Exception:   # SafetensorError, and whatever else it raises on a bad file
        return None


def _same_as_safetensors(raw: bytes) -> None:
    """Our reader reads what safetensors reads, the same arrays; anything else is a ValueError."""
    theirs = _theirs(raw)
    try:
        ours = read_safetensors(raw)
    except ValueError as exc:
        assert theirs is None or any(s in str(exc) for s in STRICTER), (str(exc), theirs)
        return
    assert theirs is not None, ours
    assert ours.keys() == theirs.keys()
    for name, (dtype, shape, data) in theirs.items():
        got = ours[name]
        assert got.shape == shape, name
        if dtype == "BF16":
            assert got.dtype == np.float32 and (got.view(np.uint32) >> 16).astype("<u2").tobytes() == data, name
        else:
            assert got.dtype == weightfile.DTYPES[dtype] and got.tobytes() == data, name
    if not any(dtype == "BF16" for dtype, _, _ in theirs.values()):
        for name, arr in safetensors_numpy.load(raw).items():
            np.testing.assert_array_equal(ours[name], arr)
            assert ours[name].dtype == arr.dtype


ODD_VALUES = st.sampled_from([None, True, 1.5, -1, "", "x", [], {}, ["F32"], {"F32": 1}, float("nan"), 2**64 + 1])
READABLE = st.sampled_from(list(weightfile.DTYPES))
DTYPE_NAMES = st.one_of(READABLE, READABLE, READABLE, READABLE, st.sampled_from(weightfile.NO_NUMPY_DTYPE),
                        st.sampled_from(["u8", "F8", "f32", "BF32"]), ODD_VALUES)
SMALL_SHAPES = st.lists(st.integers(0, 3), max_size=3)
SHAPES = st.one_of(SMALL_SHAPES, SMALL_SHAPES, SMALL_SHAPES, SMALL_SHAPES, st.lists(st.integers(-2, 3), max_size=3),
                   st.lists(st.sampled_from([0, 1, 2**32, 2**63, 2**64 + 1]), max_size=4),
                   st.lists(st.just(1), min_size=60, max_size=70), ODD_VALUES)


@st.composite
def headers(draw):
    """A header and its data: entries laid out one after the other, each field sometimes wrong."""
    header, offset = {}, 0
    for _ in range(draw(st.integers(0, 3))):
        dtype, shape = draw(DTYPE_NAMES), draw(SHAPES)
        itemsize = weightfile.DTYPES[dtype].itemsize if isinstance(dtype, str) and dtype in weightfile.DTYPES else 1
        size = itemsize * int(np.prod(shape, dtype=object)) if isinstance(shape, list) and all(
            isinstance(d, int) and 0 <= d < 2**8 for d in shape) else draw(st.integers(0, 8))
        begin = max(0, offset + draw(st.sampled_from([0] * 10 + [1, -1])))
        end = max(begin, begin + size + draw(st.sampled_from([0] * 10 + [1, -1])))
        entry = {"dtype": dtype, "shape": shape,
                 "data_offsets": draw(st.sampled_from([[begin, end]] * 12 + [[end, begin], [begin], [begin, end, end],
                                                                           [float(begin), end], "0", None]))}
        if draw(st.integers(0, 19)) == 0:
            del entry[draw(st.sampled_from(sorted(entry)))]
        if draw(st.integers(0, 19)) == 0:
            entry["extra"] = draw(ODD_VALUES)
        header[draw(st.text(st.characters(codec="utf-8"), max_size=3))] = entry
        offset = max(offset, end)
    if draw(st.integers(0, 4)) == 0:
        header["__metadata__"] = draw(st.one_of(st.dictionaries(st.text(max_size=2), st.text(max_size=2), max_size=2),
                                                st.dictionaries(st.text(max_size=2), ODD_VALUES, max_size=2),
                                                ODD_VALUES))
    return header, offset + draw(st.sampled_from([0] * 10 + [1, -1]))


@st.composite
def files(draw):
    """The bytes of a file from :func:`headers`, its text, length or bytes sometimes spoiled."""
    header, size = draw(headers())
    text = json.dumps(header, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    if header and draw(st.integers(0, 9)) == 0:          # a key twice: the first entry again, at the end
        first = json.dumps(dict([next(iter(header.items()))]))[1:-1]
        text = text[:-1] + b", " + first.encode("utf-8", "surrogatepass") + b"}"
    text = draw(st.sampled_from([b"", b"", b" ", b"\n"])) + text + b" " * draw(st.integers(0, 7))
    data = draw(st.binary(min_size=max(size, 0), max_size=max(size, 0)))
    length = len(text) + draw(st.sampled_from([0] * 16 + [1, -1, 2**20, 2**63]))
    raw = max(length, 0).to_bytes(8, "little") + text + data
    return raw[:draw(st.sampled_from([len(raw)] * 12 + [0, 7, 8, len(raw) - 1]))]


@settings(derandomize=True, database=None, deadline=None, max_examples=400)
@given(raw=files())
def test_any_file_reads_as_safetensors_reads_it_or_gets_a_value_error(raw):
    _same_as_safetensors(raw)


@settings(derandomize=True, database=None, deadline=None, max_examples=200)
@given(tensors=TENSORS, at=st.integers(0, 2**16), cut=st.integers(0, 4), new=st.binary(max_size=4))
def test_a_good_file_spoiled_anywhere_reads_as_safetensors_reads_it_or_gets_a_value_error(tensors, at, cut, new):
    raw = write_safetensors(tensors)
    at %= len(raw) + 1
    _same_as_safetensors(raw[:at] + new + raw[at + cut:])
