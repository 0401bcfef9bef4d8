// State of the lab "Q, K, V": the words X, the matrices W_Q, W_K, W_V, the
// projections switch, the score pointed at, and what they give (Q, K, V, the
// scores, the weights, the outputs and whether the scores are symmetric). No
// DOM here: the view (qkv.js) draws what this module computes. The browser
// tests compare the result with booktools.labs.qkv, state by state.
import { headTrace, isSymmetric } from "../maths.js";

export const MATRICES = ["w_q", "w_k", "w_v"];
const copy = (m) => m.map((row) => [...row]);

export function createState(config) {
  const identity = config.x[0].map((_, i) => config.x[0].map((__, j) => (i === j ? 1 : 0)));
  const state = { projections: true, look: null, result: null };
  const start = () => {
    state.x = copy(config.x);
    for (const m of MATRICES) state[m] = copy(config[m]);
  };
  const update = () => {
    const [q, k, v] = state.projections ? MATRICES.map((m) => state[m]) : [identity, identity, identity];
    state.result = headTrace(state.x, q, k, v);
    state.result.symmetric = isSymmetric(state.result.scores, config.symmetry_atol);
  };
  start();
  update();
  return {
    state,
    // One number of X or of a matrix: set(name, row, column, value).
    set(name, i, j, value) { state[name][i][j] = value; update(); },
    // A preset: its matrices, the start's X, projections on.
    preset(p) {
      state.x = copy(config.x);
      for (const m of MATRICES) state[m] = copy(p[m]);
      state.projections = true;
      update();
    },
    setProjections(on) { state.projections = on; update(); },
    reset() { start(); state.projections = true; update(); },
    // The score pointed at: [query, key], or null.
    setLook(pair) { state.look = pair; },
    // Whether a number typed in a box is one the lab takes.
    usable(v) { return Number.isFinite(v) && Math.abs(v) <= config.limit; },
  };
}
