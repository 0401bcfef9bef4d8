// Lab "position dial" (chapter "Where each word stands"): a query and a key,
// each at a position set with a slider. The lab shows their score without
// positions, with sinusoidal positions added, and with RoPE. "Move both"
// shifts the two positions together: the RoPE score holds, the added one
// changes. The vectors and the range come from the page's config
// (booktools.labs.position_dial); the maths is position-dial-state.js.
// Everything lives inside mount(): no globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet, setDisabled } from "../dom.js";
import { fmt } from "../format.js";
import { createState } from "./position-dial-state.js";

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./position-dial.css", import.meta.url));
  const id = root.id || "sa-position-dial";
  const lab = createState(config);
  const dec = config.decimals;

  const slider = (which, label) => {
    const input = h("input", { type: "range", id: `${id}-${which}`, min: 0, max: config.max, step: 1,
      value: lab.state[which], class: "sa-pos-slider", "data-which": which });
    const out = h("output", { for: input.id, class: "sa-pos-value", "data-which": which });
    const row = h("div", { class: "sa-pos-row" }, h("label", { for: input.id }, label), input, out);
    return { input, out, row };
  };
  const sm = slider("m", "Query position m");
  const sn = slider("n", "Key position n");
  const back = h("button", { type: "button", "data-move": "-1" }, "Move both back");
  const on = h("button", { type: "button", "data-move": "1" }, "Move both on");
  const controls = h("div", { class: "sa-panel-controls sa-pos-controls" }, sm.row, sn.row,
    h("div", { class: "sa-panel-buttons", role: "group", "aria-label": "Move both positions" }, back, on));

  // The two vectors, and the division of every score by sqrt(d) (booktools.labs.position_dial.position_dial_note).
  const sqrtD = Math.sqrt(config.d);
  const rootText = Number.isInteger(sqrtD) ? String(sqrtD) : fmt(sqrtD, dec);
  const vec = (v) => `[${v.map(String).join(", ")}]`;
  const note = h("p", { class: "sa-pos-note" },
    `q = ${vec(config.q)} and k = ${vec(config.k)}. Each score is divided by √${config.d} = ${rootText}.`);
  const cell = (name) => h("td", { class: `sa-pos-score`, "data-score": name });
  const cells = { plain: cell("plain"), added: cell("added"), rope: cell("rope") };
  const row = (label, name) => h("tr", {}, h("th", { scope: "row" }, label), cells[name]);
  const distance = h("p", { class: "sa-pos-distance" });
  const table = h("table", { class: "sa-pos-table" },
    h("caption", { class: "sa-pos-hidden" }, "The score of the query with the key, three ways"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "positions"),
      h("th", { scope: "col" }, `score ÷ √${config.d}`))),
    h("tbody", {}, row("none", "plain"), row("sinusoidal, added", "added"), row("RoPE", "rope")));
  const status = h("p", { class: "sa-panel-status sa-pos-hidden", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "sa-panel-hint" },
    "Drag a slider, or focus it and use the arrow keys (Home and End jump to the ends). "
    + "Move both, and watch which score holds.");
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-pos", role: "group", "aria-label": "The position dial" },
    controls, h("div", { class: "sa-pos-body" }, note, distance, table, status, hint)));

  const describe = () => {
    const { m, n, result } = lab.state;
    return `Query at ${m}, key at ${n}: no positions ${fmt(result.plain, dec)}, `
      + `sinusoidal added ${fmt(result.added, dec)}, RoPE ${fmt(result.rope, dec)}`;
  };

  function render(announce) {
    const { m, n, result } = lab.state;
    root.dataset.m = String(m);
    root.dataset.n = String(n);
    sm.input.value = String(m);
    sn.input.value = String(n);
    sm.out.textContent = String(m);
    sn.out.textContent = String(n);
    for (const name of Object.keys(cells)) cells[name].textContent = fmt(result[name], dec);
    distance.textContent = `m − n = ${m - n}`;
    distance.dataset.distance = String(m - n);
    sm.input.setAttribute("aria-valuetext", `${m}`);
    sn.input.setAttribute("aria-valuetext", `${n}`);
    setDisabled(back, !lab.canMove(-1), on);
    setDisabled(on, !lab.canMove(1), back);
    if (announce) status.textContent = `${describe()}.`;
  }

  for (const s of [sm, sn]) {
    s.input.addEventListener("input", () => { lab.set(s.input.dataset.which, Number(s.input.value)); render(false); });
    s.input.addEventListener("change", () => render(true));
  }
  for (const b of [back, on]) {
    b.addEventListener("click", () => { if (lab.moveBoth(Number(b.dataset.move))) render(true); });
  }
  render(false);
}
