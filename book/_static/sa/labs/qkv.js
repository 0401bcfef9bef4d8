// Lab "Q, K, V" (chapter "Queries, keys and values"): edit the words X and
// the matrices W_Q, W_K, W_V and watch Q, K, V, the scores, the weights and
// the outputs update. A badge says whether the score table is symmetric;
// pointing at a score, or focusing it, says which query and which key made
// it. The page computes the config with booktools.labs.qkv; the state and
// the maths live in qkv-state.js (no DOM), this module only draws them.
// Everything lives inside mount(): no globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet } from "../dom.js";
import { fmt } from "../format.js";
import { MATRICES, createState } from "./qkv-state.js";

const NAMES = { x: "X", w_q: "W_Q", w_k: "W_K", w_v: "W_V" };
const PROMPT = "Point at a score, or focus it, to see which query and which key made it.";

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./qkv.css", import.meta.url));
  const { words, decimals, presets } = config;
  const lab = createState(config);
  const { state } = lab;
  const dK = config.x[0].length;
  const cols = config.x[0].map((_, c) => String(c + 1));
  const feats = config.x[0].map((_, c) => `x${c + 1}`);

  // --- Controls: the projections switch, presets, reset.
  const check = h("input", { type: "checkbox", class: "sa-qkv-proj" });
  check.checked = true;
  const presetButtons = presets.map((p) => h("button", { type: "button", "data-preset": p.id }, p.label));
  const reset = h("button", { type: "button", "data-action": "reset" }, "reset");
  const controls = h("div", { class: "sa-panel-controls" },
    h("label", { class: "sa-qkv-switch" }, check, " use projections"),
    h("div", { class: "sa-panel-buttons", role: "group", "aria-label": "Presets" }, ...presetButtons, reset));

  // --- The editors: one small grid of number boxes per input matrix.
  const boxes = {};
  const editor = (name, rows) => {
    boxes[name] = state[name].map((row, i) => row.map((_, j) => {
      const label = name === "x" ? `X, ${words[i]}, number ${j + 1}` : `${NAMES[name]}, row ${i + 1}, column ${j + 1}`;
      const box = h("input", {
        type: "number", step: config.step, min: -config.limit, max: config.limit, inputmode: "decimal",
        class: "sa-qkv-box", "aria-label": label, "data-m": name, "data-r": i, "data-c": j,
      });
      box.addEventListener("input", () => {
        const v = box.value === "" ? NaN : Number(box.value);
        const ok = lab.usable(v);
        box.setAttribute("aria-invalid", String(!ok));
        if (!ok) return;
        lab.set(name, i, j, v);
        render();
      });
      box.addEventListener("change", () => { // leaving a box with an unusable entry puts the last number back
        if (box.getAttribute("aria-invalid") === "true") syncBoxes();
        say(`${label} is ${box.value}. ${badgeText()}`);
      });
      return box;
    }));
    const head = h("tr", {}, h("td", {}), ...cols.map((c) => h("th", { scope: "col" }, c)));
    const body = boxes[name].map((row, i) => h("tr", {}, h("th", { scope: "row" }, rows[i]),
      ...row.map((box) => h("td", {}, box))));
    return h("table", { class: "sa-qkv-editor", "data-editor": name },
      h("caption", {}, NAMES[name]), h("thead", {}, head), h("tbody", {}, ...body));
  };
  const editors = h("div", { class: "sa-qkv-editors" },
    editor("x", words), ...MATRICES.map((m) => editor(m, feats)));

  // --- The tables: Q, K, V, scores, weights, output.
  const specs = [
    ["q", cols, "word"], ["k", cols, "word"], ["v", cols, "word"],
    ["scores", words, "looks at →"], ["weights", words, "takes from →"], ["output", cols, "word"],
  ];
  const cells = {};
  const captions = {};
  const tables = specs.map(([name, heads, corner]) => {
    captions[name] = h("caption", {});
    cells[name] = words.map(() => heads.map(() => null));
    const head = h("tr", {}, h("th", { scope: "col", class: "sa-qkv-corner" }, corner),
      ...heads.map((c, j) => h("th", { scope: "col", "data-c": j }, c)));
    const rows = words.map((w, i) => h("tr", {}, h("th", { scope: "row", "data-r": i }, w),
      ...heads.map((_, j) => (cells[name][i][j] = h("td", { "data-r": i, "data-c": j })))));
    return h("table", { class: "sa-qkv-table", "data-table": name }, captions[name],
      h("thead", {}, head), h("tbody", {}, ...rows));
  });
  const badge = h("p", { class: "sa-qkv-badge", role: "status", "aria-live": "polite" });
  const explain = h("p", { class: "sa-qkv-explain", "aria-live": "polite" }, PROMPT);
  const status = h("p", { class: "sa-panel-status sa-qkv-status", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "sa-panel-hint" },
    "Type a number in any box, or use the arrow keys in it (steps of ", String(config.step), ").");
  for (const td of cells.scores.flat()) {
    td.tabIndex = 0;
    const on = () => { lab.setLook([Number(td.dataset.r), Number(td.dataset.c)]); showLook(); };
    const off = () => { lab.setLook(null); showLook(); };
    td.addEventListener("mouseenter", on);
    td.addEventListener("focus", on);
    td.addEventListener("mouseleave", off);
    td.addEventListener("blur", off);
  }

  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-qkv" }, controls, hint, editors,
    h("div", { class: "sa-qkv-notes" }, badge, explain, status),
    h("div", { class: "sa-qkv-tables" }, ...tables)));

  // --- Drawing the state.
  const vec = (row) => `[${row.map((v) => fmt(v, decimals.x)).join(", ")}]`;
  const say = (text) => { status.textContent = text; };
  const badgeText = () => (state.result.symmetric
    ? "The scores are symmetric: a → b equals b → a for every pair."
    : "The scores are not symmetric: a → b and b → a can differ.");
  const rowText = (i) => state.result.weights[i].map((w, j) => `${fmt(w, decimals.weights)} from ${words[j]}`).join(", ");

  function syncBoxes() {
    for (const name of Object.keys(boxes)) {
      boxes[name].forEach((row, i) => row.forEach((box, j) => {
        box.value = String(state[name][i][j]);
        box.setAttribute("aria-invalid", "false");
        box.disabled = name !== "x" && !state.projections;
      }));
    }
  }

  function render() {
    const r = state.result;
    const kinds = { q: "x", k: "x", v: "x", scores: "scores", weights: "weights", output: "output" };
    for (const [name, kind] of Object.entries(kinds)) {
      cells[name].forEach((row, i) => row.forEach((td, j) => { td.textContent = fmt(r[name][i][j], decimals[kind]); }));
    }
    const p = state.projections;
    captions.q.textContent = p ? "Q = X W_Q: queries" : "Q = X (no projection)";
    captions.k.textContent = p ? "K = X W_K: keys" : "K = X (no projection)";
    captions.v.textContent = p ? "V = X W_V: values" : "V = X (no projection)";
    captions.scores.textContent = `scores = Q Kᵀ / √${dK}`;
    captions.weights.textContent = "weights: softmax of each row";
    captions.output.textContent = "output = weights V";
    root.dataset.projections = String(p);
    root.dataset.symmetric = String(r.symmetric);
    badge.dataset.symmetric = String(r.symmetric);
    badge.textContent = r.symmetric ? "✓ symmetric scores" : "✗ not symmetric";
    badge.title = badgeText();
    editors.classList.toggle("is-raw", !p);
    showLook();
  }

  function showLook() {
    const [a, b] = state.look || [-1, -1];
    for (const t of tables) {
      const name = t.dataset.table;
      t.querySelectorAll("th[data-r]").forEach((th) => {
        const r = Number(th.dataset.r);
        th.classList.toggle("is-looker", (name === "q" || name === "scores") && r === a);
        th.classList.toggle("is-target", name === "k" && r === b);
      });
      t.querySelectorAll("th[data-c]").forEach((th) => th.classList.toggle("is-target", name === "scores" && Number(th.dataset.c) === b));
      t.querySelectorAll("td").forEach((td) => {
        const r = Number(td.dataset.r);
        td.classList.toggle("is-pair", (name === "scores" && r === a && Number(td.dataset.c) === b)
          || (name === "q" && r === a) || (name === "k" && r === b));
      });
    }
    if (!state.look) {
      delete root.dataset.looker;
      delete root.dataset.target;
      explain.classList.remove("is-on");
      explain.textContent = PROMPT;
      return;
    }
    const r = state.result;
    root.dataset.looker = words[a];
    root.dataset.target = words[b];
    explain.classList.add("is-on");
    explain.textContent = `${words[a]} looks at ${words[b]}: ${words[a]}'s query ${vec(r.q[a])} · ${words[b]}'s key `
      + `${vec(r.k[b])} = ${fmt(r.rawScores[a][b], decimals.scores)}, divided by √${r.q[0].length} gives `
      + `${fmt(r.scores[a][b], decimals.scores)}; weight ${fmt(r.weights[a][b], decimals.weights)}.`;
  }

  // --- Controls to state changes.
  check.addEventListener("change", () => {
    lab.setProjections(check.checked);
    syncBoxes();
    render();
    say(`Projections ${state.projections ? "on" : "off: every word is its own query, key and value"}. ${badgeText()}`);
  });
  presetButtons.forEach((btn, k) => btn.addEventListener("click", () => {
    lab.preset(presets[k]);
    check.checked = true;
    syncBoxes();
    render();
    say(`Preset: ${presets[k].label}. ${badgeText()} ${words[0]} takes ${rowText(0)}.`);
  }));
  reset.addEventListener("click", () => {
    lab.reset();
    check.checked = true;
    syncBoxes();
    render();
    say("Back to the start.");
  });

  syncBoxes();
  render();
}
