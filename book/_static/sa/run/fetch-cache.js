// Downloads that report their bytes and keep a copy in the Cache API: the
// runtime's files (runtime.js) and the real model's (the explorer's Compute,
// labs/explorer-compute.js). A file's URL carries its SHA-256 (?v=...), so a
// cached copy is never stale, and a page can tidy away the copies it no longer
// names. Works in a Worker and in a page.

// The address of a file of a manifest (runtime.json, model.json): `name` under `base`, with the
// start of its SHA-256 as the version, so that a new file never meets an old copy.
export const versioned = (file, base) => new URL(`${file.name}?v=${file.sha256.slice(0, 16)}`, base).href;

// Whether the cache `cacheName` holds every one of `urls` (a second visit). Asks no server.
export async function holdsAll(cacheName, urls) {
  try {
    if (!(await caches.has(cacheName))) return false;
    const cache = await caches.open(cacheName);
    return (await Promise.all(urls.map((url) => cache.match(url)))).every(Boolean);
  } catch {
    return false; // no Cache API
  }
}

// A download of `url` (`total` bytes expected) whose body reports each chunk
// to `onBytes`. Returns {body, stored, fromCache}: `stored` settles once the
// copy is in the cache. `signal` (an AbortSignal) cancels the download, and a
// cancelled or failed download is never kept.
export async function open(url, total, onBytes, { cacheName, signal } = {}) {
  let cache = null;
  try {
    cache = await caches.open(cacheName);
  } catch {
    cache = null; // no Cache API (not a secure context): HTTP caching only
  }
  let response = cache ? await cache.match(url) : undefined;
  const fromCache = Boolean(response);
  if (!response) {
    response = await fetch(url, { signal });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  }
  const counted = response.body.pipeThrough(new TransformStream({
    transform(chunk, ctl) {
      onBytes(chunk.byteLength);
      ctl.enqueue(chunk);
    },
  }), { signal });
  if (fromCache || !cache) return { body: counted, stored: Promise.resolve(), fromCache };
  const [body, copy] = counted.tee();
  const stored = cache.put(url, new Response(copy, { headers: { "Content-Length": String(total) } }))
    .catch(() => {}); // a full disk, a private window or a cancel: no copy is kept
  return { body, stored, fromCache };
}

// Remove from the cache every copy whose URL is not in `keep`.
export async function tidyCache(cacheName, keep) {
  try {
    const cache = await caches.open(cacheName);
    for (const request of await cache.keys()) {
      if (!keep.includes(request.url)) await cache.delete(request);
    }
  } catch {
    // nothing to tidy
  }
}

// Forget one cached copy (a file whose SHA-256 turned out wrong).
export async function forget(cacheName, url) {
  try {
    await (await caches.open(cacheName)).delete(url);
  } catch {
    // nothing to forget
  }
}

// The SHA-256 of some bytes, as 64 hex digits.
export async function sha256Hex(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
