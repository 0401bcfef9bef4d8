// Lab "copying" (chapter "Two heads that learned to copy"): the trained copying model on the
// reader's own sequence, or on an example (a button each: a <select> would read an example as
// soon as the keyboard's arrows passed it, over what the reader had typed). "Read" feeds the
// sequence one symbol at a time with a KV cache and shows the guess for the next symbol;
// "Write the guess" appends it and reads it too. For the newest symbol, two rows show where the
// previous-token head and the induction head look. Case matters: "a" and "A" are two symbols,
// and what the reader types is read as typed (only white space is dropped).
// The maths is maths.js's copyingStep, sized by the config's sizes (heads per layer, d_head,
// where the positions enter), so another model of the same kind needs no change here. The page
// computes the config with booktools.labs.copying, whose fixture the browser tests compare
// with. No globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet } from "../dom.js";
import { fmt } from "../format.js";
import { copyingCache, copyingStep, decodeMatrices, softmax } from "../maths.js";

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./copying.css", import.meta.url));
  const { symbols, alphabet, sizes, heads, examples, decimals } = config;
  const params = decodeMatrices(config.params); // float16 in the page, exact as float64
  const positions = sizes.nPositions;
  const id = root.id || "copy-lab";
  const cased = symbols.includes("a") && symbols.includes("A"); // then "a" and "A" are two symbols

  // No maxlength: it would cut a longer sequence without a word. readTyped says it is too long.
  const input = h("input", { type: "text", id: `${id}-text`, "data-part": "input", autocomplete: "off",
    autocapitalize: "off", autocorrect: "off", spellcheck: "false", value: examples[0].text,
    "aria-describedby": `${id}-help` });
  const label = h("label", { for: `${id}-text` }, `Your sequence (${alphabet}${cased ? "; case matters" : ""})`);
  const picks = examples.map((e, i) => h("button", { type: "button", class: "sa-copy-example",
    "data-example": String(i) }, h("span", { class: "sa-copy-example-name" }, `${e.name}:`), " ",
  h("span", { class: "sa-copy-example-text" }, e.text)));
  const read = h("button", { type: "button", "data-action": "read" }, "Read");
  const write = h("button", { type: "button", "data-action": "write" }, "Write the guess");
  const help = h("p", { class: "sa-panel-hint", id: `${id}-help` },
    `Type some letters, then a few of them again in the same order, and press Read. `
    + `${cased ? "Case matters: a and A are two symbols. " : ""}At most ${positions} symbols.`);
  const seq = h("p", { class: "sa-copy-seq", "data-part": "sequence", "aria-label": "The sequence so far" });
  const guess = h("p", { class: "sa-copy-guess", "data-part": "guess" });
  const rows = h("div", { class: "sa-copy-rows" });
  const status = h("p", { class: "sa-panel-status", role: "status", "aria-live": "polite" });
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-copy" },
    h("div", { class: "sa-panel-controls" }, h("div", { class: "sa-copy-field" }, label, input),
      h("div", { class: "sa-panel-buttons" }, read, write)),
    h("div", { class: "sa-panel-buttons sa-copy-examples", role: "group", "aria-labelledby": `${id}-examples` },
      h("span", { id: `${id}-examples` }, "Or read an example:"), ...picks),
    help, seq, guess, rows, status));

  let tokens = [];
  let cache = null;
  let last = null;

  function feed(token) {
    last = copyingStep(params, sizes, cache, token, tokens.length);
    tokens.push(token);
  }

  function render() {
    root.dataset.n = String(tokens.length);
    seq.replaceChildren(...tokens.map((t, i) => h("span", { class: "sa-copy-sym", "data-pos": String(i) },
      h("span", { class: "sa-copy-letter" }, symbols[t]), h("span", { class: "sa-copy-pos" }, String(i)))));
    rows.replaceChildren();
    if (!last) { guess.textContent = ""; return; }
    const full = tokens.length >= positions;
    write.setAttribute("aria-disabled", String(full));
    if (full) {
      guess.textContent = `The sequence is full: the model has ${positions} positions.`;
      guess.dataset.guess = "";
    } else {
      const p = softmax(last.logits);
      const best = p.indexOf(Math.max(...p));
      guess.dataset.guess = symbols[best];
      guess.replaceChildren("Next symbol: ", h("strong", { "data-part": "symbol" }, symbols[best]),
        ", probability ", h("span", { "data-part": "probability" }, fmt(p[best], decimals)), ".");
    }
    heads.forEach(([layer, head], r) => {
      const w = last.weights[layer][head];
      const name = r === 0 ? "previous-token head" : "induction head";
      rows.append(h("div", { class: "sa-copy-row", "data-head": String(r) },
        h("p", { class: "sa-copy-row-title" }, `Head ${layer}.${head} (${name}): where the newest symbol looks`),
        h("div", { class: "sa-copy-cells", role: "list" }, ...w.map((v, j) => h("span", {
          class: "sa-copy-cell", role: "listitem", "data-pos": String(j), style: `--w: ${v.toFixed(3)}`,
          "aria-label": `position ${j}, ${symbols[tokens[j]]}: weight ${fmt(v, decimals)}`,
        }, h("span", { class: "sa-copy-letter" }, symbols[tokens[j]]),
        h("span", { class: "sa-copy-value" }, fmt(v, decimals)))))));
    });
  }

  const count = (n) => (n === 1 ? "1 symbol" : `${n} symbols`);

  function readTyped() {
    const text = input.value.replace(/\s/g, ""); // as typed: no upper case, "a" is not "A"
    const bad = [...new Set([...text].filter((c) => !symbols.includes(c)))];
    if (!text) { status.textContent = `Type at least one symbol: ${alphabet}.`; input.focus(); return; }
    if (bad.length) {
      status.textContent = `Only the letters ${alphabet} are symbols here, not ${bad.join(", ")}.`;
      input.focus();
      return;
    }
    if (text.length > positions) {
      status.textContent = `That is ${count(text.length)}: the model reads at most ${positions}. Remove ${text.length - positions}.`;
      input.focus();
      return;
    }
    tokens = [];
    cache = copyingCache(sizes.heads);
    for (const c of text) feed(symbols.indexOf(c));
    render();
    status.textContent = tokens.length >= positions ? `Read ${count(tokens.length)}; the sequence is full.`
      : `Read ${count(tokens.length)}. The model guesses ${guess.dataset.guess}.`;
  }

  read.addEventListener("click", readTyped);
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); readTyped(); } });
  for (const button of picks) {
    button.addEventListener("click", () => {
      input.value = examples[Number(button.dataset.example)].text;
      readTyped();
    });
  }
  write.addEventListener("click", () => {
    if (!last) { readTyped(); return; }
    if (tokens.length >= positions) { status.textContent = `The sequence is full: the model has ${positions} positions.`; return; }
    feed(symbols.indexOf(guess.dataset.guess));
    input.value = tokens.map((t) => symbols[t]).join("");
    render();
    status.textContent = tokens.length >= positions ? `Wrote ${symbols[tokens.at(-1)]}; the sequence is full.`
      : `Wrote ${symbols[tokens.at(-1)]}. The model now guesses ${guess.dataset.guess}.`;
  });

  readTyped();
  status.textContent = "";
}
