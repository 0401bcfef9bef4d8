// The maths the labs compute live, in one place. Each function mirrors the
// package (selfattention) and is tested in the browser against it
// (tests/browser/test_lab_maths.py): softmax, the scores and the weighted
// average of self-attention, one head step by step (matmul, headTrace,
// isSymmetric), the count of scores, float16 decoding, the apple/sweet
// head's loss, gradient and gradient descent (appleSweet, gradientStep, descend),
// the copying model read with a KV cache (copyingStep, decodeMatrices), and the writer of "A model
// that writes" (writerStep, writerRead, nextDistribution, drawIndex; erfc, normalCdf, gelu, layerNorm).

// softmax of one row, shifted by its largest value (selfattention.softmax).
export function softmax(row) {
  const peak = Math.max(...row);
  const e = row.map((v) => Math.exp(v - peak));
  const total = e.reduce((t, v) => t + v, 0);
  return e.map((v) => v / total);
}

export const dot = (a, b) => a.reduce((t, v, c) => t + v * b[c], 0);

// scores[i][j] = q_i · k_j * scale (selfattention.attention_scores).
export function scores(q, k, scale) {
  return q.map((a) => k.map((b) => dot(a, b) * scale));
}

// The weighted average: output[i] = sum_j weights[i][j] * v[j] (weights @ v).
export function weightedAverage(weights, v) {
  return weights.map((w) => v[0].map((_, c) => w.reduce((t, wj, j) => t + wj * v[j][c], 0)));
}

// Self-attention of words x with q = k = v = x, scaled by 1 / sqrt(d_k) or
// not (selfattention.scaled_dot_product_attention(x, x, x, scale=...)).
export function selfAttention(x, scaled) {
  const dK = x[0].length;
  const s = scores(x, x, scaled ? 1 / Math.sqrt(dK) : 1);
  const weights = s.map(softmax);
  return { x, scores: s, weights, output: weightedAverage(weights, x) };
}

// One score per (query, key) pair (selfattention.cost.score_count).
export const scoreCount = (n) => n * n;

// IEEE 754 half precision bits -> the number they hold (exact).
export function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

