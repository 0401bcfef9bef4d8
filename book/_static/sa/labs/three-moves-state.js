// State of the lab "three moves": which move is shown, where the keys take
// it, and what each move draws (in the plane's own units). No DOM here: the
// view (three-moves.js) draws what this module computes. The browser tests
// compare the lab with booktools.labs.three_moves, move by move.

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
