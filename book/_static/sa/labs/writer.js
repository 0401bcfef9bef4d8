// Lab "writer" (chapter "A model that writes"): the trained writer continues the reader's prompt, one
// character at a time. The weights are not in the page: "Load the model" fetches them, from this site,
// only when pressed (the lab's second data block, which the build moved to its own file). Any text may
// be typed: a character the model never saw becomes the unknown symbol and shows as such. "Write one"
// (or Enter in the prompt) and "Write 40" (a Stop while it writes) draw each character from
// maths.js's nextDistribution (temperature, 0 greedy; top-k, 0 for all; top-p, 1 for all) with this
// browser's seeded generator, which is not NumPy's. Each step shows the five likeliest characters and
// where the newest character's query looks in the layer and head picked. A switch keeps a KV cache or
// not (maths.js's writerRead mirrors selfattention.writer.write: past the context the cache is filled
// again at every step), and each step is timed (performance.now; the median with and without the cache).
// The page computes the config with booktools.labs.writer, whose fixture the browser tests compare with.
//
// For tests, after each step the element dispatches an "sa-writer" event: detail {step, read (the ids
// the model read), token, probs (the distribution drawn from), model (softmax of the logits), weights
// ([layer][head][S]), mode ("row", "prefill" or "full"), ms, text}; its data-state says where it is.
// No globals.
import { CONFIG_SELECTOR, CONFIG_SRC_ATTR, removeFallback } from "../contract.js";
import { h, loadStylesheet, setDisabled } from "../dom.js";
import { fmt, formatCount } from "../format.js";
import { softmax } from "../maths.js";
import { drawIndex, nextDistribution, probabilityOrder, writerCache, writerParams, writerRead } from "../writer-maths.js";

const EVENT = "sa-writer";

