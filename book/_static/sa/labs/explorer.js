// Lab "attention explorer" (chapter "Attention in a real model"): the
// attention weights of all-MiniLM-L6-v2 for a gallery of sentences, and for
// the reader's own. The page stores each gallery sentence's pre-softmax
// scores (each row minus its maximum, as float16, base64;
// booktools.labs.explorer). The reader's sentence is computed on "Compute"
// by the book's in-browser Python (explorer-compute.js, imported only then).
// The state and its maths live in explorer-state.js and ../maths.js, the
// heatmap as a file in explorer-export.js; this module is the view: it draws
// the state and turns choosers, pointer and keys into state changes. The
// browser tests compare what it shows with the package's numbers. Everything
// lives inside mount(): no globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet } from "../dom.js";
import { fmt } from "../format.js";
import { computedSentence, createState } from "./explorer-state.js";
import { colourOf, download, exportStem, heatmapPng, heatmapSvg, hexToRgb, inkOn } from "./explorer-export.js";

const quote = (t) => `“${t}”`;

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./explorer.css", import.meta.url));
  const { layers, heads, decimals, mean } = config;
  const temp = config.temperature;
  const stops = config.colours.map(hexToRgb);
  const id = root.id || "sa-explorer";
  const lab = createState(config);
  const { state, sentences } = lab;
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

  // --- The reader's own sentence (when the page configured "Compute").
  const compute = config.compute || null;
  const own = compute ? ownSentence() : null;
  const controls = h("div", { class: "sa-panel-controls sa-ex-controls" },
    h("div", { class: "sa-ex-group sa-ex-group-sentence" }, sentenceLabel, sentenceSel),
    ...(own ? [own.group] : []),
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
  // Focusable, so that keyboard users can scroll it on a narrow screen; on a phone its edge
  // fades where more of it lies beyond (sa-scroll-x: scrollables.js and sa.css).
  // A sentence longer than config.table_tokens is drawn on a canvas instead: a table of
  // thousands of cells takes the browser seconds to lay out, and the row of tokens above
  // (the strip) gives every number of the shown row anyway.
  const tableMax = config.table_tokens || 40;
  const canvas = h("canvas", { class: "sa-ex-canvas", role: "img", hidden: "" });
  const wrap = h("div", { class: "sa-ex-grid-wrap sa-scroll-x", tabindex: "0", role: "region",
    "aria-labelledby": caption.id }, table, canvas);
  const bigNote = h("p", { class: "sa-panel-hint sa-ex-big-note", hidden: "" });

  const unkNote = h("p", { class: "sa-ex-unk-note", hidden: "" },
    h("span", { class: "sa-ex-unk-mark" }, "[UNK]"),
    " marks a piece of text that the model's vocabulary cannot spell: the model sees only “unknown” there.");

  // --- Saving the heatmap on screen.
  const savePng = h("button", { type: "button", "data-action": "save-png" }, "Save as PNG");
  const saveSvg = h("button", { type: "button", "data-action": "save-svg" }, "Save as SVG");
  const saveBar = h("div", { class: "sa-ex-save" },
    h("span", { class: "sa-ex-field" }, "The heatmap as a file:"), savePng, saveSvg);

  const status = h("p", { class: "sa-panel-status sa-ex-status", role: "status", "aria-live": "polite" });
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-ex" }, controls, hint, stripTitle, strip, lockBar, unkNote, scale,
    caption, bigNote, wrap, saveBar, status));

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

  const big = () => lab.tokens().length > tableMax;

  function buildSentence() {
    const toks = lab.tokens();
    const unknown = new Set(lab.sentence().unknown || []);
    const unk = (i) => (unknown.has(i) ? " is-unk" : "");
    unkNote.hidden = unknown.size === 0;
    stripButtons = toks.map((t, i) => {
      const btn = h("button", { type: "button", class: `sa-ex-token${unk(i)}`, "data-i": i },
        h("span", { class: "sa-ex-tok" }, t), " ", h("span", { class: "sa-ex-w" }, ""));
      wireToken(btn, i);
      return btn;
    });
    strip.replaceChildren(...stripButtons);
    table.hidden = big();
    canvas.hidden = !big();
    bigNote.hidden = !big();
    if (big()) {
      bigNote.textContent = `With ${toks.length} tokens the table is drawn as a picture, without its numbers: `
        + "the row of tokens above gives every number of the row you point at, and Save as SVG writes them all. "
        + "Point at a row of the picture to show it; click to lock it.";
      canvas.setAttribute("aria-label", `Heatmap of ${toks.length} by ${toks.length} attention weights`);
      rowButtons = [];
      cells = [];
      table.replaceChildren();
      return;
    }
    const head = h("tr", {}, h("th", { scope: "col", class: "sa-ex-corner" },
      h("span", {}, "looks ↓"), h("span", {}, "at →")),
    ...toks.map((t, j) => h("th", { scope: "col", "data-c": j, class: unk(j).trim() },
      h("span", { class: "sa-ex-col" }, t))));
    rowButtons = [];
    cells = toks.map((t, i) => {
      const btn = h("button", { type: "button", class: `sa-ex-rowtok${unk(i)}`, "data-i": i, tabindex: "-1" }, t);
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

  // The heatmap as a picture (long sentences): cells, token labels and the shown row framed.
  function drawCanvas() {
    const toks = lab.tokens();
    const L = toks.length;
    const cell = 12;
    const ink = getComputedStyle(wrap).color;
    const ctx0 = canvas.getContext("2d");
    ctx0.font = "10px sans-serif";
    const label = Math.ceil(Math.max(...toks.map((t) => ctx0.measureText(t).width))) + 8;
    const width = label + L * cell + 4;
    const ratio = window.devicePixelRatio || 1;
    if (canvas.dataset.size !== `${L}:${label}:${ratio}`) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(width * ratio);
      canvas.style.width = `${width}px`;
      canvas.style.height = `${width}px`;
      canvas.dataset.size = `${L}:${label}:${ratio}`;
    }
    Object.assign(canvas.dataset, { label: String(label), cell: String(cell) });
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, width);
    ctx.font = "10px sans-serif";
    ctx.fillStyle = ink;
    ctx.textAlign = "end";
    toks.forEach((t, i) => ctx.fillText(t, label - 4, label + i * cell + cell - 2));
    toks.forEach((t, j) => {
      ctx.save();
      ctx.translate(label + j * cell + cell - 3, label - 4);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = "start";
      ctx.fillText(t, 0, 0);
      ctx.restore();
    });
    for (let i = 0; i < L; i++) {
      for (let j = 0; j < L; j++) {
        const rgb = colourOf(stops, state.w[i][j]);
        ctx.fillStyle = `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;
        ctx.fillRect(label + j * cell, label + i * cell, cell - 1, cell - 1);
      }
    }
    const r = lab.shownRow();
    ctx.lineWidth = 2;
    ctx.strokeStyle = "#000";
    ctx.strokeRect(label - 1, label + r * cell - 1, L * cell + 1, cell + 1);
    ctx.strokeStyle = "#fff";
    ctx.lineWidth = 1;
    ctx.strokeRect(label + 1, label + r * cell + 1, L * cell - 3, cell - 3);
  }

  function canvasRow(ev) {
    const label = Number(canvas.dataset.label);
    const cell = Number(canvas.dataset.cell);
    const y = ev.offsetY - label;
    const i = Math.floor(y / cell);
    return y >= 0 && i < lab.tokens().length ? i : null;
  }
  let pointed = null;
  canvas.addEventListener("pointermove", (ev) => {
    const i = canvasRow(ev);
    if (i === pointed) return;
    if (pointed !== null) lab.unpoint(pointed);
    pointed = i;
    if (i !== null) lab.point(i);
    showRow();
  });
  canvas.addEventListener("pointerleave", () => {
    if (pointed !== null) lab.unpoint(pointed);
    pointed = null;
    showRow();
  });
  canvas.addEventListener("click", (ev) => {
    const i = canvasRow(ev);
    if (i === null) return;
    const locked = lab.toggleLock(i);
    showRow();
    say(locked ? `Locked the row of ${quote(lab.tokens()[i])}. ${rowSentence()}` : `Unlocked. ${rowSentence()}`);
  });

  function render() {
    const toks = lab.tokens();
    cells.forEach((row, i) => row.forEach((td, j) => {
      const w = state.w[i][j];
      td.textContent = fmt(w, decimals);
      td.dataset.w = w.toFixed(7); // the unrounded weight, for a reader who inspects it (and the tests)
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
    if (big()) drawCanvas();
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

  // --- Saving: the weights on screen, drawn again as a file named after what it shows.
  const view = () => ({
    title: lab.sentence().text,
    subtitle: `all-MiniLM-L6-v2, layer ${state.layer}, ${headName()}, temperature ${fmt(state.T, 2)}. `
      + "Row: the token that looks; column: the token it looks at.",
    tokens: lab.tokens(), unknown: lab.sentence().unknown, w: state.w, decimals, stops,
  });
  const stem = () => exportStem(lab.sentence().text, state.layer, state.head, state.T,
    { mean, maxChars: config.stem_words || 40 });
  async function save(kind) {
    const name = `${stem()}.${kind}`;
    try {
      const blob = kind === "png" ? await heatmapPng(view())
        : new Blob([heatmapSvg(view())], { type: "image/svg+xml" });
      download(blob, name);
      say(`Saved the heatmap as ${name}.`);
    } catch (err) {
      say(`Could not save the heatmap: ${err && err.message ? err.message : err}`);
    }
  }
  savePng.addEventListener("click", () => save("png"));
  saveSvg.addEventListener("click", () => save("svg"));

  // --- "Compute": the text box, its buttons and messages. Built before the rest (it sits among the
  // controls); its handlers use the view's functions above only when the reader acts.
  function ownSentence() {
    const max = compute.max_tokens;
    const input = h("input", { type: "text", id: `${id}-text`, class: "sa-ex-text", autocomplete: "off",
      spellcheck: "false", enterkeyhint: "go", placeholder: "Type a sentence here",
      "aria-describedby": `${id}-own-note` });
    const go = h("button", { type: "button", "data-action": "compute", class: "sa-ex-compute" }, "Compute");
    const cancel = h("button", { type: "button", "data-action": "cancel", class: "sa-ex-cancel", hidden: "" },
      "Cancel");
    const progress = h("progress", { class: "sa-ex-progress", "aria-label": "Loading the book's Python and the model",
      hidden: "" });
    const progressText = h("span", { class: "sa-ex-progress-text", hidden: "" });
    const message = h("p", { class: "sa-ex-own-status", role: "status", "aria-live": "polite" });
    const note = h("p", { class: "sa-ex-own-note", id: `${id}-own-note` },
      `At most ${max} tokens, [CLS] and [SEP] included. The first Compute downloads the book's Python `
      + "and the model once (the megabytes show as they arrive); your browser keeps them, and on your next visit "
      + "Python starts from that copy as soon as you click in the box.");
    const group = h("div", { class: "sa-ex-group sa-ex-group-own" },
      h("label", { class: "sa-ex-field", for: input.id }, "Your own sentence"),
      h("div", { class: "sa-ex-own-row" }, input, go, cancel),
      h("div", { class: "sa-ex-progress-row" }, progress, progressText), message, note);

    let computer = null;
    let job = 0; // the Compute running now; a cancelled one's late answer is ignored
    let computed = 0;
    const tell = (text, kind = "", command = null) => {
      message.className = `sa-ex-own-status${kind ? ` is-${kind}` : ""}`;
      message.replaceChildren(text);
      if (command) message.append(" ", h("code", { class: "sa-ex-command" }, command));
    };
    const shellQuote = (text) => `"${text.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;
    const commandFor = (text) => `${compute.command} ${shellQuote(text || "Your sentence.")}`;
    const busy = (on) => {
      go.setAttribute("aria-disabled", String(on));
      cancel.hidden = !on;
      group.setAttribute("aria-busy", String(on));
      if (!on) progress.hidden = progressText.hidden = true;
    };
    const onProgress = (loaded, total) => {
      if (group.getAttribute("aria-busy") !== "true") return; // a warm-up, before any Compute: quiet
      progress.hidden = progressText.hidden = false;
      progress.max = total;
      progress.value = loaded;
      progressText.textContent = `${(loaded / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB`;
    };

    // A later visit: if the browser kept the runtime and the model, Python starts from the cache
    // as soon as the reader starts on the box (nothing is downloaded but two small manifests), so
    // Compute finds it up. On a first visit this asks no server at all.
    let warming = null;
    function warmUp() {
      if (warming || computer) return;
      warming = (async () => {
        const mod = await import("./explorer-compute.js");
        const known = mod.supported() ? await mod.cachedManifests(compute) : null;
        if (!known || computer) return;
        computer = mod.createComputer(compute, onProgress);
        root.dataset.warmUp = "started";
        await computer.warmUp(known);
        root.dataset.warmUp = "ready";
      })().catch(() => { root.dataset.warmUp = "failed"; });
    }
    async function maybeWarmUp() {
      if (warming || computer || !("caches" in window)) return;
      try {
        // The caches of explorer-compute.js (the model) and ../run/runtime.js (Python).
        if (await caches.has("sa-model") && await caches.has("sa-python-runtime")) warmUp();
      } catch {
        // no Cache API: nothing kept, nothing to warm
      }
    }

    async function run() {
      if (go.getAttribute("aria-disabled") === "true") return;
      const text = input.value.trim();
      if (!text) {
        tell("Type a sentence in the box first: it is empty.", "error");
        input.focus();
        return;
      }
      const words = text.split(/\s+/).length;
      if (words + 2 > max) {
        tell(`This sentence has ${words} words, so at least ${words + 2} tokens with [CLS] and [SEP]; `
          + `Compute takes at most ${max}. Shorten it (nothing is cut for you), or run the command-line explorer:`,
        "error", commandFor(text));
        return;
      }
      const mine = ++job;
      const t0 = performance.now();
      busy(true);
      try {
        const mod = await import("./explorer-compute.js");
        if (!mod.supported()) {
          tell("This browser cannot run the book's Python: it needs WebAssembly with exception references, "
            + "as in current Chrome, Edge and Firefox. The command-line explorer computes the same weights:",
          "error", commandFor(text));
          return;
        }
        if (!computer) computer = mod.createComputer(compute, onProgress);
        tell(computer.warm ? "Running the model…" : "Loading the book's Python and the model…");
        const answer = await computer.compute(text, () => {
          if (mine === job) {
            progress.hidden = progressText.hidden = true;
            tell("Running the model…");
          }
        });
        if (mine !== job) return;
        const t1 = performance.now();
        const index = lab.addSentence(computedSentence(text, answer));
        sentenceSel.append(h("option", { value: index }, `Yours: ${text}`));
        sentenceSel.value = String(index);
        buildSentence();
        render();
        const t2 = performance.now();
        await new Promise((resolve) => { requestAnimationFrame(() => setTimeout(resolve, 0)); }); // drawn
        const ms = performance.now() - t0;
        computed += 1;
        // How long it took, from the press to the heatmap on screen (tools/measure_explorer.py reads these).
        Object.assign(root.dataset, { computed: String(computed), computeMs: ms.toFixed(1),
          pythonMs: answer.pythonMs.toFixed(1), viewMs: (t2 - t1).toFixed(1),
          startMs: JSON.stringify(Object.fromEntries(Object.entries(answer.startup).map(([k, v]) => [k, Math.round(v)]))) });
        const unk = answer.unknown.length;
        tell(`Computed in ${ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`}: `
          + `${answer.tokens.length} tokens${unk ? `, ${unk} of them [UNK]` : ""}. It is now in the list of sentences.`,
        "ok");
        say(`${text} ${lab.tokens().length} tokens. ${rowSentence()}`);
      } catch (err) {
        if (mine !== job) return;
        if (err.kind === "input") {
          tell(`Not computed. ${err.message}`, "error", err.message.endsWith("explorer:") ? commandFor(text) : undefined);
        }
        else if (err.kind === "cancelled") tell("Cancelled. Press Compute to start again.");
        else tell(`Compute failed: ${err && err.message ? err.message : err}`, "error");
      } finally {
        if (mine === job) busy(false);
      }
    }

    go.addEventListener("click", run);
    input.addEventListener("focus", maybeWarmUp);
    go.addEventListener("pointerenter", maybeWarmUp);
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        ev.preventDefault();
        run();
      }
    });
    cancel.addEventListener("click", () => {
      job += 1;
      if (computer) computer.cancel();
      busy(false);
      tell("Cancelled. Press Compute to start again.");
      go.focus();
    });
    return { group, input };
  }

  sentenceSel.value = String(state.sentence);
  layerSel.value = String(state.layer);
  headSel.value = state.head;
  buildSentence();
  render();
}
