// Run buttons on a page's code cells and code exercises (booksite.runcells).
//
// The page is complete without this module: it only adds buttons. Python
// (runtime.js, in a Worker) is downloaded at the first Run, never before.
// The page's cells share one Python namespace, as in a notebook; running a
// cell first runs the cells above it that have not run yet, in page order.
// A code exercise and a published solution run *alone*: in a namespace of
// their own, made anew at each Run, with nothing from the page's cells. So
// each holds all it needs, and a solution pasted into its exercise's editor
// runs there as it ran on the page.

import { loadModelFiles, needed } from "./model-files.js";

const RUNTIME_DIR = "_static/sa/run/runtime/";
const MODEL_SITE_DIR = "_static/model/"; // booktools.labs.explorer_compute.MODEL_SITE_DIR
const MODEL_DIR = "/home/reader/model"; // the same files in Python (MODEL_BROWSER_DIR there)
// Exercises whose checker runs the model to know the right answer (selfattention.checks.model, .block).
const MODEL_CHECKERS = /\bminilm\b|\bcheck_(?:strongest_head|head_counts|bert_layer)\(/;
const MAX_OUTPUT = 100000; // characters kept per cell
const KEYS_HINT = "Ctrl+Enter (⌘+Enter on a Mac) runs. Tab inserts four spaces; Esc, then Tab, leaves the editor.";
const ALONE_HINT = "This code runs on its own: it needs nothing from the page's cells.";

// WebAssembly with exception references (exnref), which this Python needs:
// a function returning `ref.null exn` validates only where it is supported.
const EXNREF_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 105, 3, 2, 1, 0,
  10, 6, 1, 4, 0, 208, 105, 11]);

const root = new URL("../../../", import.meta.url); // the site's root
const cells = [];
let worker = null;
let ready = null; // a promise: Python is up
let kept = null; // {module, zip} of the first start, reused after Stop or a crash
let model = null; // a promise: this Python has the site's float16 model files (manifest: model.json)
let busy = null; // the cell running now
let started = null; // where the start of this Python went, in ms (runtime.js's times)
let queue = Promise.resolve();

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function notebookLink() {
  const a = document.querySelector(".sa-download a[download]");
  return a ? a.getAttribute("href") : null;
}

function supported() {
  return typeof WebAssembly === "object" && typeof Worker === "function" &&
    typeof DecompressionStream === "function" && WebAssembly.validate(EXNREF_PROBE);
}

function mb(bytes) {
  return (bytes / 1e6).toFixed(1);
}

// --- the Worker -------------------------------------------------------------

function startWorker(cell) {
  worker = new Worker(new URL("runtime.js", import.meta.url), { type: "module" });
  const pending = new Map();
  worker.pending = pending;
  ready = new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      const msg = event.data;
      if (msg.type === "progress") {
        showProgress(busy || cell, msg.loaded, msg.total);
      } else if (msg.type === "ready") {
        kept = { module: msg.module, zip: msg.zip };
        started = msg.times;
        resolve();
      } else if (msg.type === "out") {
        const target = cells.find((c) => c.id === msg.id);
        if (target) write(target, msg.text, msg.stream);
      } else if (msg.type === "done") {
        const done = pending.get(msg.id);
        pending.delete(msg.id);
        if (done) done.resolve(msg.ok);
      } else if (msg.type === "crash") {
        reject(new Error(msg.message));
        restart(msg.message + ". Python was restarted: variables from earlier cells are gone; " +
          "Run again runs the cells above first.");
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message || "the Python worker failed"));
      restart("The Python worker failed to start" + (event.message ? `: ${event.message}` : "") + ".");
    };
  });
  ready.catch(() => {}); // a failed start is reported by restart()
  return fetch(new URL(RUNTIME_DIR + "runtime.json", root)).then((r) => {
    if (!r.ok) throw new Error(`the runtime files are missing (HTTP ${r.status})`);
    return r.json();
  }).then((manifest) => {
    worker.postMessage({ type: "start", base: new URL(RUNTIME_DIR, root).href, manifest,
      module: kept && kept.module, zip: kept && kept.zip });
    return ready;
  });
}

