// State of the lab "learning": the number c, the steps taken, the path of c
// so far, and what they give (sweet's weight on apple, the loss, the
// gradient and the next step, formatted as the lab shows them). No DOM here:
// the view (learning.js) draws what this module computes. The browser tests
// compare the lab with booktools.labs.learning, state by state.
import { fmt } from "../format.js";
import { appleSweet, descend } from "../maths.js";

export function createState(config) {
  const { c0, learning_rate: lr, slider: range } = config;
  const state = { c: c0, steps: 0, path: [c0] };
  return {
    state,
    // n steps of gradient descent from where c is.
    take(n) {
      const path = descend(state.c, n, lr);
      state.path.push(...path.slice(1));
      state.c = path[path.length - 1];
      state.steps += n;
    },
    // A new curve from c (the slider): no steps yet.
    restart(c) {
      state.c = c;
      state.steps = 0;
      state.path = [c];
    },
    reset() { this.restart(c0); },
    // Where the slider stands for c: on its range.
    slider() { return Math.min(range.max, Math.max(range.min, state.c)); },
    // The right end of the plot: the slider's, or further if training went further.
    cMax() { return Math.max(range.max, Math.ceil(Math.max(...state.path))); },
  };
}

// The numbers the lab shows for a state, formatted as the book formats them.
export function readout(config, state) {
  const d = config.decimals;
  const lr = config.learning_rate;
  const at = appleSweet(state.c);
  return {
    c: fmt(state.c, d.c), weight: fmt(at.weight, d.weight), loss: fmt(at.loss, d.loss),
    gradient: fmt(at.gradient, d.gradient), step: fmt(-lr * at.gradient, d.step), steps: String(state.steps),
  };
}
