// The explorer's "Compute": the real model, run on the reader's own sentence
// by the book's in-browser Python (../run/runtime.js, in a Worker) with the
// package's own NumPy code (selfattention.minilm.sentence_attentions). The
// explorer imports this module only when the reader presses Compute, so
// nothing of the runtime or the model is fetched before.
//
// The first Compute downloads the runtime and the model's files (their sizes
// and SHA-256 come from the site's runtime.json and model.json), keeps them in
// the Cache API, checks each model file's SHA-256 and hands them to Python.
// Python keeps the weights it has read, so a second Compute only runs the
// forward pass. cancel() aborts the downloads and ends the Worker.
//
// On a later visit, when the cache already holds every file, the explorer
// calls warmUp() as soon as the reader starts on the text box: Python starts
// from the cache (no download) while the sentence is typed, so Compute only
// runs the forward pass.
import { holdsAll, versioned } from "../run/fetch-cache.js";
import { DamagedFile, loadModelFiles, MODEL_CACHE, modelUrls as urlsIn, needed } from "../run/model-files.js";

const SITE = new URL("../../../", import.meta.url); // the site's root
const RUNTIME_DIR = "_static/sa/run/runtime/"; // booksite.runcells.SITE_DIR
const RUNTIME_CACHE = "sa-python-runtime"; // runtime.js's CACHE, also in explorer.js
const OUT = "/tmp/sa-explorer-attentions.f32";

// WebAssembly with exception references (exnref), which the runtime needs (as in run.js).
const EXNREF_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 105, 3, 2, 1, 0,
  10, 6, 1, 4, 0, 208, 105, 11]);

// Whether this browser can run the book's Python.
export function supported() {
  return typeof WebAssembly === "object" && typeof Worker === "function"
    && typeof DecompressionStream === "function" && typeof WebAssembly.validate === "function"
    && WebAssembly.validate(EXNREF_PROBE) && typeof crypto === "object" && Boolean(crypto.subtle);
}

// An error with a kind: "input" (the sentence: Python's ValueError), "cancelled" or "failed".
export class ComputeError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const b64 = (text) => {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
};

async function bytesOf(path) {
  const r = await fetch(new URL(path, SITE));
  if (!r.ok) throw new ComputeError("failed", `${path} is missing from the site (HTTP ${r.status})`);
  return r.arrayBuffer();
}
const json = async (path) => JSON.parse(new TextDecoder().decode(await bytesOf(path)));
const manifests = (compute) => Promise.all([json(`${RUNTIME_DIR}runtime.json`),
  json(`${compute.model}model.json`)]);
const runtimeUrls = (runtime) => [runtime.files.wasm, runtime.files.stdlib]
  .map((f) => versioned(f, new URL(RUNTIME_DIR, SITE)));
const modelUrls = (compute, model) => urlsIn(new URL(compute.model, SITE), model);

// The two manifests, if the Cache API already holds every file they name (so a start downloads
// nothing), else null. Reads only the manifests from the site.
export async function cachedManifests(compute) {
  const [runtime, model] = await manifests(compute);
  const held = await Promise.all([holdsAll(RUNTIME_CACHE, runtimeUrls(runtime)),
    holdsAll(MODEL_CACHE, modelUrls(compute, model))]);
  return held.every(Boolean) ? [runtime, model] : null;
}

