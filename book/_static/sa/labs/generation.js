// Lab "generation" (chapter "One word at a time"): a generation stepper. It
// opens on the prefill, which reads the whole prompt at once. Each press of
// "Next token" goes to the next step, which feeds one more token: one head's
// causal weight table grows by a row and a column, and the step that reads t
// tokens picks token t + 1. The cells computed at this step are highlighted
// (with the KV cache only the newest row, without it the whole triangle again). A toggle
// switches between the two, a strip shows what the cache holds, and a counter
// gives the scores computed so far. The page computes the config with
// booktools.labs.generation; the state lives in generation-state.js. No globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet, setDisabled } from "../dom.js";
import { fmt, formatCount } from "../format.js";
import { createState } from "./generation-state.js";

// The count of this step: the prefill reads the whole prompt at once.
function stepText(v) {
  return v.prefill ? `The prefill reads the ${v.t} tokens of the prompt at once: ${formatCount(v.step)} scores.`
    : `This step reads ${v.t} tokens: ${formatCount(v.step)} scores.`;
}

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./generation.css", import.meta.url));
  const { tokens, decimals, prompt } = config;
  const lab = createState(config);

  const back = h("button", { type: "button", "data-action": "back" }, "Back");
  const next = h("button", { type: "button", "data-action": "next" }, "Next token");
  const mode = h("button", { type: "button", "data-action": "mode", "aria-pressed": "true" });
  const controls = h("div", { class: "sa-panel-controls sa-gen-controls" },
    h("div", { class: "sa-panel-buttons" }, back, next, mode));

  const text = h("p", { class: "sa-gen-text", "data-part": "text" });
  const table = h("table", { class: "sa-gen-table" });
  const counts = h("p", { class: "sa-gen-counts", "data-part": "counts" });
  const kept = h("ol", { class: "sa-gen-cache", "data-part": "cache", "aria-label": "KV cache" });
  const keptTitle = h("p", { class: "sa-gen-cache-title" });
  const status = h("p", { class: "sa-panel-status sa-gen-status", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "sa-panel-hint" },
    "Highlighted cells are computed at this step. The first step, the prefill, reads the whole prompt "
    + "at once. Press Next token for the next step; switch the cache off to recompute everything.");
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-gen" }, controls,
    h("div", { class: "sa-panel-body" },
      h("div", { class: "sa-gen-wrap sa-scroll-x" }, text, table),
      h("div", { class: "sa-panel-side" }, counts, keptTitle, kept, status, hint))));

  function render() {
    const v = lab.view();
    mode.textContent = v.cache ? "KV cache: on" : "KV cache: off";
    mode.setAttribute("aria-pressed", String(v.cache));
    setDisabled(back, v.atStart, next);
    setDisabled(next, v.atEnd, back);
    root.dataset.t = String(v.t);
    text.replaceChildren(...tokens.slice(0, v.t).map((w, i) =>
      h("span", { class: i < prompt ? "sa-gen-prompt" : "sa-gen-new-word" }, w)));

    const head = h("tr", {}, h("th", { scope: "col", class: "sa-gen-corner" }, "reads →"),
      ...tokens.slice(0, v.t).map((w) => h("th", { scope: "col" }, w)));
    const body = h("tbody");
    v.weights.forEach((row, i) => {
      const tr = h("tr", {}, h("th", { scope: "row" }, tokens[i]));
      row.forEach((w, j) => {
        if (j > i) { tr.append(h("td", { class: "sa-gen-future", "aria-label": "blocked" }, "")); return; }
        const now = v.computed[i][j];
        tr.append(h("td", {
          class: now ? "sa-gen-cell sa-gen-now" : "sa-gen-cell", "data-row": i, "data-col": j,
          "data-now": String(now),
          "aria-label": `${tokens[i]} reads ${tokens[j]}: weight ${fmt(w, decimals)}, `
            + (now ? "computed at this step" : "computed before"),
        }, fmt(w, decimals)));
      });
      body.append(tr);
    });
    table.replaceChildren(h("caption", {}, "One head's weights. Row: the token that reads. Column: the token it reads."),
      h("thead", {}, head), body);

    counts.replaceChildren(
      h("span", { "data-count": "step" }, stepText(v)), " ",
      h("span", { "data-count": "pick" }, `It picks token ${v.t + 1}: “${v.picked}”.`), " ",
      h("span", { "data-count": "total" }, `So far: ${formatCount(v.total)} scores.`));
    keptTitle.textContent = v.cache ? `The cache holds the keys and values of ${v.kept.length} tokens:`
      : "Nothing is kept: every step recomputes all keys and values.";
    kept.replaceChildren(...v.kept.map((w) => h("li", {}, w)));
    return v;
  }

  const say = (v, what) => {
    status.textContent = `${what} This step reads ${v.t} tokens and computes ${formatCount(v.step)} scores, `
      + `${formatCount(v.total)} so far; it picks token ${v.t + 1}, “${v.picked}”.`;
  };
  next.addEventListener("click", () => { lab.next(); say(render(), "Next step."); });
  back.addEventListener("click", () => { lab.back(); say(render(), "Back one step."); });
  mode.addEventListener("click", () => {
    lab.toggle();
    const v = render();
    say(v, v.cache ? "KV cache on: each step scores only the newest row." : "KV cache off: each step recomputes the whole table.");
  });

  render();
}