// Stop, or a crash: end the Worker; every cell is as if never run.
function restart(message) {
  if (worker) {
    for (const p of worker.pending.values()) p.reject(new Error(message));
    worker.terminate();
  }
  worker = null;
  ready = null;
  model = null;
  downloads.clear();
  for (const c of cells) c.ran = false;
  if (busy) {
    status(busy, message, "error");
    finish(busy);
  }
  busy = null;
  queue = Promise.resolve();
}

// fresh: run in a namespace of its own (an exercise, a solution), not the page's.
function runInWorker(cell, code, fresh = false) {
  return new Promise((resolve, reject) => {
    worker.pending.set(cell.id, { resolve, reject });
    worker.postMessage({ type: "run", id: cell.id, code, fresh });
  });
}

// The site's float16 model files, put in Python's file system once per Python, and
// SA_MODEL_DIR set so that selfattention.minilm reads them (booksite.modelweights makes them).
function loadModel(cell) {
  if (model) return model;
  model = (async () => {
    // The files download while Python starts (run() asks for both at once); they wait in the
    // Worker until Python is up, and only the last step needs Python itself.
    const r = await fetch(new URL(MODEL_SITE_DIR + "model.json", root));
    if (!r.ok) throw new Error(`the model's files are missing from the site (HTTP ${r.status})`);
    const manifest = await r.json();
    const total = needed(manifest).reduce((t, f) => t + f.size, 0);
    let loaded = 0;
    const onBytes = (n) => {
      loaded += n;
      showProgress(busy || cell, loaded, total, "the model");
    };
    const put = (name, bytes) => worker.postMessage({ type: "put", path: `${MODEL_DIR}/${name}`, data: bytes },
      [bytes]);
    await loadModelFiles(new URL(MODEL_SITE_DIR, root), manifest, put, { onBytes });
    await ready;
    const setup = { id: "model-setup" };
    const ok = await runInWorker(setup, `import os\nos.environ["SA_MODEL_DIR"] = ${JSON.stringify(MODEL_DIR)}`);
    if (!ok) throw new Error("Python could not be pointed at the model's files");
    return manifest;
  })();
  model.catch(() => { model = null; }); // a failed download is tried again at the next Run
  return model;
}

// One significant digit, rounded up: what "at most" may say of a measured number.
function upTo(x) {
  if (!(x > 0)) return "0";
  const e = Math.floor(Math.log10(x));
  const m = Math.ceil(x / 10 ** e);
  return (m * 10 ** e).toPrecision(1).replace(/^(\d)e\+?(\d+)$/, (_, a, b) => a + "0".repeat(Number(b)));
}

// What a Run of a cell that reads the model says under its output: the browser ran the
// float16 copy, and how far float16 moved the numbers on the sentences the build compared.
function float16Note(manifest) {
  const c = manifest.float16_change;
  return "This ran the site's float16 copy of the model, not the float32 one the book was built with. " +
    `On ${c.sentences.length} test sentences, float16 moves an attention weight by at most ` +
    `${upTo(c.attention)} and a hidden-state number by at most ${upTo(c.hidden)} (numbers of size ` +
    `${Math.ceil(c.hidden_max)} at most), so the last digits may differ.`;
}

// --- a cell -----------------------------------------------------------------

function status(cell, text, kind = "") {
  cell.status.textContent = text;
  cell.status.className = "sa-run-status" + (kind ? ` sa-run-${kind}` : "");
  cell.status.hidden = !text;
}

// A cell above failed: say so, with a link that takes the reader to it and its message.
function failedAbove(cell, failed) {
  status(cell, "A cell above failed, so this one did not run: ", "error");
  const a = el("a", { href: `#${failed.box.id}` }, "go to the cell that failed and its message");
  a.addEventListener("click", (e) => {
    e.preventDefault();
    failed.box.scrollIntoView({ block: "start" });
    failed.output.focus({ preventScroll: true });
  });
  cell.status.append(a, ".");
}

// Python and the model may download at once: one bar and one line for both.
const downloads = new Map(); // what -> [loaded, total], while it downloads

