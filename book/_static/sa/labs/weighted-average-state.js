// State of the lab "weighted average": where the words are, whether the
// scores are divided by sqrt(d_k), and what that gives. No DOM here: the view
// (weighted-average.js) draws what this module computes. The browser tests
// compare the result with booktools.labs.weighted_average, state by state.
import { selfAttention } from "../maths.js";

const KEYS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

export function createState(config) {
  const [lo, hi] = config.limits;
  const places = (String(config.step).split(".")[1] || "").length;
  // Round to the grid and keep inside the plane (booktools: _snap).
  const snap = (v) => Math.min(hi, Math.max(lo, Number((Math.round(v / config.step) * config.step).toFixed(places))));
  const state = {
    x: config.x.map((p) => [...p]),
    scaled: true,
    mix: 0, // the word whose output is drawn as a mix
    look: null, // [i, j] while a weight is pointed at: i looks at j
    result: null, // {x, scores, weights, output}
  };
  const update = () => { state.result = selfAttention(state.x, state.scaled); };

  const api = {
    state,
    place(i, p) {
      state.x[i] = p.map(snap);
      update();
    },
    // An arrow key moves a word by one step, or by big_step with Shift; false if not an arrow.
    press(i, key, shift) {
      const dir = KEYS[key];
      if (!dir) return false;
      const d = shift ? config.big_step : config.step;
      api.place(i, [state.x[i][0] + dir[0] * d, state.x[i][1] + dir[1] * d]);
      return true;
    },
    preset(k) {
      state.x = config.presets[k].x.map((p) => [...p]);
      update();
    },
    setScaled(on) {
      state.scaled = on;
      update();
    },
    reset() {
      state.x = config.x.map((p) => [...p]);
      state.scaled = true;
      update();
    },
    setMix(m) { state.mix = m; },
    setLook(pair) { state.look = pair; },
  };
  update();
  return api;
}