// compute: the lab's configuration of Compute (booktools.labs.explorer_compute.compute_config).
// onProgress(loaded, total): bytes of the runtime and the model, as they arrive.
export function createComputer(compute, onProgress = () => {}) {
  let worker = null;
  let ready = null; // a promise: Python is up, with the model's files and the explorer's code
  let controller = null; // aborts the model's downloads
  let kept = null; // {module, zip} of a first start, reused after a cancel
  let seq = 0;
  let startup = {}; // how long the last start took, in ms: Python up, model files in, explore() defined

  function stop(reason) {
    if (controller) controller.abort();
    controller = null;
    if (worker) {
      for (const p of worker.pending.values()) p.reject(reason);
      worker.terminate();
    }
    worker = null;
    ready = null;
  }

  function run(code, read) {
    const id = `x${seq++}`;
    return new Promise((resolve, reject) => {
      worker.pending.set(id, { resolve, reject, out: [], err: [] });
      worker.postMessage({ type: "run", id, code, read });
    });
  }

  // Model files, fetched in the page (and counted), checked, then handed to the Worker.
  async function loadModel(manifest, signal, onBytes) {
    const put = (name, bytes) => worker.postMessage({ type: "put", path: `${compute.dir}/${name}`, data: bytes },
      [bytes]);
    try {
      await loadModelFiles(new URL(compute.model, SITE), manifest, put, { signal, onBytes });
    } catch (err) {
      if (err instanceof DamagedFile) throw new ComputeError("failed", `${err.message}; press Compute to download it again`);
      throw err;
    }
  }

  async function start(known = null) {
    startup = {};
    controller = new AbortController();
    const { signal } = controller;
    // model.json stays in the page: each file's SHA-256 is checked here, with the browser's own
    // SHA-256, before Python gets it (the package checks it again only if model.json is beside it).
    const [runtime, model] = known || await manifests(compute);
    const files = needed(model);
    const total = runtime.files.wasm.size + runtime.files.stdlib.size + files.reduce((t, f) => t + f.size, 0);
    let runtimeBytes = kept ? runtime.files.wasm.size + runtime.files.stdlib.size : 0;
    let modelBytes = 0;
    let last = 0;
    const report = (force) => {
      const t = performance.now();
      if (force || t - last > 50) {
        last = t;
        onProgress(runtimeBytes + modelBytes, total);
      }
    };
    worker = new Worker(new URL("../run/runtime.js", import.meta.url), { type: "module" });
    worker.pending = new Map();
    const up = new Promise((resolve, reject) => {
      signal.addEventListener("abort", () => reject(new ComputeError("cancelled", "Cancelled.")));
      worker.onmessage = (event) => {
        const msg = event.data;
        if (msg.type === "progress") {
          runtimeBytes = msg.loaded;
          report(msg.loaded === msg.total);
        } else if (msg.type === "ready") {
          kept = { module: msg.module, zip: msg.zip };
          resolve();
        } else if (msg.type === "out") {
          const p = worker.pending.get(msg.id);
          if (p) (msg.stream === "stderr" ? p.err : p.out).push(msg.text);
        } else if (msg.type === "done") {
          const p = worker.pending.get(msg.id);
          worker.pending.delete(msg.id);
          if (p) p.resolve({ ok: msg.ok, out: p.out.join(""), err: p.err.join(""), data: msg.data });
        } else if (msg.type === "crash") {
          const err = new ComputeError("failed", msg.message);
          reject(err);
          stop(err);
        }
      };
      worker.onerror = (event) => {
        event.preventDefault();
        const err = new ComputeError("failed", event.message || "the Python worker failed to start");
        reject(err);
        stop(err);
      };
    });
    worker.postMessage({ type: "start", base: new URL(RUNTIME_DIR, SITE).href, manifest: runtime,
      module: kept && kept.module, zip: kept && kept.zip });
    // Python starts (from the runtime's snapshot, with the package imported) and defines the
    // explorer's code while the model's files are still arriving; they are only read at the first Compute.
    const t0 = performance.now();
    const defined = up.then(() => {
      startup.python = performance.now() - t0;
      return run(compute.code);
    }).then((res) => {
      startup.define = performance.now() - t0 - startup.python;
      if (!res.ok) throw new ComputeError("failed", `the explorer's Python did not start: ${res.err.trim()}`);
    });
    await Promise.all([defined, loadModel(model, signal, (n) => { modelBytes += n; report(false); })
      .then(() => { startup.model = performance.now() - t0; })]);
    report(true);
    if (signal.aborted) throw new ComputeError("cancelled", "Cancelled.");
    controller = null;
  }

  return {
    // Whether Python is up with the model (a Compute will not download anything).
    get warm() { return Boolean(ready) && controller === null; },

    // Start Python from the cache before any Compute (known: cachedManifests's answer). Returns
    // a promise that settles when Python is up and has read the model; a failed warm-up leaves
    // Compute to start again.
    warmUp(known) {
      if (ready) return ready;
      // Up, then one sentence of one token, so that Python has read the weights before Compute.
      const p = start(known).then(() => run(`${compute.call}(${JSON.stringify(b64("."))}, `
        + `${compute.max_tokens}, ${JSON.stringify(compute.dir)}, ${JSON.stringify(OUT)})`))
        .then((res) => { if (!res.ok) throw new ComputeError("failed", res.err.trim()); });
      ready = p;
      p.catch(() => { if (ready === p) stop(new ComputeError("failed", "the warm-up failed")); });
      return p;
    },

    // The weights of `text`: {tokens, ids, unknown, shape, weights: Float32Array (layers, heads, L, L)}.
    async compute(text, onStage = () => {}) {
      const starting = !ready;
      if (starting) {
        ready = start();
        ready.catch(() => {});
      }
      try {
        await ready;
      } catch (err) {
        stop(err);
        throw err.name === "AbortError" ? new ComputeError("cancelled", "Cancelled.") : err;
      }
      onStage("running");
      const t0 = performance.now();
      const res = await run(`_sa_answer = ${compute.call}(${JSON.stringify(b64(text))}, ${compute.max_tokens}, `
        + `${JSON.stringify(compute.dir)}, ${JSON.stringify(OUT)})`, OUT);
      if (!res.ok) {
        const lines = res.err.trim().split("\n");
        throw new ComputeError("failed", lines[lines.length - 1] || "Python raised an error");
      }
      const answer = JSON.parse(res.out.trim().split("\n").pop());
      if (answer.error) throw new ComputeError("input", answer.error);
      return { ...answer, weights: new Float32Array(res.data), pythonMs: performance.now() - t0,
        startup: starting ? startup : {} };
    },

    // Abort the downloads and end Python; a later Compute starts again (from the cache).
    cancel() {
      stop(new ComputeError("cancelled", "Cancelled."));
    },
  };
}