// A seeded generator of uniform numbers in [0, 1) with 53 random bits: two draws of mulberry32.
function seededUniform(seed) {
  let state = seed >>> 0;
  const next32 = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return () => (next32() * 2 ** 21 + (next32() >>> 11)) / 2 ** 53;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const milliseconds = (ms) => `${fmt(ms, ms < 10 ? 1 : 0)} ms`;

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./writer.css", import.meta.url));
  const { chars, unknown, sizes, shapes, lnEps, defaults, decimals, top, batch, maxTemperature, maxSeed } = config;
  const id = root.id || "writer-lab";
  const symbols = [...chars, unknown]; // id i is symbols[i]; the unknown id is the last
  const unknownId = symbols.length - 1;
  const index = new Map([...chars].map((c, i) => [c, i]));
  const encode = (text) => [...text].map((c) => index.get(c) ?? unknownId);
  const decode = (ids) => ids.map((t) => symbols[t]).join("");
  const glyph = (t) => ({ " ": "␣", "\n": "↵" })[symbols[t]] ?? symbols[t];
  const spoken = (t) => (t === unknownId ? "unknown symbol" : ({ " ": "space", "\n": "new line" })[symbols[t]] ?? symbols[t]);
  const kb = Math.round(config.weightsBytes / 1000);
  const weightsBlock = root.querySelectorAll(CONFIG_SELECTOR)[1];

  // --- Controls, in the order the keyboard meets them.
  const load = h("button", { type: "button", "data-action": "load" }, `Load the model, ${kb} kB`);
  const loaded = h("span", { class: "sa-writer-loaded", "data-part": "loaded" }, "Not loaded yet.");
  const prompt = h("input", { type: "text", id: `${id}-prompt`, "data-part": "prompt", autocomplete: "off",
    autocapitalize: "off", spellcheck: "false", value: defaults.prompt, "aria-describedby": `${id}-unknown` });
  const writeOne = h("button", { type: "button", "data-action": "one" }, "Write one");
  const writeMany = h("button", { type: "button", "data-action": "many" }, `Write ${batch}`);
  const reset = h("button", { type: "button", "data-action": "reset" }, "Reset");
  const field = (name, label, attrs) => {
    const input = h("input", { type: "number", id: `${id}-${name}`, "data-part": name, ...attrs });
    return [input, h("div", { class: "sa-writer-setting" }, h("label", { for: input.id }, label), input)];
  };
  const [temperature, temperatureField] = field("temperature", "Temperature (0: greedy)",
    { min: "0", max: String(maxTemperature), step: "0.1", inputmode: "decimal", value: String(defaults.temperature) });
  const [topK, topKField] = field("top-k", "Top-k (0: all)",
    { min: "0", max: String(sizes.vocab), step: "1", inputmode: "numeric", value: String(defaults.topK) });
  const [topP, topPField] = field("top-p", "Top-p (1: all)",
    { min: "0", max: "1", step: "0.05", inputmode: "decimal", value: String(defaults.topP) });
  const [seedBox, seedField] = field("seed", "Seed",
    { min: "0", max: String(maxSeed), step: "1", inputmode: "numeric", value: String(defaults.seed) });
  const cacheSwitch = h("input", { type: "checkbox", role: "switch", "data-part": "cache" });
  cacheSwitch.checked = true;
  const pick = (name, label, count, value) => {
    const select = h("select", { id: `${id}-${name}`, "data-part": name },
      ...Array.from({ length: count }, (_, i) => h("option", { value: String(i) }, String(i))));
    select.value = String(value);
    return [select, h("span", { class: "sa-writer-pick" }, h("label", { for: select.id }, label), select)];
  };
  const [layerPick, layerField] = pick("layer", "Layer", sizes.layers, defaults.layer);
  const [headPick, headField] = pick("head", "Head", sizes.heads, defaults.head);

  // --- What the lab shows.
  const shownPrompt = h("span", { class: "sa-writer-prompt" });
  const shownWritten = h("span", { class: "sa-writer-written", "data-part": "written" });
  const text = h("p", { class: "sa-writer-text", "data-part": "text" }, shownPrompt, shownWritten);
  const unknownNote = h("p", { class: "sa-panel-hint", id: `${id}-unknown`, "data-part": "unknown" });
  const windowNote = h("p", { class: "sa-writer-window", "data-part": "window" });
  const candidates = h("table", { class: "sa-writer-top", "data-part": "candidates" });
  const cells = h("div", { class: "sa-writer-cells", role: "list", "data-part": "weights" });
  const most = h("p", { class: "sa-writer-most", "data-part": "most" });
  const timing = h("p", { class: "sa-writer-timing", "data-part": "timing" });
  const status = h("p", { class: "sa-panel-status", role: "status", "aria-live": "polite" });
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-writer" },
    h("div", { class: "sa-panel-controls" }, load, loaded),
    h("p", { class: "sa-panel-hint" },
      `The model's ${formatCount(config.parameters)} numbers come from this site when you press Load, not before.`),
    h("div", { class: "sa-writer-field" }, h("label", { for: prompt.id }, "Your prompt"), prompt),
    unknownNote,
    h("div", { class: "sa-panel-buttons sa-writer-actions" }, writeOne, writeMany, reset),
    h("fieldset", { class: "sa-writer-settings" }, h("legend", {}, "How the next character is chosen"),
      h("div", { class: "sa-writer-grid" }, temperatureField, topKField, topPField, seedField,
        h("label", { class: "sa-writer-switch" }, cacheSwitch, "KV cache"))),
    h("p", { class: "sa-panel-hint" },
      "A seed repeats this browser's draws for the same prompt and settings; they are not NumPy's draws."),
    text, windowNote, candidates,
    h("div", { class: "sa-writer-attention" },
      h("p", { class: "sa-writer-attention-title" }, "Where the last character read looks"),
      h("div", { class: "sa-writer-picks" }, layerField, headField),
      cells, most),
    timing, status));

  // --- State.
  let params = null;
  let ids = [];
  let promptLength = 0;
  let written = 0;
  let cache = writerCache(sizes);
  let uniform = seededUniform(defaults.seed);
  let last = null;
  let running = false;
  let generation = 0; // counts restarts: a run of Write 40 stops when the text starts again
  const times = { row: [], prefill: [], full: [] }; // by how each step read: one new row, the cache filled, no cache

  function setState(state) { root.dataset.state = state; }

  // Each number field: what it accepts, and what the status says when it holds something else.
  const rules = new Map([
    [temperature, [(v) => v >= 0 && v <= maxTemperature, `The temperature is 0 (greedy) to ${maxTemperature}.`]],
    [topK, [(v) => Number.isInteger(v) && v >= 0 && v <= sizes.vocab, `Top-k is a whole number from 0 (all) to ${sizes.vocab}.`]],
    [topP, [(v) => v > 0 && v <= 1, "Top-p is above 0 and at most 1 (all)."]],
    [seedBox, [(v) => Number.isInteger(v) && v >= 0 && v <= maxSeed, `The seed is a whole number from 0 to ${formatCount(maxSeed)}.`]],
  ]);

  // A number field's value, or null if it is not one the lab takes: then the field is marked and, when
  // `tell`, the status says why and the focus goes to the field.
  function number(input, tell = true) {
    const [ok, message] = rules.get(input);
    const value = input.value.trim() === "" ? NaN : Number(input.value);
    const good = Number.isFinite(value) && ok(value);
    input.setAttribute("aria-invalid", String(!good));
    if (!good && tell) { status.textContent = message; input.focus(); }
    return good ? value : null;
  }

  function restart() {
    generation += 1;
    if (running) status.textContent = "The text changed, so writing stopped.";
    running = false;
    ids = encode(prompt.value);
    promptLength = ids.length;
    written = 0;
    cache = writerCache(sizes);
    uniform = seededUniform(number(seedBox, false) ?? defaults.seed);
    last = null;
  }

  function readSettings() {
    const [t, k, p, s] = [temperature, topK, topP, seedBox].map((input) => number(input, false));
    const bad = [[temperature, t], [topK, k], [topP, p], [seedBox, s]].find(([, v]) => v === null);
    if (bad) { number(bad[0]); return null; }
    return { temperature: t, topK: k === 0 ? null : k, topP: p === 1 ? null : p };
  }

  // One character: read, choose, draw, timed.
  function step(settings) {
    const useCache = cacheSwitch.checked;
    const t0 = performance.now();
    const read = writerRead(params, sizes, useCache ? cache : null, ids, lnEps);
    const probs = nextDistribution(read.logits, settings);
    const token = drawIndex(probs, uniform());
    const ms = performance.now() - t0;
    times[read.mode].push(ms);
    const window = ids.slice(-sizes.nPositions);
    last = { ...read, probs, model: softmax(read.logits), token, window, total: ids.length };
    ids.push(token);
    written += 1;
    root.dispatchEvent(new CustomEvent(EVENT, { detail: { step: written - 1, read: window, token,
      probs: Array.from(probs), model: Array.from(last.model), mode: read.mode, ms, text: decode(ids),
      weights: read.weights.map((layer) => layer.map((w) => Array.from(w))) } }));
  }

  function renderText() {
    shownPrompt.textContent = decode(ids.slice(0, promptLength));
    shownWritten.textContent = decode(ids.slice(promptLength));
    const strange = ids.slice(0, promptLength).filter((t) => t === unknownId).length;
    unknownNote.textContent = strange === 0 ? ""
      : `${strange === 1 ? "1 character" : `${strange} characters`} the model never saw ${strange === 1 ? "reads" : "read"} as ${unknown}.`;
    const n = sizes.nPositions;
    windowNote.textContent = ids.length <= n ? `The model reads all ${ids.length} characters (at most ${n}).`
      : `The model reads the last ${n} of ${ids.length} characters: each moves to a new position at every step, so the cache is filled again each time.`;
  }

  function renderCandidates() {
    if (!last) { candidates.replaceChildren(); candidates.hidden = true; return; }
    candidates.hidden = false;
    const order = probabilityOrder(last.model).slice(0, top); // the likeliest: the same order as the drawn-from distribution
    if (!order.includes(last.token)) order.push(last.token);
    candidates.replaceChildren(
      h("caption", {}, `Character ${last.total + 1}: the likeliest, and the one drawn`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Next"), h("th", { scope: "col" }, "Drawn from"),
        h("th", { scope: "col" }, "Model (T = 1)"))),
      h("tbody", {}, ...order.map((t) => h("tr", { class: t === last.token ? "sa-writer-drawn" : "", "data-id": String(t) },
        h("th", { scope: "row", "aria-label": t === last.token ? `${spoken(t)}, drawn` : spoken(t) },
          h("span", { class: "sa-writer-char" }, glyph(t)),
          t === last.token ? h("span", { class: "sa-writer-tag" }, " drawn") : ""),
        h("td", { "data-part": "p" }, fmt(last.probs[t], decimals)),
        h("td", {}, fmt(last.model[t], decimals))))));
  }

  function renderAttention() {
    if (!last) {
      cells.replaceChildren();
      most.textContent = "Write a character to see where the newest one looks.";
      return;
    }
    const layer = Number(layerPick.value);
    const head = Number(headPick.value);
    const w = last.weights[layer][head];
    cells.setAttribute("aria-label", `Weights of layer ${layer}, head ${head}, over the ${w.length} characters read`);
    cells.replaceChildren(...Array.from(w, (v, j) => h("span", {
      class: "sa-writer-cell", role: "listitem", "data-pos": String(j), "data-w": String(v), style: `--w: ${v.toFixed(3)}`,
      "aria-label": `${spoken(last.window[j])}, position ${j}: ${fmt(v, decimals)}`, title: fmt(v, decimals),
    }, glyph(last.window[j]))));
    const best = probabilityOrder(w).slice(0, 3);
    most.textContent = `Most weight: ${best.map((j) => `${glyph(last.window[j])} at ${j} (${fmt(w[j], decimals)})`).join(", ")}.`;
  }

  function renderTiming() {
    const part = (name, list) => (list.length ? `${name} ${milliseconds(median(list))} (median of ${list.length})` : null);
    const parts = [part("with the cache", times.row), part("filling the cache", times.prefill),
      part("without", times.full)].filter(Boolean);
    timing.textContent = parts.length ? `Time per character: ${parts.join("; ")}.` : "Time per character: not measured yet.";
  }

  function render() {
    root.dataset.written = String(written);
    const off = !params || running;
    writeOne.setAttribute("aria-disabled", String(off));
    writeMany.setAttribute("aria-disabled", String(!params));
    writeMany.textContent = running ? "Stop" : `Write ${batch}`;
    renderText();
    renderCandidates();
    renderAttention();
    renderTiming();
  }

  const quote = (s) => `“${s}”`;

  function notReady() {
    if (!params) { status.textContent = "Load the model first."; return true; }
    if (!ids.length) { status.textContent = "Type at least one character."; prompt.focus(); return true; }
    return false;
  }

  function one() {
    if (running || notReady()) return;
    const settings = readSettings();
    if (!settings) return;
    step(settings);
    render();
    status.textContent = `Wrote ${quote(spoken(last.token))}, probability ${fmt(last.probs[last.token], decimals)}.`;
  }

  async function many() {
    if (running) { running = false; return; }
    if (notReady()) return;
    const settings = readSettings();
    if (!settings) return;
    running = true;
    setState("writing");
    const from = ids.length;
    const mine = generation;
    render();
    for (let i = 0; i < batch && running && mine === generation; i += 1) {
      step(settings);
      render();
      await new Promise((resolve) => (document.hidden ? setTimeout(resolve, 0) : requestAnimationFrame(() => resolve())));
    }
    setState("ready");
    if (mine !== generation) return; // the text started again: restart() has said so
    running = false;
    render();
    const n = ids.length - from;
    status.textContent = `Wrote ${n === 1 ? "1 character" : `${n} characters`}: ${quote(decode(ids.slice(from)))}.`;
  }

  async function fetchWeights() {
    const src = weightsBlock?.getAttribute(CONFIG_SRC_ATTR);
    if (!src) return JSON.parse(weightsBlock.textContent); // a build that kept the block in the page
    const response = await fetch(new URL(src, document.baseURI));
    if (!response.ok) throw new Error(`${src}: ${response.status}`);
    return response.json();
  }

  load.addEventListener("click", async () => {
    if (params || root.dataset.state === "loading") return;
    setState("loading");
    load.setAttribute("aria-disabled", "true");
    loaded.textContent = "Loading…";
    try {
      const t0 = performance.now();
      const stored = await fetchWeights();
      params = writerParams(stored.params, shapes);
      loaded.textContent = `Loaded: ${formatCount(config.parameters)} numbers, ${kb} kB.`;
      status.textContent = `The model is loaded (${milliseconds(performance.now() - t0)}). Press Write one.`;
      setDisabled(load, true, writeOne);
      setState("ready");
    } catch (err) {
      load.setAttribute("aria-disabled", "false");
      loaded.textContent = "Not loaded.";
      status.textContent = `The model could not be loaded (${err.message}). Try again.`;
      setState("idle");
    }
    render();
  });
  writeOne.addEventListener("click", one);
  writeMany.addEventListener("click", many);
  prompt.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); one(); } });
  prompt.addEventListener("input", () => { restart(); render(); });
  seedBox.addEventListener("change", () => {
    const seed = number(seedBox, false);
    if (seed === null) { status.textContent = rules.get(seedBox)[1]; return; }
    uniform = seededUniform(seed);
    status.textContent = `Seed ${seed}: the draws start again from it.`;
  });
  for (const input of [temperature, topK, topP]) {
    input.addEventListener("change", () => { if (number(input, false) === null) status.textContent = rules.get(input)[1]; });
  }
  cacheSwitch.addEventListener("change", () => {
    status.textContent = cacheSwitch.checked ? "KV cache on: the next step fills it, then each step feeds one character."
      : "KV cache off: each step reads every character again.";
  });
  layerPick.addEventListener("change", renderAttention);
  headPick.addEventListener("change", renderAttention);
  reset.addEventListener("click", () => {
    restart();
    render();
    status.textContent = "Back to the prompt; the seed's draws start again.";
  });

  setState("idle");
  restart();
  render();
}
