// Lab "attention explorer" (chapter "Attention in a real model"): the
// attention weights of all-MiniLM-L6-v2 for a gallery of sentences. The page
// stores each sentence's pre-softmax scores (each row minus its maximum, as
// float16, base64; booktools.labs.explorer). The state and its maths live in
// explorer-state.js and ../maths.js; this module is the view: it draws the
// state and turns choosers, pointer and keys into state changes. The browser
// tests compare what it shows with the package's numbers for the same stored
// scores. Everything lives inside mount(): no globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet } from "../dom.js";
import { fmt } from "../format.js";
import { createState } from "./explorer-state.js";

// Interpolated colour of a weight in [0, 1] along the colour stops.
function colourOf(stops, w) {
  const t = Math.min(1, Math.max(0, w)) * (stops.length - 1);
  const k = Math.min(stops.length - 2, Math.floor(t));
  const f = t - k;
  const a = stops[k];
  const b = stops[k + 1];
  return a.map((v, c) => Math.round(v + (b[c] - v) * f));
}

function luminance(rgb) {
  const lin = rgb.map((v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

// Black or white text, whichever contrasts more with the background.
function inkOn(rgb) {
  const l = luminance(rgb);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000" : "#fff";
}

const hexToRgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const quote = (t) => `“${t}”`;

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./explorer.css", import.meta.url));
  const { sentences, layers, heads, decimals, mean } = config;
  const temp = config.temperature;
  const stops = config.colours.map(hexToRgb);
  const id = root.id || "sa-explorer";
  const lab = createState(config);
  const { state } = lab;
  const headName = () => (lab.isMean() ? `average of ${heads} heads` : `head ${state.head}`);

  // --- Controls.
  const select = (cls, label, options) => {
    const sel = h("select", { id: `${id}-${cls}`, class: `sa-ex-${cls}` },
      ...options.map(([value, text]) => h("option", { value }, text)));
    return [sel, h("label", { class: "sa-ex-field", for: sel.id }, label)];
  };
  const [sentenceSel, sentenceLabel] = select("sentence", "Sentence",
    sentences.map((s, i) => [i, s.text]));
  const [layerSel, layerLabel] = select("layer", "Layer",
    Array.from({ length: layers }, (_, l) => [l, String(l)]));
  const [headSel, headLabel] = select("head", "Head",
    [...Array.from({ length: heads }, (_, k) => [k, String(k)]), [mean, `average of ${heads} heads`]]);
  const slider = h("input", {
    type: "range", id: `${id}-temperature`, class: "sa-ex-temperature",
    min: temp.min, max: temp.max, step: temp.step, value: temp.value,
  });
  const tempOut = h("output", { class: "sa-ex-temp-value", for: slider.id }, fmt(temp.value, 2));
  const reset = h("button", { type: "button", "data-action": "reset" }, "reset");
  const controls = h("div", { class: "sa-panel-controls sa-ex-controls" },
    h("div", { class: "sa-ex-group sa-ex-group-sentence" }, sentenceLabel, sentenceSel),
    h("div", { class: "sa-ex-group" }, layerLabel, layerSel),
    h("div", { class: "sa-ex-group" }, headLabel, headSel),
    h("div", { class: "sa-ex-group sa-ex-group-temp" },
      h("label", { class: "sa-ex-field", for: slider.id }, "Temperature T"), slider, tempOut),
    reset);

  // --- The token strip: the shown row, as the sentence itself.
  const hintId = `${id}-hint`;
  const hint = h("p", { class: "sa-panel-hint sa-ex-hint", id: hintId },
    "Point at a token, or reach it with Tab, to see its row: the weights it gives to every token. ",
    "Click it (or press Enter) to lock that row; press Escape or “unlock” to let it follow again.");
  const stripTitle = h("p", { class: "sa-ex-strip-title" });
  const strip = h("div", { class: "sa-ex-strip", role: "group", "aria-describedby": hintId });
  const lockText = h("span", { class: "sa-ex-lock-text" });
  const unlock = h("button", { type: "button", "data-action": "unlock", class: "sa-ex-unlock" }, "unlock");
  const lockBar = h("div", { class: "sa-ex-lockbar" }, lockText, unlock);

  // --- The colour scale, labelled 0 to 1.
  const bar = h("span", { class: "sa-ex-scale-bar", "aria-hidden": "true" });
  bar.style.backgroundImage = `linear-gradient(to right, ${config.colours.join(", ")})`;
  const scale = h("div", { class: "sa-ex-scale" },
    h("span", { class: "sa-ex-scale-label" }, "weight"),
    h("span", { class: "sa-ex-scale-end" }, fmt(0, 0)), bar, h("span", { class: "sa-ex-scale-end" }, fmt(1, 0)),
    h("span", { class: "sa-ex-scale-note" }, "(every number is shown too)"));

  // --- The heatmap.
  const caption = h("p", { class: "sa-ex-grid-title", id: `${id}-grid-title` });
  const table = h("table", { class: "sa-ex-grid", "aria-labelledby": caption.id });
  // Focusable, so that keyboard users can scroll it on a narrow screen.
  const wrap = h("div", { class: "sa-ex-grid-wrap", tabindex: "0", role: "region",
    "aria-labelledby": caption.id }, table);

  const status = h("p", { class: "sa-panel-status sa-ex-status", role: "status", "aria-live": "polite" });
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-ex" }, controls, hint, stripTitle, strip, lockBar, scale, caption,
    wrap, status));

  const say = (text) => { status.textContent = text; };

  // --- Token interactions, shared by the strip and the heatmap's row labels.
  function wireToken(btn, i) {
    btn.addEventListener("pointerenter", () => { lab.point(i); showRow(); });
    btn.addEventListener("pointerleave", () => { lab.unpoint(i); showRow(); });
    btn.addEventListener("focus", () => { lab.focus(i); showRow(); if (state.locked === null) say(rowSentence()); });
    btn.addEventListener("blur", () => { lab.blur(i); showRow(); });
    btn.addEventListener("click", () => {
      const locked = lab.toggleLock(i);
      showRow();
      say(locked ? `Locked the row of ${quote(lab.tokens()[i])}. ${rowSentence()}` : `Unlocked. ${rowSentence()}`);
    });
  }

  let stripButtons = [];
  let rowButtons = [];
  let cells = [];

  function buildSentence() {
    const toks = lab.tokens();
    stripButtons = toks.map((t, i) => {
      const btn = h("button", { type: "button", class: "sa-ex-token", "data-i": i },
        h("span", { class: "sa-ex-tok" }, t), " ", h("span", { class: "sa-ex-w" }, ""));
      wireToken(btn, i);
      return btn;
    });
    strip.replaceChildren(...stripButtons);
    const head = h("tr", {}, h("th", { scope: "col", class: "sa-ex-corner" },
      h("span", {}, "looks ↓"), h("span", {}, "at →")),
    ...toks.map((t, j) => h("th", { scope: "col", "data-c": j }, h("span", { class: "sa-ex-col" }, t))));
    rowButtons = [];
    cells = toks.map((t, i) => {
      const btn = h("button", { type: "button", class: "sa-ex-rowtok", "data-i": i, tabindex: "-1" }, t);
      wireToken(btn, i);
      rowButtons.push(btn);
      return toks.map((_, j) => h("td", { "data-r": i, "data-c": j }));
    });
    const body = h("tbody", {}, ...cells.map((row, i) => h("tr", { "data-r": i },
      h("th", { scope: "row" }, rowButtons[i]), ...row)));
    table.replaceChildren(h("thead", {}, head), body);
  }

  function paint(el, w) {
    const rgb = colourOf(stops, w);
    el.style.backgroundColor = `rgb(${rgb.join(", ")})`;
    el.style.color = inkOn(rgb);
  }

  function render() {
    const toks = lab.tokens();
    cells.forEach((row, i) => row.forEach((td, j) => {
      const w = state.w[i][j];
      td.textContent = fmt(w, decimals);
      paint(td, w);
    }));
    caption.textContent = `Layer ${state.layer}, ${headName()}, temperature ${fmt(state.T, 2)}. `
      + "Row: the token that looks. Column: the token it looks at. Each row adds up to 1.";
    Object.assign(root.dataset, {
      sentence: String(state.sentence), layer: String(state.layer), head: state.head,
      temperature: String(state.T), tokens: String(toks.length),
    });
    showRow();
  }

  function showRow() {
    const r = lab.shownRow();
    const toks = lab.tokens();
    const row = state.w[r];
    stripButtons.forEach((btn, j) => {
      btn.querySelector(".sa-ex-w").textContent = fmt(row[j], decimals);
      paint(btn, row[j]);
      btn.classList.toggle("is-source", j === r);
      btn.setAttribute("aria-pressed", String(state.locked === j));
    });
    strip.setAttribute("aria-label", `Each token with the weight it receives from ${quote(toks[r])}`);
    rowButtons.forEach((btn, i) => btn.setAttribute("aria-pressed", String(state.locked === i)));
    table.querySelectorAll("tbody tr").forEach((tr, i) => tr.classList.toggle("is-shown", i === r));
    table.querySelectorAll("thead th[data-c]").forEach((th, j) => th.classList.toggle("is-source", j === r));
    stripTitle.textContent = `Row of ${quote(toks[r])}: the weight it gives to each token `
      + `(layer ${state.layer}, ${headName()}, T = ${fmt(state.T, 2)})`;
    const locked = state.locked !== null;
    lockText.textContent = locked ? `Locked on ${quote(toks[r])}.` : "Not locked: the row follows the pointer.";
    unlock.disabled = !locked;
    root.dataset.row = String(r);
    if (locked) root.dataset.locked = String(state.locked);
    else delete root.dataset.locked;
  }

  // "“it” gives the most weight to [CLS] 0.512, street 0.188 and the 0.050."
  function rowSentence() {
    const toks = lab.tokens();
    const parts = lab.top().map(([w, j]) => `${toks[j]} ${fmt(w, decimals)}`);
    return `${quote(toks[lab.shownRow()])} gives the most weight to ${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}.`;
  }
  const sayView = () => say(`Layer ${state.layer}, ${headName()}, temperature ${fmt(state.T, 2)}. ${rowSentence()}`);
  const sayUnlocked = () => {
    lab.unlock();
    showRow();
    say(`Unlocked. ${rowSentence()}`);
  };

  // --- Choosers, slider, buttons.
  sentenceSel.addEventListener("change", () => {
    lab.setSentence(Number(sentenceSel.value));
    buildSentence();
    render();
    say(`${sentences[state.sentence].text} ${lab.tokens().length} tokens. ${rowSentence()}`);
  });
  layerSel.addEventListener("change", () => { lab.setLayer(Number(layerSel.value)); render(); sayView(); });
  headSel.addEventListener("change", () => { lab.setHead(headSel.value); render(); sayView(); });
  slider.addEventListener("input", () => {
    lab.setTemperature(Number(slider.value));
    tempOut.textContent = fmt(state.T, 2);
    render();
  });
  slider.addEventListener("change", sayView);
  unlock.addEventListener("click", sayUnlocked);
  root.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && state.locked !== null) sayUnlocked();
  });
  reset.addEventListener("click", () => {
    lab.reset();
    sentenceSel.value = String(state.sentence);
    layerSel.value = String(state.layer);
    headSel.value = state.head;
    slider.value = String(state.T);
    tempOut.textContent = fmt(state.T, 2);
    buildSentence();
    render();
    say(`Back to the start. ${rowSentence()}`);
  });

  sentenceSel.value = String(state.sentence);
  layerSel.value = String(state.layer);
  headSel.value = state.head;
  buildSentence();
  render();
}
