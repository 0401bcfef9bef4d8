// The maths of the writer's lab (a-model-that-writes; selfattention.writer): a pre-LN decoder in
// Float64Array, its sampling and its draws. Apart from maths.js so that the pages of the other labs,
// which import maths.js, do not download it; it takes maths.js's softmax and float16 decoding.

import { decodeFloat16, softmax } from "./maths.js";

// --- a-model-that-writes: the writer (selfattention.writer), a pre-LN decoder, in Float64Array -----

// The sum of a row as NumPy adds it (np.sum, pairwise: eight running sums in blocks of up to 128,
// then halves), so that a renormalised distribution is NumPy's to the last bit.
export function npSum(a, start = 0, n = a.length - start) {
  if (n < 8) {
    let total = 0;
    for (let i = 0; i < n; i += 1) total += a[start + i];
    return total;
  }
  if (n <= 128) {
    const r = Array.from({ length: 8 }, (_, j) => a[start + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j += 1) r[j] += a[start + i + j];
    let total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i += 1) total += a[start + i];
    return total;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return npSum(a, start, half) + npSum(a, start + half, n - half);
}

// exp(-x²), with x² split into two exact parts (Veltkamp), so that x² loses no bits on the way.
function expMinusSquare(x) {
  const c = 134217729 * x; // 2^27 + 1
  const hi = c - (c - x);
  const lo = x - hi;
  return Math.exp(-hi * hi) * Math.exp(-(2 * hi * lo + lo * lo));
}

// erfc(x) = 1 - erf(x), within 1e-15 of Python's math.erfc (relatively, for x up to 26; tested).
// Below |x| = 1, erf from its series of positive terms, 2/√π e^(-x²) Σ (2x²)^n x / (1·3·…·(2n+1)),
// which has no cancellation; above, erfc from its continued fraction (modified Lentz),
// e^(-x²)/√π / (x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), and erfc(-x) = 2 - erfc(x).
export function erfc(x) {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax < 1) {
    const twoX2 = 2 * ax * ax;
    let term = ax;
    let sum = ax;
    for (let n = 1; term > sum * 1e-17; n += 1) {
      term *= twoX2 / (2 * n + 1);
      sum += term;
    }
    const erf = (2 / Math.sqrt(Math.PI)) * expMinusSquare(ax) * sum;
    return x >= 0 ? 1 - erf : 1 + erf;
  }
  if (ax > 27.3) return x > 0 ? 0 : 2; // erfc(27.3) is below the smallest double
  let f = ax;
  let c = ax;
  let d = 0;
  for (let k = 1; k < 1000; k += 1) {
    d = 1 / (ax + (k / 2) * d);
    c = ax + (k / 2) / c;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) <= 1.1e-16) break;
  }
  const tail = expMinusSquare(ax) / Math.sqrt(Math.PI) / f;
  return x > 0 ? tail : 2 - tail;
}

// Φ(x), the standard normal distribution function, as selfattention.fast.normal.normal_cdf
// computes it: the Taylor series of degree 7 around the nearest point of a grid of step 1/32 on
// [-10, 10] (Φ(x0) = erfc(-x0/√2)/2, its derivatives (-1)^m He_m(x0) φ(x0)), Φ(±10) beyond.
const NORMAL = { edge: 10, perUnit: 32, degree: 7 };
let normalTable = null;

function normalTaylorTable() {
  const { edge, perUnit, degree } = NORMAL;
  const points = 2 * edge * perUnit + 1;
  const table = Array.from({ length: degree + 1 }, () => new Float64Array(points));
  let factorial = 1;
  const he = new Float64Array(points).fill(1); // He_0
  const hePrev = new Float64Array(points); // He_-1 = 0
  for (let j = 0; j < points; j += 1) table[0][j] = 0.5 * erfc(-(j / perUnit - edge) / Math.SQRT2);
  for (let m = 0; m < degree; m += 1) {
    factorial *= m + 1;
    for (let j = 0; j < points; j += 1) {
      const x0 = j / perUnit - edge;
      const pdf = Math.exp(-0.5 * x0 * x0) / Math.sqrt(2 * Math.PI);
      table[m + 1][j] = ((m % 2 ? -1 : 1) * he[j] * pdf) / factorial;
      const next = x0 * he[j] - m * hePrev[j];
      hePrev[j] = he[j];
      he[j] = next;
    }
  }
  return table;
}

