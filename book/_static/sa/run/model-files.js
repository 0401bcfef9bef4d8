// The real model's files for the book's in-browser Python: the explorer's Compute
// (labs/explorer-compute.js) and the Run buttons of cells that read the model (run.js).
//
// The site's model.json (booksite.modelweights) names each file with its size and
// SHA-256. loadModelFiles downloads those Python reads, keeps them in the Cache API,
// checks each SHA-256 with the browser's own, and hands each file to a callback.
import { forget, open, sha256Hex, tidyCache, versioned } from "./fetch-cache.js";

export const MODEL_CACHE = "sa-model"; // also in labs/explorer.js
const ROLES = ["weights", "config", "tokenizer"]; // of model.json's files, those Python reads

// The files of model.json that Python needs (all of them, if the manifest names no roles).
export const needed = (manifest) => (Array.isArray(manifest.files) ? manifest.files
  : ROLES.filter((r) => r in manifest.files).map((r) => manifest.files[r]));

// Their addresses, each with its digest in the query (a new file is a new address).
export const modelUrls = (base, manifest) => needed(manifest).map((f) => versioned(f, base));

// A file that arrived damaged: its SHA-256 is not the one in model.json.
export class DamagedFile extends Error {}

// Download (or read from the cache) every file Python needs; put(name, bytes) for each.
// base: the site's folder of the model files (a URL); onBytes(n): bytes as they arrive.
export async function loadModelFiles(base, manifest, put, { signal, onBytes = () => {} } = {}) {
  const files = needed(manifest);
  const urls = modelUrls(base, manifest);
  const stored = [];
  await Promise.all(files.map(async (f, i) => {
    const got = await open(urls[i], f.size, onBytes, { cacheName: MODEL_CACHE, signal });
    const bytes = await new Response(got.body).arrayBuffer();
    stored.push(got.stored);
    if (await sha256Hex(bytes) !== f.sha256) {
      await got.stored;
      await forget(MODEL_CACHE, urls[i]);
      throw new DamagedFile(`${f.name} arrived damaged (its SHA-256 is not the one in model.json)`);
    }
    put(f.name, bytes);
  }));
  await Promise.all(stored);
  tidyCache(MODEL_CACHE, urls);
}