// Base64 of little-endian float16 numbers -> Float64Array
// (booktools.labs.explorer_gallery.decode_scores).
export function decodeFloat16(text) {
  const bin = atob(text);
  const view = new DataView(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) view.setUint8(i, bin.charCodeAt(i));
  const out = new Float64Array(bin.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = halfToNumber(view.getUint16(2 * i, true));
  return out;
}

// softmax(scores / T) of each row of an (L, L) block of a flat array, from
// `offset` (booktools.head_weights.head_weights for one head).
export function softmaxBlock(flat, offset, L, T) {
  const rows = [];
  for (let i = 0; i < L; i++) {
    const row = Array.from(flat.subarray(offset + i * L, offset + (i + 1) * L), (v) => v / T);
    rows.push(softmax(row));
  }
  return rows;
}

// The mean of several (L, L) matrices, entry by entry.
export function meanOf(matrices) {
  const n = matrices.length;
  return matrices[0].map((row, i) => row.map((_, j) => matrices.reduce((t, m) => t + m[i][j], 0) / n));
}

// a @ b for matrices given as arrays of rows.
export function matmul(a, b) {
  return a.map((row) => b[0].map((_, c) => row.reduce((t, v, j) => t + v * b[j][c], 0)));
}

// True if m[i][j] and m[j][i] differ by at most atol everywhere (a square table).
export function isSymmetric(m, atol) {
  return m.every((row, i) => row.every((v, j) => Math.abs(v - m[j][i]) <= atol));
}

// One head, step by step (selfattention.head_trace): Q, K, V, Q Kᵀ, the scaled
// scores, the weights and the output.
export function headTrace(x, wQ, wK, wV) {
  const q = matmul(x, wQ);
  const k = matmul(x, wK);
  const v = matmul(x, wV);
  const rawScores = scores(q, k, 1);
  const scaled = rawScores.map((row) => row.map((s) => s / Math.sqrt(q[0].length)));
  const weights = scaled.map(softmax);
  return { q, k, v, rawScores, scores: scaled, weights, output: weightedAverage(weights, v) };
}

// --- learning-where-to-look: the apple/sweet head with W_Q = [[0, 0], [c, 0]] and
// W_K = W_V = I (selfattention.learning). Sweet's query is [c, 0]; its scores are
// [c, 0] / sqrt(2); its output is [s, 1 - s], s its weight on apple.

// Sweet's weight on apple, its output, the loss |output - [1, 0]|² and d loss / d c
// (selfattention.apple_sweet_loss and apple_sweet_gradient).
export function appleSweet(c) {
  const [weights] = scores([[c, 0]], [[1, 0], [0, 1]], 1 / Math.sqrt(2)).map(softmax);
  const output = weightedAverage([weights], [[1, 0], [0, 1]])[0];
  const loss = (output[0] - 1) ** 2 + (output[1] - 0) ** 2;
  const s = weights[0];
  return { weight: s, output, loss, gradient: -2 * Math.sqrt(2) * s * (1 - s) ** 2 };
}

// One step of gradient descent on c (selfattention.gradient_step).
export const gradientStep = (c, learningRate) => c - learningRate * appleSweet(c).gradient;

// c before the first step and after each of `steps` steps (selfattention.descend).
export function descend(c, steps, learningRate) {
  const path = [c];
  for (let i = 0; i < steps; i++) path.push(gradientStep(path[path.length - 1], learningRate));
  return path;
}

// --- why-divide-by-sqrt-dk ------------------------------------------------
// softmax(row / T): a large temperature T softens the weights, a small one
// sharpens them (selfattention.softmax_with_temperature).
export function softmaxTemperature(row, T) {
  return softmax(row.map((v) => v / T));
}

// --- causal-masking: the causal mask and the masked softmax ------------------

// Boolean causal mask (selfattention.causal_mask): query i may read keys
// 0..i, aligned to the top-left corner when L != S.
export function causalMask(L, S = L) {
  return Array.from({ length: L }, (_, i) => Array.from({ length: S }, (_, j) => j <= i));
}

// softmax of one row with blocked entries set to -inf (selfattention.softmax
// of np.where(allowed, row, -inf)): a blocked entry gets weight exactly 0,
// and a row with every entry blocked gets all zeros, never NaN.
export function maskedSoftmax(row, allowed) {
  const open = row.filter((_, j) => allowed[j]);
  if (open.length === 0) return row.map(() => 0);
  const peak = Math.max(...open);
  const e = row.map((v, j) => (allowed[j] ? Math.exp(v - peak) : 0));
  const total = e.reduce((t, v) => t + v, 0);
  return e.map((v) => v / total);
}

// The weights of a table of scores under a boolean mask, row by row
// (selfattention.scaled_dot_product_attention(..., mask=allowed) weights).
export function maskedWeights(scoreTable, allowed) {
  return scoreTable.map((row, i) => maskedSoftmax(row, allowed[i]));
}

// --- two-heads-that-copy: the copying model, one symbol at a time with a KV cache -------------

// True if layer `layer`'s queries and keys read x + W_pos rather than x
// (selfattention.induction.model.positions_in_qk): "qk0" adds the positions to
// layer 0's only, "qk" to every layer's, "stream" to none (they are in x).
export function positionsInQk(positions, layer) {
  if (!["qk0", "qk", "stream"].includes(positions)) throw new RangeError(`no positions design "${positions}"`);
  return positions === "qk" || (positions === "qk0" && layer === 0);
}

// One step of the copying model with a KV cache (selfattention.induction.generation.read_symbol):
// feed `token` at `position`. `p` holds the parameters by name as arrays of rows (W_E, W_pos,
// W_Q0, W_K0, W_V0, W_O0, W_Q1, ..., W_U); `sizes` is {heads: one count per layer, dHead,
// positions: "qk0" | "qk" | "stream"}, so another model of the same kind needs no change here.
// Each head's key and value join `cache` ({k: [layer][head][t][d], v: ...}, updated in place).
// Returns the logits of the next symbol and each layer's weights, [layer][head][t].
export function copyingStep(p, sizes, cache, token, position) {
  const { heads, dHead, positions } = sizes;
  if (cache.k[0][0].length !== position) {
    throw new RangeError(`the cache holds ${cache.k[0][0].length} symbols, so the next is at position ${cache.k[0][0].length}, not ${position}`);
  }
  const vecMat = (x, m) => m[0].map((_, c) => x.reduce((t, xi, r) => t + xi * m[r][c], 0));
  const plus = (a, b) => a.map((v, c) => v + b[c]);
  const pos = p.W_pos[position];
  let x = positions === "stream" ? plus(p.W_E[token], pos) : p.W_E[token].slice();  // (d_model)
  const weights = [];
  heads.forEach((h, layer) => {
    const qkIn = positionsInQk(positions, layer) ? plus(x, pos) : x;                 // (d_model)
    const q = vecMat(qkIn, p[`W_Q${layer}`]);                                        // (h * d_head)
    const k = vecMat(qkIn, p[`W_K${layer}`]);
    const v = vecMat(x, p[`W_V${layer}`]);
    const z = [];                                                                     // (h * d_head)
    const layerWeights = [];
    for (let a = 0; a < h; a += 1) {
      const part = (row) => row.slice(a * dHead, (a + 1) * dHead);                   // head a's columns
      cache.k[layer][a].push(part(k));
      cache.v[layer][a].push(part(v));
      const w = softmax(cache.k[layer][a].map((key) => dot(part(q), key) / Math.sqrt(dHead)));  // (t)
      layerWeights.push(w);
      z.push(...weightedAverage([w], cache.v[layer][a])[0]);
    }
    x = plus(x, vecMat(z, p[`W_O${layer}`]));                                        // the residual sum
    weights.push(layerWeights);
  });
  return { logits: vecMat(x, p.W_U), weights };
}

// An empty KV cache for copyingStep (selfattention.induction.generation.empty_cache): one list
// of keys and one of values per layer and head; `heads` is one count per layer.
export function copyingCache(heads) {
  const lists = () => heads.map((h) => Array.from({ length: h }, () => []));
  return { k: lists(), v: lists() };
}

// Matrices stored as base64 little-endian float16 (booktools.labs.copying.encode_matrices):
// {name: {shape: [rows, cols], data}} -> {name: array of rows}, every number exact.
export function decodeMatrices(stored) {
  const out = {};
  for (const [name, { shape: [rows, cols], data }] of Object.entries(stored)) {
    const flat = decodeFloat16(data);
    if (flat.length !== rows * cols) throw new RangeError(`${name} holds ${flat.length} numbers, not ${rows} x ${cols}`);
    out[name] = Array.from({ length: rows }, (_, r) => Array.from(flat.subarray(r * cols, (r + 1) * cols)));
  }
  return out;
}

// Multi-head self-attention of the words x with h heads (selfattention.multi_head_attention).
// With splitColumns (the default), Q = x W_Q (and K, V) is made once and cut into h blocks of
// d_head = d_model / h columns; without it, each head makes its own Q_i = x W_Q^(i) from the
// whole word and its block W_Q^(i) of columns. Each head attends with scale 1 / sqrt(d_head);
// the heads' outputs are put side by side and multiplied by W_O.
// Returns { weights: [head][i][j], output: (L, d_model) }.
export function multiHead(x, wQ, wK, wV, wO, h, { splitColumns = true } = {}) {
  const dModel = x[0].length;
  if (!Number.isInteger(h) || h < 1 || dModel % h !== 0) throw new RangeError(`${h} heads do not divide d_model = ${dModel}`);
  const dHead = dModel / h;
  const block = (m, i) => m.map((row) => row.slice(i * dHead, (i + 1) * dHead)); // head i's columns
  let part;
  if (splitColumns) {
    const [q, k, v] = [matmul(x, wQ), matmul(x, wK), matmul(x, wV)];
    part = (i) => [block(q, i), block(k, i), block(v, i)];
  } else {
    part = (i) => [matmul(x, block(wQ, i)), matmul(x, block(wK, i)), matmul(x, block(wV, i))];
  }
  const weights = [];
  const joined = x.map(() => []);
  for (let i = 0; i < h; i += 1) {
    const [q, k, v] = part(i);
    const w = scores(q, k, 1 / Math.sqrt(dHead)).map(softmax);
    weights.push(w);
    weightedAverage(w, v).forEach((row, r) => joined[r].push(...row));
  }
  return { weights, output: matmul(joined, wO) };
}
