// Lab "several-heads" (chapter "Several heads"): one small sentence computed with h heads.
// The reader chooses h (1, 2 or 4; it opens at the chapter's h) and a head, and sees that
// head's table of weights (row: the word that looks; column: the word looked at) and the
// heads' joined output after W_O. A checkbox makes each head's queries, keys and values as h
// projections of the whole word instead of one W_Q cut into columns; the status line says
// whether the numbers agree.
// The maths is maths.js's multiHead; the page computes the config with
// booktools.labs.several_heads, whose fixture the browser tests compare with. No globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet } from "../dom.js";
import { fmt } from "../format.js";
import { multiHead } from "../maths.js";

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./several-heads.css", import.meta.url));
  const { words, x, W_Q, W_K, W_V, W_O, headCounts, start, decimals } = config;
  const id = root.id || "heads-lab";
  const dModel = x[0].length;

  const count = h("select", { id: `${id}-h`, "data-part": "h" },
    ...headCounts.map((n) => h("option", { value: String(n) }, String(n))));
  const head = h("select", { id: `${id}-head`, "data-part": "head" });
  const toggle = h("input", { type: "checkbox", id: `${id}-proj`, "data-part": "projections" });
  const weightsBox = h("div", { class: "sa-heads-scroll sa-scroll-x", "data-part": "weights" });
  const outputBox = h("div", { class: "sa-heads-scroll sa-scroll-x", "data-part": "output" });
  const status = h("p", { class: "sa-panel-status", role: "status", "aria-live": "polite" });
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-heads" },
    h("div", { class: "sa-panel-controls" },
      h("div", { class: "sa-heads-field" }, h("label", { for: `${id}-h` }, "Heads h"), count),
      h("div", { class: "sa-heads-field" }, h("label", { for: `${id}-head` }, "Head shown"), head),
      h("div", { class: "sa-heads-check" }, toggle,
        h("label", { for: `${id}-proj` }, "h projections of the whole word (off: one W_Q split into columns)"))),
    weightsBox, outputBox, status));

  function table(caption, rowNames, colNames, values, corner, part) {
    return h("table", { class: "sa-heads-table", "data-table": part },
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, corner),
        ...colNames.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...values.map((row, r) => h("tr", {}, h("th", { scope: "row" }, rowNames[r]),
        ...row.map((v) => h("td", part === "weights" ? { style: `--w: ${Math.min(Math.max(v, 0), 1).toFixed(3)}` } : {},
          fmt(v, decimals)))))));
  }

  function fillHeads() {
    const n = Number(count.value);
    const keep = Math.min(Number(head.value || 0), n - 1);
    head.replaceChildren(...Array.from({ length: n }, (_, i) => h("option", { value: String(i) }, String(i))));
    head.value = String(keep);
  }

  const formatted = (r) => [...r.weights.flat(2), ...r.output.flat()].map((v) => fmt(v, decimals)).join(" ");

  function render(announce) {
    const n = Number(count.value);
    const i = Number(head.value);
    const splitColumns = !toggle.checked;
    const result = multiHead(x, W_Q, W_K, W_V, W_O, n, { splitColumns });
    const other = multiHead(x, W_Q, W_K, W_V, W_O, n, { splitColumns: !splitColumns });
    root.dataset.h = String(n);
    root.dataset.head = String(i);
    weightsBox.replaceChildren(table(`Head ${i} of ${n}: its weights (d_head = ${dModel / n}). Row: the word that looks; every row adds up to 1.`,
      words, words, result.weights[i], "looks at →", "weights"));
    const joined = n === 1 ? "The one head's output" : `The ${n} heads' outputs side by side`;
    outputBox.replaceChildren(table(`${joined}, times W_O: one row of ${dModel} numbers per word.`,
      words, Array.from({ length: dModel }, (_, c) => String(c)), result.output, "word", "output"));
    if (!announce) return;
    const how = splitColumns ? "one W_Q split into columns" : "h projections of the whole word";
    const otherHow = splitColumns ? "h projections of the whole word" : "one W_Q split into columns";
    const same = formatted(result) === formatted(other);
    status.textContent = `h = ${n}, head ${i}, queries from ${how}: ` + (same
      ? `the same numbers as ${otherHow}.` : `these numbers differ from ${otherHow}.`);
  }

  count.addEventListener("change", () => { fillHeads(); render(true); });
  head.addEventListener("change", () => render(true));
  toggle.addEventListener("change", () => render(true));
  count.value = String(headCounts.includes(start) ? start : headCounts[0]); // the h the chapter's text quotes
  fillHeads();
  render(false);
}
