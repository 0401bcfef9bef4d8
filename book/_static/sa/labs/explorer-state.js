// State of the lab "attention explorer": which sentence, layer, head and
// temperature, which token's row is shown, and the weights they give. No DOM
// here: the view (explorer.js) draws what this module computes. The browser
// tests compare the result with booktools.labs.explorer, state by state.
import { decodeFloat16, meanOf, softmaxBlock } from "../maths.js";

const TINY = 1.1754943508222875e-38; // the smallest normal float32

// A sentence computed in the browser (explorer-compute.js) as the lab holds
// one: its weights' logarithms stand for its scores, since softmax(log w) = w
// for a row w that adds up to 1, and softmax(log w / T) is then the weights at
// temperature T. `answer`: {tokens, unknown, shape, weights: Float32Array}.
// The logarithms are taken one (L, L) block at a time, when a layer and head are first shown.
export function computedSentence(text, answer) {
  const { weights } = answer;
  const L = answer.tokens.length;
  const values = new Float64Array(weights.length);
  const done = new Set();
  const block = (offset) => {
    if (done.has(offset)) return;
    for (let i = offset; i < offset + L * L; i++) values[i] = Math.log(Math.max(weights[i], TINY));
    done.add(offset);
  };
  return { text, tokens: answer.tokens, unknown: answer.unknown || [], shape: answer.shape, values, block,
    focus: L > 2 ? 1 : 0, computed: true };
}

export function createState(config) {
  const { heads, mean } = config;
  const sentences = [...config.sentences]; // the gallery, then the reader's own sentences
  const cache = new Map(); // sentence index -> Float64Array of its stored scores
  const scoresOf = (s) => {
    if (!cache.has(s)) cache.set(s, sentences[s].values || decodeFloat16(sentences[s].scores));
    return cache.get(s);
  };
  const state = {
    sentence: config.start.sentence, layer: config.start.layer, head: String(config.start.head),
    T: config.temperature.value,
    locked: null, pointer: null, focused: null, // tokens: clicked, pointed at, focused
    w: null, // the (L, L) weights shown
  };

  // softmax(scores / T) of one head, or the mean of the layer's per-head
  // softmaxes (booktools.head_weights.head_weights).
  function update() {
    const L = sentences[state.sentence].tokens.length;
    const flat = scoresOf(state.sentence);
    const entry = sentences[state.sentence];
    const block = (hd) => {
      const offset = (state.layer * heads + hd) * L * L;
      if (entry.block) entry.block(offset); // a computed sentence: this block's logarithms, once
      return softmaxBlock(flat, offset, L, state.T);
    };
    state.w = state.head === mean
      ? meanOf(Array.from({ length: heads }, (_, hd) => block(hd)))
      : block(Number(state.head));
  }

  const api = {
    state,
    sentences,
    sentence: () => sentences[state.sentence],
    tokens: () => sentences[state.sentence].tokens,
    isMean: () => state.head === mean,
    // The row shown: the locked token, else the pointed-at one, else the focused one, else the sentence's own.
    shownRow: () => [state.locked, state.pointer, state.focused, sentences[state.sentence].focus]
      .find((v) => v !== null && v !== undefined),
    // The three tokens the shown row gives the most weight, heaviest first (ties: the earlier token).
    top: (k = 3) => state.w[api.shownRow()].map((w, j) => [w, j]).sort((a, b) => b[0] - a[0] || a[1] - b[1])
      .slice(0, k),
    setSentence(s) {
      state.sentence = s;
      state.locked = state.pointer = state.focused = null;
      update();
    },
    setLayer(l) { state.layer = l; update(); },
    setHead(hd) { state.head = String(hd); update(); },
    setTemperature(T) { state.T = T; update(); },
    point(i) { state.pointer = i; },
    unpoint(i) { if (state.pointer === i) state.pointer = null; },
    focus(i) { state.focused = i; },
    blur(i) { if (state.focused === i) state.focused = null; },
    // Click: lock this token's row, or unlock if it is the locked one. Returns whether it is locked now.
    toggleLock(i) {
      state.locked = state.locked === i ? null : i;
      return state.locked !== null;
    },
    unlock() { state.locked = null; },
    // A sentence computed in the browser (computedSentence), shown at once; returns its index.
    addSentence(entry) {
      sentences.push(entry);
      api.setSentence(sentences.length - 1);
      return sentences.length - 1;
    },
    reset() {
      state.layer = config.start.layer;
      state.head = String(config.start.head);
      state.T = config.temperature.value;
      api.setSentence(config.start.sentence);
    },
  };
  update();
  return api;
}