// NumPy's rint: the nearest whole number, a tie to the even one.
function rint(v) {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

export function normalCdf(x) {
  if (Number.isNaN(x)) return NaN;
  normalTable ??= normalTaylorTable();
  const { edge, perUnit, degree } = NORMAL;
  const inside = Math.min(Math.max(x, -edge), edge);
  const j = rint((inside + edge) * perUnit);
  const dx = inside - (j / perUnit - edge); // |dx| <= 1/64
  let out = normalTable[degree][j];
  for (let m = degree - 1; m >= 0; m -= 1) out = out * dx + normalTable[m][j];
  return out;
}

// The exact GELU, h Φ(h), as selfattention.gelu computes it: Φ from the table (normalCdf) from -2 up,
// and from erfc itself below, where Φ is small and the table's relative error would grow.
export function gelu(h) {
  const phi = h < -2 ? 0.5 * erfc(-h / Math.sqrt(2)) : normalCdf(h);
  return h * phi;
}

// Layer norm of each of the n rows of x (d numbers each, flat), into out (selfattention.layer_norm):
// (x - mean) / sqrt(var + eps) * gamma + beta, gamma and beta read from `offset` of their arrays.
export function layerNorm(x, n, d, gamma, beta, offset, eps, out = new Float64Array(n * d)) {
  const centred = new Float64Array(d);
  for (let i = 0; i < n; i += 1) {
    const mean = npSum(x, i * d, d) / d;
    for (let c = 0; c < d; c += 1) centred[c] = x[i * d + c] - mean;
    const variance = npSum(centred.map((v) => v * v)) / d;
    const root = Math.sqrt(variance + eps);
    for (let c = 0; c < d; c += 1) out[i * d + c] = (centred[c] / root) * gamma[offset + c] + beta[offset + c];
  }
  return out;
}

// out = x @ w for n rows of x (inner numbers each), w an (inner, cols) block of a flat array from `offset`.
function matmulRows(x, n, inner, w, offset, cols, out = new Float64Array(n * cols)) {
  out.fill(0, 0, n * cols);
  for (let i = 0; i < n; i += 1) {
    const o = i * cols;
    for (let r = 0; r < inner; r += 1) {
      const xr = x[i * inner + r];
      const row = offset + r * cols;
      for (let c = 0; c < cols; c += 1) out[o + c] += xr * w[row + c];
    }
  }
  return out;
}

// The writer's parameters from their float16 base64 (booktools.labs.writer.writer_weights): each as a
// flat Float64Array in the package's row-major order, checked against the package's `shapes`.
export function writerParams(stored, shapes) {
  const out = {};
  for (const [name, shape] of Object.entries(shapes)) {
    const entry = stored[name];
    if (!entry) throw new RangeError(`the weights have no ${name}`);
    const count = shape.reduce((a, b) => a * b, 1);
    const flat = decodeFloat16(entry.data);
    if (flat.length !== count || entry.shape[0] * entry.shape[1] !== count) {
      throw new RangeError(`${name} holds ${flat.length} numbers, not ${shape.join(" x ")}`);
    }
    out[name] = flat;
  }
  return out;
}

// An empty KV cache for the writer (selfattention.writer.writer_cache): room for nPositions keys
// and values per layer and head, flat as [layer][head][position][d_head], and the ids they belong to.
export function writerCache(sizes) {
  const { layers, heads, nPositions, dHead } = sizes;
  const size = layers * heads * nPositions * dHead;
  return { length: 0, ids: [], k: new Float64Array(size), v: new Float64Array(size) };
}

// Feed `tokens` to the writer after the cache's cache.length positions (selfattention.writer's
// writer_decode_step; with an empty cache, its full pass run_writer). Every pre-LN block:
// x += MultiHead(LN_1(x)) W_O (causal: each row reads the kept keys and values and its own), then
// x += GELU(LN_2(x) W_1 + b_1) W_2 + b_2; the new keys and values join the cache. Returns the last
// row's logits (final layer norm, W_U) and the last row's weights per layer and head, [layer][head][S].
export function writerStep(p, sizes, cache, tokens, eps) {
  const { vocab, nPositions, dModel: d, heads, layers, dFf, dHead } = sizes;
  const n = tokens.length;
  const start = cache.length;
  const S = start + n;
  if (n < 1 || S > nPositions) {
    throw new RangeError(`the cache holds ${nPositions} positions; ${start} are used, so ${n} more do not fit`);
  }
  if (!tokens.every((t) => Number.isInteger(t) && t >= 0 && t < vocab)) {
    throw new RangeError(`tokens must be ids 0 to ${vocab - 1}`);
  }
  const x = new Float64Array(n * d); // the residual stream, (n, d_model)
  tokens.forEach((t, i) => {
    for (let c = 0; c < d; c += 1) x[i * d + c] = p.W_E[t * d + c] + p.W_pos[(start + i) * d + c];
  });
  const a = new Float64Array(n * d);
  const q = new Float64Array(n * d);
  const k = new Float64Array(n * d);
  const v = new Float64Array(n * d);
  const z = new Float64Array(n * d);
  const out = new Float64Array(n * d);
  const hidden = new Float64Array(n * dFf);
  const scale = 1 / Math.sqrt(dHead);
  const weights = [];
  for (let l = 0; l < layers; l += 1) {
    layerNorm(x, n, d, p.ln1_g, p.ln1_b, l * d, eps, a); // LN_1(x)
    matmulRows(a, n, d, p.W_Q, l * d * d, d, q);
    matmulRows(a, n, d, p.W_K, l * d * d, d, k);
    matmulRows(a, n, d, p.W_V, l * d * d, d, v);
    z.fill(0);
    const layerWeights = [];
    const keys = cache.k;
    const values = cache.v;
    for (let h = 0; h < heads; h += 1) {
      const base = (l * heads + h) * nPositions * dHead; // this head's part of the cache
      for (let i = 0; i < n; i += 1) {
        keys.set(k.subarray(i * d + h * dHead, i * d + (h + 1) * dHead), base + (start + i) * dHead);
        values.set(v.subarray(i * d + h * dHead, i * d + (h + 1) * dHead), base + (start + i) * dHead);
      }
      for (let i = 0; i < n; i += 1) {
        const t = start + i; // row i reads positions 0 .. t
        const qi = i * d + h * dHead; // its query, and where its part of z goes
        const row = new Float64Array(t + 1);
        for (let j = 0; j <= t; j += 1) {
          const kj = base + j * dHead;
          let s = 0;
          for (let c = 0; c < dHead; c += 1) s += q[qi + c] * keys[kj + c];
          row[j] = s * scale;
        }
        const w = softmax(row);
        for (let j = 0; j <= t; j += 1) {
          const wj = w[j];
          const vj = base + j * dHead;
          for (let c = 0; c < dHead; c += 1) z[qi + c] += wj * values[vj + c];
        }
        if (i === n - 1) layerWeights.push(w);
      }
    }
    weights.push(layerWeights);
    matmulRows(z, n, d, p.W_O, l * d * d, d, out);
    for (let c = 0; c < n * d; c += 1) x[c] += out[c]; // the residual sum
    layerNorm(x, n, d, p.ln2_g, p.ln2_b, l * d, eps, a); // LN_2(x)
    matmulRows(a, n, d, p.W_1, l * d * dFf, dFf, hidden);
    for (let i = 0; i < n; i += 1) {
      for (let c = 0; c < dFf; c += 1) hidden[i * dFf + c] = gelu(hidden[i * dFf + c] + p.b_1[l * dFf + c]);
    }
    matmulRows(hidden, n, dFf, p.W_2, l * dFf * d, d, out);
    for (let i = 0; i < n; i += 1) {
      for (let c = 0; c < d; c += 1) x[i * d + c] = x[i * d + c] + out[i * d + c] + p.b_2[l * d + c];
    }
  }
  cache.length = S;
  cache.ids = cache.ids.slice(0, start).concat(tokens);
  const last = layerNorm(x.subarray((n - 1) * d), 1, d, p.lnf_g, p.lnf_b, 0, eps);
  return { logits: matmulRows(last, 1, d, p.W_U, 0, vocab), weights };
}

// One step of selfattention.writer.write: the logits after the text `ids` and the newest character's
// weights. The writer reads the last nPositions ids. With a cache that holds all of them but the
// newest, it feeds the newest alone ("row"); otherwise (the first step, another text, or a text longer
// than the context, where every kept character moves to a new position at each step) it empties the
// cache and feeds the whole window ("prefill"). Without a cache (null), a full pass ("full").
export function writerRead(p, sizes, cache, ids, eps) {
  const window = ids.slice(-sizes.nPositions);
  if (!cache) return { ...writerStep(p, sizes, writerCache(sizes), window, eps), mode: "full", read: window.length };
  const kept = window.slice(0, -1);
  if (ids.length <= sizes.nPositions && cache.length === kept.length && kept.every((t, i) => cache.ids[i] === t)) {
    return { ...writerStep(p, sizes, cache, window.slice(-1), eps), mode: "row", read: window.length };
  }
  cache.length = 0;
  cache.ids = [];
  return { ...writerStep(p, sizes, cache, window, eps), mode: "prefill", read: window.length };
}

// Ids from the likeliest to the least likely, a tie in id order (np.argsort(-probs, kind="stable")).
export function probabilityOrder(probs) {
  return Array.from(probs.keys()).sort((a, b) => probs[b] - probs[a] || a - b);
}

// The distribution a step draws from (selfattention.writer.next_distribution): temperature 0 is
// greedy (all on the first largest logit); otherwise softmax(logits / T), then the topK likeliest
// kept (null: all), then the fewest likeliest whose probabilities reach topP (null: all), each
// renormalised.
export function nextDistribution(logits, { temperature = 1, topK = null, topP = null } = {}) {
  if (!(Number.isFinite(temperature) && temperature >= 0)) throw new RangeError(`temperature must be 0 (greedy) or more, got ${temperature}`);
  if (topK !== null && !(Number.isInteger(topK) && topK >= 1 && topK <= logits.length)) {
    throw new RangeError(`topK must be 1 to ${logits.length}, got ${topK}`);
  }
  if (topP !== null && !(topP > 0 && topP <= 1)) throw new RangeError(`topP must be above 0 and at most 1, got ${topP}`);
  if (temperature === 0) {
    const probs = new Float64Array(logits.length);
    let best = 0;
    for (let i = 1; i < logits.length; i += 1) if (logits[i] > logits[best]) best = i;
    probs[best] = 1;
    return probs;
  }
  let probs = softmax(Float64Array.from(logits, (z) => z / temperature));
  const renormalise = (kept) => { const total = npSum(kept); return kept.map((v) => v / total); };
  if (topK !== null) {
    const kept = new Float64Array(probs.length);
    for (const i of probabilityOrder(probs).slice(0, topK)) kept[i] = probs[i];
    probs = renormalise(kept);
  }
  if (topP !== null) {
    const target = topP * npSum(probs);
    const kept = new Float64Array(probs.length);
    let cumulative = 0;
    for (const i of probabilityOrder(probs)) {
      cumulative += probs[i];
      if (cumulative - probs[i] < target) kept[i] = probs[i]; // the mass of the likelier ones, as NumPy has it
    }
    probs = renormalise(kept);
  }
  return probs;
}

// The index a uniform number u in [0, 1) draws (selfattention.writer.draw_index): the first whose
// cumulative probability exceeds u times the total, so an index of probability 0 is never drawn.
export function drawIndex(probs, u) {
  const cumulative = new Float64Array(probs.length);
  let total = 0;
  probs.forEach((p, i) => { total += p; cumulative[i] = total; });
  const target = u * total;
  let i = 0;
  while (i < probs.length && cumulative[i] <= target) i += 1;
  return Math.min(i, probs.length - 1);
}
