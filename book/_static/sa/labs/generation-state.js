// State of the lab "generation": how many tokens are written, and whether the
// model keeps a KV cache. No DOM here: the view (generation.js) draws what this
// module computes. The browser tests compare the result with
// booktools.labs.generation, state by state.
import { causalMask, maskedWeights, scores } from "../maths.js";

// Scores computed by the step that reads t tokens (and so picks token t + 1,
// counting from one); the first step, the prefill, reads the whole prompt at
// once.
export function stepScores(t, prompt, cache) {
  if (t === prompt) return (prompt * (prompt + 1)) / 2;
  return cache ? t : (t * (t + 1)) / 2;
}

export function createState(config) {
  const n = config.tokens.length;
  const p = config.prompt;
  const state = { t: p, cache: true };
  return {
    state,
    next() { state.t = Math.min(state.t + 1, n); },
    back() { state.t = Math.max(state.t - 1, p); },
    toggle() { state.cache = !state.cache; },
    // What the view draws: the weights of the first t tokens (a causal table
    // does not change as rows are added), the cells this step computes, the
    // scores of this step and of all steps so far, the token it picks (token
    // t + 1; after the last token, config.next) and the tokens kept.
    view() {
      const { t, cache } = state;
      const q = config.q.slice(0, t);
      const k = config.k.slice(0, t);
      const weights = maskedWeights(scores(q, k, 1 / Math.sqrt(q[0].length)), causalMask(t));
      const computed = weights.map((row, i) => row.map((_, j) => j <= i && (t === p || !cache || i === t - 1)));
      let total = 0;
      for (let s = p; s <= t; s += 1) total += stepScores(s, p, cache);
      return {
        t, cache, weights, computed, step: stepScores(t, p, cache), total,
        picked: t < n ? config.tokens[t] : config.next, prefill: t === p,
        kept: cache ? config.tokens.slice(0, t) : [], atStart: t === p, atEnd: t === n,
      };
    },
  };
}
