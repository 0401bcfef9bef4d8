// Lab "mask" (chapter "Causal (masked) self-attention"): the weight table of
// one head for a short sentence. One button switches the causal mask on and
// off, and says which mask is on: the causal one, none, or a custom one once
// cells were pressed; every cell is a button that blocks or opens that one
// score. The table is one Tab stop: the arrow keys (and Home, End) move
// between its cells (a roving tabindex). Each row
// is renormalised over the keys it may still read: blocked cells get weight
// exactly 0, and a row with every key blocked gets all zeros (the package's
// rule, never NaN). The page computes the config with booktools.labs.mask;
// the browser tests compare every cell with the package's weights. The
// maths is in maths.js (causalMask, maskedWeights). No globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet } from "../dom.js";
import { fmt } from "../format.js";
import { causalMask, maskedWeights, scores } from "../maths.js";

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./mask.css", import.meta.url));
  const { tokens, q, k, decimals } = config;
  const n = tokens.length;
  const table = scores(q, k, 1 / Math.sqrt(q[0].length)); // (n, n) scaled scores
  const causal = causalMask(n);
  const state = { allowed: config.causal ? causalMask(n) : causal.map((r) => r.map(() => true)) };

  const isCausal = () => state.allowed.every((r, i) => r.every((a, j) => a === causal[i][j]));
  const isOpen = () => state.allowed.every((r) => r.every((a) => a));
  // What the toggle says: the causal mask (on), no mask (off), or any other (custom).
  const maskKind = () => (isCausal() ? "on" : isOpen() ? "off" : "custom");
  const PRESSED = { on: "true", off: "false", custom: "mixed" };

  // --- Controls: the causal mask as one toggle button.
  const toggle = h("button", { type: "button", "data-action": "causal", "aria-pressed": "true" });
  const controls = h("div", { class: "sa-panel-controls sa-mask-controls" },
    h("div", { class: "sa-panel-buttons" }, toggle));

  // --- The table: one row per query, one column per key, and each row's sum.
  const cells = [];
  const sums = [];
  const head = h("tr", {}, h("th", { scope: "col", class: "sa-mask-corner" }, "reads →"),
    ...tokens.map((t) => h("th", { scope: "col" }, t)), h("th", { scope: "col" }, "row sum"));
  const body = h("tbody");
  tokens.forEach((t, i) => {
    const row = h("tr", {}, h("th", { scope: "row" }, t));
    cells.push([]);
    tokens.forEach((_, j) => {
      const cell = h("button", {
        type: "button", class: "sa-mask-cell", "data-row": i, "data-col": j, tabindex: i || j ? "-1" : "0",
      });
      cell.addEventListener("click", () => flip(i, j));
      cell.addEventListener("keydown", (e) => move(e, i, j));
      cell.addEventListener("focus", () => rove(i, j));
      cells[i].push(cell);
      row.append(h("td", {}, cell));
    });
    const sum = h("td", { class: "sa-mask-sum", "data-sum": i });
    sums.push(sum);
    row.append(sum);
    body.append(row);
  });
  const grid = h("table", { class: "sa-mask-table" },
    h("caption", {}, "Attention weights. Row: the token that reads. Column: the token it reads."),
    h("thead", {}, head), body);

  const status = h("p", { class: "sa-panel-status sa-mask-status", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "sa-panel-hint sa-mask-hint" },
    "Press a cell (click, tap, or Enter and Space) to block or open that score. The table is one Tab stop: "
    + "the arrow keys move between its cells, Home and End to the ends of a row.");
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-mask" }, controls,
    h("div", { class: "sa-panel-body" }, h("div", { class: "sa-mask-wrap" }, grid),
      h("div", { class: "sa-panel-side" }, status, hint))));

  const rowText = (i, w) => {
    if (state.allowed[i].every((a) => !a)) return `${tokens[i]} reads nothing: every key is blocked, all weights 0.`;
    return `${tokens[i]}: ${tokens.map((t, j) => `${t} ${fmt(w[i][j], decimals)}`).join(", ")}.`;
  };

  function render() {
    const w = maskedWeights(table, state.allowed);
    const kind = maskKind();
    toggle.textContent = `Causal mask: ${kind}`;
    toggle.setAttribute("aria-pressed", PRESSED[kind]);
    root.dataset.causal = String(kind === "on");
    root.dataset.mask = kind;
    tokens.forEach((t, i) => {
      tokens.forEach((u, j) => {
        const open = state.allowed[i][j];
        const cell = cells[i][j];
        cell.textContent = fmt(w[i][j], decimals);
        cell.classList.toggle("sa-mask-blocked", !open);
        cell.dataset.allowed = String(open);
        cell.setAttribute("aria-label", `${t} reads ${u}: ${open ? "open" : "blocked"}, weight `
          + `${fmt(w[i][j], decimals)}. Press to ${open ? "block" : "open"}.`);
      });
      const total = w[i].reduce((a, b) => a + b, 0);
      sums[i].textContent = fmt(total, decimals);
      sums[i].classList.toggle("sa-mask-empty", state.allowed[i].every((a) => !a));
    });
    return w;
  }

  function flip(i, j) {
    state.allowed[i][j] = !state.allowed[i][j];
    const w = render();
    status.textContent = `${tokens[i]} → ${tokens[j]} ${state.allowed[i][j] ? "opened" : "blocked"}. `
      + `Row ${rowText(i, w)}`;
  }

  // The one cell in the tab order: the last one focused.
  function rove(i, j) {
    cells.flat().forEach((c) => { c.tabIndex = -1; });
    cells[i][j].tabIndex = 0;
  }

  function move(e, i, j) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const to = {
      ArrowUp: [i - 1, j], ArrowDown: [i + 1, j], ArrowLeft: [i, j - 1], ArrowRight: [i, j + 1],
      Home: [i, 0], End: [i, n - 1],
    }[e.key];
    if (!to) return;
    e.preventDefault();
    const r = Math.min(n - 1, Math.max(0, to[0]));
    const c = Math.min(n - 1, Math.max(0, to[1]));
    rove(r, c);
    cells[r][c].focus();
  }

  // On: off. Off, or a custom mask: the causal mask.
  toggle.addEventListener("click", () => {
    const on = isCausal();
    state.allowed = on ? causal.map((r) => r.map(() => true)) : causalMask(n);
    render();
    status.textContent = on
      ? "Causal mask off: every token reads every token, and each row spreads its weight over all of them."
      : "Causal mask on: each token reads itself and the tokens before it; each row renormalises over those.";
  });

  render();
}
