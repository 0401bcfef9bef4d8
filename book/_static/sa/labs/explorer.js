// Lab "attention explorer" (chapter "Attention in a real model"): the
// attention weights of all-MiniLM-L6-v2 for a gallery of sentences. The page
// stores each sentence's pre-softmax scores (each row minus its maximum, as
// float16, base64); this module recomputes softmax(scores / T) for the chosen
// layer and head, or the mean of the layer's per-head softmaxes. The browser
// tests compare what it shows with booktools.explorer's numbers for the same
// stored scores. Everything lives inside mount(): no globals.
import { h, loadStylesheet } from "../dom.js";
import { fmt } from "../format.js";

// IEEE 754 half precision -> double (exact).
function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

// Base64 of little-endian float16 numbers -> Float64Array.
function decodeScores(text) {
  const bin = atob(text);
  const view = new DataView(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) view.setUint8(i, bin.charCodeAt(i));
  const out = new Float64Array(bin.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = halfToNumber(view.getUint16(2 * i, true));
  return out;
}

// softmax(scores / T) of one head's (L, L) block starting at `offset`.
function softmaxRows(scores, offset, L, T) {
  const rows = [];
  for (let i = 0; i < L; i++) {
    const base = offset + i * L;
    const x = new Array(L);
    let peak = -Infinity;
    for (let j = 0; j < L; j++) {
      x[j] = scores[base + j] / T;
      if (x[j] > peak) peak = x[j];
    }
    let total = 0;
    for (let j = 0; j < L; j++) {
      x[j] = Math.exp(x[j] - peak);
      total += x[j];
    }
    rows.push(x.map((v) => v / total));
  }
  return rows;
}

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
  loadStylesheet(new URL("./explorer.css", import.meta.url));
  const { sentences, layers, heads, decimals, mean } = config;
  const temp = config.temperature;
  const stops = config.colours.map(hexToRgb);
  const id = root.id || "sa-explorer";
  const cache = new Map(); // sentence index -> Float64Array of its scores
  const state = {
    sentence: config.start.sentence, layer: config.start.layer, head: String(config.start.head),
    T: temp.value, locked: null, pointer: null, focused: null, w: null,
  };

  const scoresOf = (s) => {
    if (!cache.has(s)) cache.set(s, decodeScores(sentences[s].scores));
    return cache.get(s);
  };
  const tokens = () => sentences[state.sentence].tokens;
  const headName = () => (state.head === mean ? `average of ${heads} heads` : `head ${state.head}`);
  const shownRow = () => [state.locked, state.pointer, state.focused, sentences[state.sentence].focus]
    .find((v) => v !== null && v !== undefined);

  function weights() {
    const L = tokens().length;
    const sc = scoresOf(state.sentence);
    const block = (hd) => ((state.layer * heads + hd) * L * L);
    if (state.head !== mean) return softmaxRows(sc, block(Number(state.head)), L, state.T);
    const acc = Array.from({ length: L }, () => new Array(L).fill(0));
    for (let hd = 0; hd < heads; hd++) {
      softmaxRows(sc, block(hd), L, state.T).forEach((row, i) => row.forEach((v, j) => { acc[i][j] += v; }));
    }
    return acc.map((row) => row.map((v) => v / heads));
  }

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
  const controls = h("div", { class: "sa-ex-controls" },
    h("div", { class: "sa-ex-group sa-ex-group-sentence" }, sentenceLabel, sentenceSel),
    h("div", { class: "sa-ex-group" }, layerLabel, layerSel),
    h("div", { class: "sa-ex-group" }, headLabel, headSel),
    h("div", { class: "sa-ex-group sa-ex-group-temp" },
      h("label", { class: "sa-ex-field", for: slider.id }, "Temperature T"), slider, tempOut),
    reset);

  // --- The token strip: the shown row, as the sentence itself.
  const hintId = `${id}-hint`;
  const hint = h("p", { class: "sa-ex-hint", id: hintId },
    "Point at a token, or reach it with Tab, to see its row: the weights it gives to every token. ",
    "Click it (or press Enter) to lock that row; press Escape or “unlock” to let it follow again.");
  const stripTitle = h("p", { class: "sa-ex-strip-title" });
  const strip = h("div", { class: "sa-ex-strip", role: "group", "aria-describedby": hintId });
  const lockText = h("span", { class: "sa-ex-lock-text" });
  const unlock = h("button", { type: "button", "data-action": "unlock", class: "sa-ex-unlock" }, "unlock");
  const lockBar = h("div", { class: "sa-ex-lockbar" }, lockText, unlock);

  // --- The colour scale, labelled 0 to 1.
  const gradient = `linear-gradient(to right, ${config.colours.join(", ")})`;
  const bar = h("span", { class: "sa-ex-scale-bar", "aria-hidden": "true" });
  bar.style.backgroundImage = gradient;
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

  const status = h("p", { class: "sa-ex-status", role: "status", "aria-live": "polite" });
  root.querySelector(".sa-lab-fallback")?.remove();
  root.append(h("div", { class: "sa-ex" }, controls, hint, stripTitle, strip, lockBar, scale, caption, wrap,
    status));

  const say = (text) => { status.textContent = text; };

  // --- Token interactions, shared by the strip and the heatmap's row labels.
  function wireToken(btn, i) {
    btn.addEventListener("pointerenter", () => { state.pointer = i; showRow(); });
    btn.addEventListener("pointerleave", () => { if (state.pointer === i) state.pointer = null; showRow(); });
    btn.addEventListener("focus", () => { state.focused = i; showRow(); if (state.locked === null) sayRow(); });
    btn.addEventListener("blur", () => { if (state.focused === i) state.focused = null; showRow(); });
    btn.addEventListener("click", () => {
      if (state.locked === i) {
        state.locked = null;
        showRow();
        say(`Unlocked. ${rowSentence()}`);
      } else {
        state.locked = i;
        showRow();
        say(`Locked the row of ${quote(tokens()[i])}. ${rowSentence()}`);
      }
    });
  }

  let stripButtons = [];
  let rowButtons = [];
  let cells = [];

  function buildSentence() {
    const toks = tokens();
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
    state.w = weights();
    const toks = tokens();
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
    const r = shownRow();
    const toks = tokens();
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
    const r = shownRow();
    const toks = tokens();
    const top = state.w[r].map((w, j) => [w, j]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, 3);
    const parts = top.map(([w, j]) => `${toks[j]} ${fmt(w, decimals)}`);
    return `${quote(toks[r])} gives the most weight to ${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}.`;
  }
  const sayRow = () => say(rowSentence());
  const sayView = () => say(`Layer ${state.layer}, ${headName()}, temperature ${fmt(state.T, 2)}. ${rowSentence()}`);

  // --- Choosers, slider, buttons.
  function setSentence(s) {
    state.sentence = s;
    state.locked = state.pointer = state.focused = null;
    buildSentence();
  }
  sentenceSel.addEventListener("change", () => {
    setSentence(Number(sentenceSel.value));
    render();
    say(`${sentences[state.sentence].text} ${tokens().length} tokens. ${rowSentence()}`);
  });
  layerSel.addEventListener("change", () => { state.layer = Number(layerSel.value); render(); sayView(); });
  headSel.addEventListener("change", () => { state.head = headSel.value; render(); sayView(); });
  slider.addEventListener("input", () => {
    state.T = Number(slider.value);
    tempOut.textContent = fmt(state.T, 2);
    render();
  });
  slider.addEventListener("change", sayView);
  unlock.addEventListener("click", () => {
    state.locked = null;
    showRow();
    say(`Unlocked. ${rowSentence()}`);
  });
  root.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape" || state.locked === null) return;
    state.locked = null;
    showRow();
    say(`Unlocked. ${rowSentence()}`);
  });
  reset.addEventListener("click", () => {
    state.layer = config.start.layer;
    state.head = String(config.start.head);
    state.T = temp.value;
    sentenceSel.value = String(config.start.sentence);
    layerSel.value = String(state.layer);
    headSel.value = state.head;
    slider.value = String(temp.value);
    tempOut.textContent = fmt(temp.value, 2);
    setSentence(config.start.sentence);
    render();
    say(`Back to the start. ${rowSentence()}`);
  });

  sentenceSel.value = String(state.sentence);
  layerSel.value = String(state.layer);
  headSel.value = state.head;
  setSentence(state.sentence);
  render();
}
