// State of the lab "three moves": which move is shown, where the keys take
// it, and what each move draws (in the plane's own units), with where the
// words' names go. No DOM here: the view (three-moves.js) draws what this
// module computes. The browser tests compare the lab with
// booktools.labs.three_moves, move by move.

export const SIZE = 300; // side of the square viewBox
export const PAD = 34; // room around the plane for the labels
const FONT = 15; // the labels' font size, in viewBox units

// The key that walks to a move, from the move shown: Home and End jump to the ends.
const KEYS = { ArrowRight: (m) => m + 1, ArrowLeft: (m) => m - 1, Home: () => 0, End: (m, last) => last };

export function createState(config) {
  const last = config.moves.length - 1;
  const state = { move: 0 };
  return {
    state,
    last,
    // Show move m (kept between the first and the last); true if the move changed.
    go(m) {
      const to = Math.min(last, Math.max(0, m));
      if (to === state.move) return false;
      state.move = to;
      return true;
    },
    // The move a key asks for, or undefined if the key is not one of the lab's.
    target(key) {
      const f = KEYS[key];
      return f ? f(state.move, last) : undefined;
    },
  };
}

// What move m draws, in the plane's units: the links from the word that looks
// (their width follows the shares at the score move), the share labels, the
// pieces of the blend laid end to end from the origin, and the blend itself.
export function scene(config, m) {
  const { x, word, shares, output, moves } = config;
  const links = x.map((p, j) => ({ to: p, self: j === word, width: m === 1 ? 1 + 9 * shares[j] : 1.5 }));
  const shareLabels = m === 1 ? moves[1].rows.map((row) => row[2]) : [];
  const pieces = [];
  if (m === 2) {
    let at = [0, 0];
    x.forEach((p, j) => {
      const to = [at[0] + shares[j] * p[0], at[1] + shares[j] * p[1]];
      pieces.push([at, to]);
      at = to;
    });
  }
  return { me: x[word], links, shareLabels, pieces, blend: m === 2 ? output : null };
}

// The plane: from 0 to the largest coordinate, the same scale on both axes,
// in viewBox units (y grows downwards).
export function plane(config) {
  const top = Math.max(...config.x.flat(), ...config.output, 1);
  const span = SIZE - 2 * PAD;
  return { top, px: (v) => PAD + (v / top) * span, py: (v) => SIZE - PAD - (v / top) * span };
}

// The box a label takes (a guess from its length: no DOM here).
function box(text, x, y, anchor) {
  const w = 0.6 * FONT * text.length;
  const left = anchor === "start" ? x : anchor === "end" ? x - w : x - w / 2;
  return { left, right: left + w, top: y - 0.8 * FONT, bottom: y + 0.25 * FONT };
}

function crosses(a, b, r) {
  for (let t = 0; t <= 1; t += 1 / 32) {
    const x = a[0] + t * (b[0] - a[0]);
    const y = a[1] + t * (b[1] - a[1]);
    if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return true;
  }
  return false;
}

// Where each word's name goes at move m, in viewBox units: beside the point,
// above it; or, where the blend's dashed path or its star would cross the
// name, below it (the place the shares take at the score move, free then).
export function labels(config, m) {
  const { px, py, top } = plane(config);
  const { words, x, output } = config;
  const sc = scene(config, m);
  const segments = sc.pieces.map(([a, b]) => [[px(a[0]), py(a[1])], [px(b[0]), py(b[1])]]);
  const star = sc.blend ? { left: px(output[0]) - 12, right: px(output[0]) + 12,
    top: py(output[1]) - 12, bottom: py(output[1]) + 12 } : null;
  return x.map((p, j) => {
    const right = p[0] < top / 2;
    const anchor = right ? "start" : "end";
    const at = { x: px(p[0]) + (right ? 10 : -10), y: py(p[1]) - 8, anchor };
    const r = box(words[j], at.x, at.y, anchor);
    const hit = segments.some(([a, b]) => crosses(a, b, r))
      || (star && r.left < star.right && r.right > star.left && r.top < star.bottom && r.bottom > star.top);
    return hit && m !== 1 ? { ...at, y: py(p[1]) + 20 } : at;
  });
}