function showProgress(cell, loaded, total, what = "Python") {
  if (loaded >= total) downloads.delete(what);
  else downloads.set(what, [loaded, total]);
  if (!cell) return;
  const parts = downloads.size ? [...downloads].sort(([a], [b]) => (a === "Python" ? -1 : b === "Python")) :
    [[what, [loaded, total]]];
  const sum = (i) => parts.reduce((t, [, v]) => t + v[i], 0);
  const names = parts.map(([w]) => w).join(" and ");
  cell.progress.hidden = false;
  cell.progress.max = sum(1);
  cell.progress.value = sum(0);
  cell.progress.setAttribute("aria-label", `Loading ${names}`);
  status(cell, `Loading ${names}: ${mb(sum(0))} of ${mb(sum(1))} MB`);
}

function write(cell, text, stream) {
  const out = cell.output;
  out.hidden = false;
  if (out.textContent.length > MAX_OUTPUT) return;
  const span = el("span", stream === "stderr" ? { class: "sa-run-stderr" } : {});
  span.textContent = text;
  out.append(span);
}

function begin(cell) {
  busy = cell;
  cell.output.textContent = "";
  cell.output.hidden = true;
  cell.note.hidden = true;
  cell.run.disabled = true;
  cell.stop.hidden = false;
  cell.box.setAttribute("aria-busy", "true");
}

function finish(cell) {
  cell.run.disabled = false;
  cell.stop.hidden = true;
  cell.progress.hidden = true;
  cell.box.removeAttribute("aria-busy");
}

