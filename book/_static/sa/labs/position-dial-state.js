// State of the lab "position dial": where the query and the key stand, and
// the three scores that gives. No DOM here: the view (position-dial.js) draws
// what this module computes. The browser tests compare the result with
// booktools.labs.position_dial, state by state (selfattention.rope and
// selfattention.sinusoidal_positions).

// Pair i turns by theta_i = base^(-2i/d) per position.
function frequencies(d, base) {
  return Array.from({ length: d / 2 }, (_, i) => base ** (-(2 * i) / d));
}

// The sinusoidal position vector of position m: [sin, cos] of m * theta_i per pair.
export function sinusoid(m, d, base) {
  return frequencies(d, base).flatMap((t) => [Math.sin(m * t), Math.cos(m * t)]);
}

// RoPE, pairs interleaved as in the package: (x[2i], x[2i+1]) turned by m * theta_i.
export function rope(x, m, base) {
  const out = [];
  frequencies(x.length, base).forEach((t, i) => {
    const c = Math.cos(m * t), s = Math.sin(m * t);
    const a = x[2 * i], b = x[2 * i + 1];
    out.push(a * c - b * s, a * s + b * c);
  });
  return out;
}

const dot = (a, b) => a.reduce((sum, v, i) => sum + v * b[i], 0);

// The three scores of the query at m and the key at n, each divided by sqrt(d).
export function scores(config, m, n) {
  const { q, k, d, base } = config;
  const root = Math.sqrt(d);
  const pm = sinusoid(m, d, base), pn = sinusoid(n, d, base);
  return {
    plain: dot(q, k) / root,
    added: dot(q.map((v, i) => v + pm[i]), k.map((v, i) => v + pn[i])) / root,
    rope: dot(rope(q, m, base), rope(k, n, base)) / root,
  };
}

export function createState(config) {
  const clamp = (v) => Math.min(config.max, Math.max(0, Math.round(v)));
  const state = { m: config.start[0], n: config.start[1], result: null };
  const update = () => { state.result = scores(config, state.m, state.n); };
  const api = {
    state,
    set(which, value) {
      state[which] = clamp(value);
      update();
    },
    // Move both by step; nothing happens if either would leave the range.
    canMove(step) {
      return [state.m + step, state.n + step].every((v) => v >= 0 && v <= config.max);
    },
    moveBoth(step) {
      if (!api.canMove(step)) return false;
      state.m += step;
      state.n += step;
      update();
      return true;
    },
  };
  update();
  return api;
}
