// Lab "temperature" (chapter "Why divide by √d_k"): one row of scores and a
// slider for the temperature T. The lab shows score / T and the weights
// softmax(score / T), as numbers and as bars. Two buttons set T = 1 (no
// division) and T = √d_k (the scaled scores). The row, the slider's range
// and the presets come from the page's config (booktools.labs.temperature);
// the maths is maths.js's softmaxTemperature, tested against the package.
// The state is one number, T. Everything lives inside mount(): no globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet } from "../dom.js";
import { fmt } from "../format.js";
import { softmaxTemperature } from "../maths.js";

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./temperature.css", import.meta.url));
  const { words, scores, min, max, step, start, presets, decimals } = config;
  const id = root.id || "sa-temperature";
  const state = { t: start };

  // --- Controls: the slider, its value, the presets.
  const slider = h("input", {
    type: "range", id: `${id}-t`, min, max, step, value: start, class: "sa-temp-slider",
  });
  const shown = h("output", { for: slider.id, class: "sa-temp-t" });
  const buttons = presets.map((p) => h("button", { type: "button", "data-preset": p.name }, p.label));
  const controls = h("div", { class: "sa-panel-controls sa-temp-controls" },
    h("label", { for: slider.id }, "Temperature T"), slider, shown,
    h("div", { class: "sa-panel-buttons", role: "group", "aria-label": "Preset temperatures" }, ...buttons));

  // --- The row: one line per word, its score, score / T, its weight and a bar.
  const head = h("tr", {}, h("th", { scope: "col" }, "word"), h("th", { scope: "col" }, "score"),
    h("th", { scope: "col", class: "sa-temp-divided-head" }, "score / T"),
    h("th", { scope: "col" }, "weight"), h("th", { scope: "col", class: "sa-temp-bar-head" }, "bar"));
  const cells = words.map((word, j) => {
    const divided = h("td", { class: "sa-temp-divided" });
    const weight = h("td", { class: "sa-temp-weight" });
    const fill = h("span", { class: "sa-temp-fill" });
    const bar = h("td", { class: "sa-temp-bar", "aria-hidden": "true" }, h("span", { class: "sa-temp-track" }, fill));
    const row = h("tr", { "data-word": word }, h("th", { scope: "row" }, word),
      h("td", {}, fmt(scores[j], decimals.scores)), divided, weight, bar);
    return { row, divided, weight, fill };
  });
  const table = h("table", { class: "sa-temp-table" },
    h("caption", { class: "sa-temp-hidden" }, "Scores, scores divided by T, and weights"),
    h("thead", {}, head), h("tbody", {}, ...cells.map((c) => c.row)));
  const summary = h("p", { class: "sa-temp-summary" });
  const status = h("p", { class: "sa-panel-status sa-temp-status sa-temp-hidden", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "sa-panel-hint" },
    "Drag the slider, or focus it and use the arrow keys (Home and End jump to the ends). "
    + "A small T sharpens the weights; a large T softens them.");
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-temp", role: "group", "aria-label": "Softmax with a temperature" },
    controls, h("div", { class: "sa-temp-body" }, table, summary, status, hint)));

  const describe = (t, weights) => `T = ${fmt(t, decimals.t)}: `
    + words.map((w, j) => `${w} ${fmt(weights[j], decimals.weights)}`).join(", ");

  function render(announce) {
    const t = state.t;
    const weights = softmaxTemperature(scores, t);
    root.dataset.t = String(t);
    shown.textContent = fmt(t, decimals.t);
    slider.setAttribute("aria-valuetext", describe(t, weights));
    let top = 0;
    weights.forEach((w, j) => {
      if (w > weights[top]) top = j;
      cells[j].divided.textContent = fmt(scores[j] / t, decimals.scores);
      cells[j].weight.textContent = fmt(w, decimals.weights);
      cells[j].fill.style.width = `${(100 * w).toFixed(2)}%`;
    });
    cells.forEach((c, j) => c.row.classList.toggle("sa-temp-top", j === top));
    summary.textContent = `${words[top]} takes the largest weight, ${fmt(weights[top], decimals.weights)}. `
      + (t < 1 ? "T below 1 widens the gaps between the scores: sharper weights."
        : t > 1 ? "T above 1 shrinks the gaps between the scores: softer weights."
          : "T = 1 is plain softmax of the scores.");
    presets.forEach((p, i) => buttons[i].setAttribute("aria-pressed", String(p.t === t)));
    if (announce) status.textContent = `${describe(t, weights)}.`;
  }

  function set(t, announce) {
    state.t = Math.min(max, Math.max(min, t));
    render(announce);
  }

  slider.addEventListener("input", () => set(Number(slider.value), false));
  slider.addEventListener("change", () => set(Number(slider.value), true));
  presets.forEach((p, i) => buttons[i].addEventListener("click", () => {
    slider.value = String(p.t); // the slider snaps to its nearest step; T stays exact
    set(p.t, true);
  }));

  render(false);
}