async function run(cell) {
  if (!supported()) {
    const link = notebookLink();
    status(cell, "This browser cannot run the book's Python (it needs WebAssembly with exception " +
      "references, as in current Chrome, Edge and Firefox)." +
      (link ? " Download the chapter as a notebook instead, with the link under the title." : ""), "error");
    if (link) {
      const a = el("a", { href: link, download: "" }, "Download this chapter as a notebook");
      cell.status.append(" ", a);
    }
    return;
  }
  begin(cell);
  try {
    // The page's cells above that have not run (a cell that failed has not): none for a cell that runs alone.
    const before = cell.alone ? [] : cells.slice(0, cells.indexOf(cell)).filter((c) => !c.ran && !c.alone);
    const reads = cell.model() || before.some((c) => c.model());
    const t0 = performance.now();
    const firstRun = !worker;
    let starting = null;
    if (!worker) {
      status(cell, "Starting Python…");
      starting = startWorker(cell);
    }
    // The model's files download while Python starts: the two take about as long.
    const modelLoaded = reads ? loadModel(cell) : null;
    if (modelLoaded) modelLoaded.catch(() => {}); // reported below, once Python is up
    await (starting || ready);
    const tPython = performance.now();
    let manifest = null;
    if (modelLoaded) {
      status(cell, "Loading the model…");
      manifest = await modelLoaded;
      cell.progress.hidden = true;
    }
    const tModel = performance.now();
    for (const c of before) {
      status(cell, `Running the cells above first (${before.indexOf(c) + 1} of ${before.length})…`);
      c.output.textContent = "";
      const ok = await runInWorker(c, c.code());
      c.ran = ok;
      if (!ok) {
        status(c, "This cell raised an error; its message is below.", "error");
        c.output.hidden = false;
        failedAbove(cell, c);
        return;
      }
    }
    status(cell, "Running…");
    const t1 = performance.now();
    const ok = await runInWorker(cell, cell.code(), cell.alone);
    cell.ran = ok;
    const ms = performance.now() - t1;
    // Where the time from the press went (tools/measure_run.py reads it): Python up, then the model's
    // files (downloaded meanwhile) in, then the cells above, then this cell.
    cell.box.dataset.runMs = JSON.stringify({ total: performance.now() - t0, python: tPython - t0,
      model: tModel - tPython, above: t1 - tModel, cell: ms, start: firstRun ? started : null });
    status(cell, ok ? `Done (${ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`}).`
      : "The cell raised an error; its message is below.", ok ? "ok" : "error");
    if (cell.output.textContent === "") write(cell, "(no output)\n", "stdout");
    if (ok && manifest && cell.model()) {
      cell.note.textContent = float16Note(manifest);
      cell.note.hidden = false;
    }
  } catch (err) {
    status(cell, err.message, "error");
  } finally {
    if (busy === cell) {
      finish(cell);
      busy = null;
    }
  }
}

// Run a cell after those already asked for (a Run click, or Ctrl+Enter in the editor).
function request(cell) {
  if (cell.run.disabled) return;
  queue = queue.then(() => run(cell));
}

function controls(cell, anchor) {
  const bar = el("div", { class: "sa-run-bar" });
  cell.run = el("button", { type: "button", class: "sa-run-button" }, "Run");
  cell.run.setAttribute("aria-label", cell.exercise ? "Run your code" : "Run this cell");
  cell.stop = el("button", { type: "button", class: "sa-run-stop", hidden: "" }, "Stop");
  cell.progress = el("progress", { class: "sa-run-progress", hidden: "", "aria-label": "Loading Python" });
  cell.status = el("span", { class: "sa-run-status", role: "status", hidden: "" });
  bar.append(cell.run, cell.stop, cell.progress, cell.status);
  cell.output = el("pre", { class: "sa-run-output", hidden: "", tabindex: "0", "aria-label": "Output of your run" });
  cell.run.addEventListener("click", () => request(cell));
  cell.stop.addEventListener("click", () => restart("Stopped. Python was restarted: Run again runs the cells " +
    "above first."));
  cell.note = el("p", { class: "sa-run-note", hidden: "" });
  anchor.after(bar, cell.output, cell.note);
}

// A cell of the page; inside a solution it runs alone, as the solution pasted into the editor would.
function runCell(box, n) {
  const pre = box.querySelector(".cell_input pre");
  if (!pre) return null;
  const reads = box.classList.contains("tag_model");
  const alone = box.closest(".solution") !== null;
  if (!box.id) box.id = `sa-run-cell-${n}`;
  const cell = { id: `c${n}`, box, alone, ran: false, code: () => pre.textContent, model: () => reads };
  controls(cell, box.querySelector(".cell_input"));
  if (alone) cell.run.parentElement.before(el("p", { class: "sa-run-keys" }, ALONE_HINT));
  return cell;
}

function exerciseCell(block, n) {
  const pre = block.querySelector("pre");
  const starter = pre.textContent;
  const keys = el("p", { class: "sa-run-keys", id: `sa-run-keys-${n}` }, `${ALONE_HINT} ${KEYS_HINT}`);
  const area = el("textarea", { class: "sa-run-editor", spellcheck: "false", autocapitalize: "off",
    rows: String(Math.max(4, starter.split("\n").length)), "aria-label": "Your code (editable)",
    "aria-describedby": keys.id, "aria-keyshortcuts": "Control+Enter Meta+Enter" });
  area.value = starter.replace(/\n$/, "");
  const box = el("div", { class: "sa-run-exercise" });
  block.replaceWith(box);
  box.append(area);
  if (!box.id) box.id = `sa-run-cell-${n}`;
  const cell = { id: `c${n}`, box, exercise: true, alone: true, ran: false, code: () => area.value,
    model: () => MODEL_CHECKERS.test(area.value) };
  controls(cell, area);
  area.after(keys); // the keys, between the editor and its buttons
  const reset = el("button", { type: "button", class: "sa-run-reset" }, "Reset the code");
  reset.addEventListener("click", () => {
    area.value = starter.replace(/\n$/, "");
  });
  cell.run.after(reset);
  // Ctrl+Enter (Cmd+Enter on a Mac) runs; Tab inserts four spaces; Escape then Tab leaves the
  // editor (keyboard users are not trapped). The hint under the editor says so.
  let escaped = false;
  area.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) {
      e.preventDefault();
      escaped = false;
      request(cell);
    } else if (e.key === "Escape") escaped = true;
    else if (e.key === "Tab" && !e.shiftKey && !escaped) {
      e.preventDefault();
      area.setRangeText("    ", area.selectionStart, area.selectionEnd, "end");
    } else escaped = false;
  });
  return cell;
}

function init() {
  const found = document.querySelectorAll(".cell.tag_run, .exercise div.highlight-python, " +
    ".exercise div.highlight-ipython3");
  let n = 0;
  for (const node of found) {
    if (node.classList.contains("cell")) {
      const cell = runCell(node, n++);
      if (cell) cells.push(cell);
    } else if (/\bcheck_\w+\(/.test(node.textContent)) {
      cells.push(exerciseCell(node, n++));
    }
  }
}

init();
