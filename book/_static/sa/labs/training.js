// Lab "training" (chapter "Two heads that learned to copy"): the reader trains the chapter's
// copying model live, with the package's own stepper (selfattention.induction.training.Run)
// running in the book's in-browser Python (../run/runtime.js) in a Worker of this lab's own.
// Nothing is downloaded before the first press of Train. Python then trains for about
// config.budget seconds per message and answers with the steps' losses and any checkpoint's
// scores, so Pause answers within a fraction of a second and the page stays responsive.
// The lab draws (SVG) the losses of the repeated part and of the rest against the step, and
// every head's previous-token and induction scores at each checkpoint, and marks the step where
// the heads have formed by the rule the lab states (config.formed). The configuration, with the
// Python the lab runs (config.code), comes from booktools.labs.training. No globals.
//
// For tests and benchmarks, after each message the element dispatches an "sa-training" event:
// detail {run, seed, design, steps: [[step, loss, repeated, rest], ...], checkpoints: [...],
// seconds} (what that message added; run counts Train and Restart), and its data-state,
// data-step and data-formed say where it is.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet, s, setDisabled } from "../dom.js";
import { fmt, formatCount } from "../format.js";

const SITE = new URL("../../../", import.meta.url); // the site's root
const RUNTIME_DIR = "_static/sa/run/runtime/"; // booksite.runcells.SITE_DIR, as in explorer-compute.js
const EVENT = "sa-training";
// WebAssembly with exception references (exnref), which the runtime needs (as in run.js).
const EXNREF_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 105, 3, 2, 1, 0,
  10, 6, 1, 4, 0, 208, 105, 11]);
const MOST_POINTS = 400; // points of a drawn line: a long run is sampled
// Each plot's widest and height, in CSS pixels: its viewBox follows its width on the page (so its
// text stays 13 px on a phone too), from MIN_WIDTH to the widest.
const PLOT = { loss: [700, 230], score: [440, 210] };
const MIN_WIDTH = 240;
const M = { left: 46, right: 12, top: 12, bottom: 38 }; // room for the axes' labels

function supported() {
  return typeof WebAssembly === "object" && typeof Worker === "function"
    && typeof DecompressionStream === "function" && typeof WebAssembly.validate === "function"
    && WebAssembly.validate(EXNREF_PROBE);
}

// The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is at least n.
function niceAbove(n) {
  const p = 10 ** Math.floor(Math.log10(Math.max(n, 1)));
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

// Ticks from 0 to top, at most about five intervals.
function ticks(top) {
  const p = 10 ** Math.floor(Math.log10(top));
  const every = [0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10].map((m) => m * p).find((e) => top / e <= 5) || top;
  const out = [];
  for (let t = 0; t <= top + 1e-9; t += every) out.push(t);
  return out;
}

// One plot: axes, horizontal guides, lines and dots, vertical marks.
function plot(kind, { yTop, yTicks, yDecimals, yLabel }) {
  const [widest, H] = PLOT[kind];
  let W = widest;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: `sa-train-svg sa-train-svg-${kind}`, role: "img",
    style: `max-width: ${widest}px` });
  const axes = s("g");
  const drawn = s("g");
  svg.append(axes, drawn);
  const px = (x, xTop) => M.left + (x / xTop) * (W - M.left - M.right);
  const py = (y) => H - M.bottom - (Math.min(Math.max(y, 0), yTop) / yTop) * (H - M.top - M.bottom);
  const path = (points, xTop) => points
    .map(([x, y], i) => `${i ? "L" : "M"}${px(x, xTop).toFixed(1)} ${py(y).toFixed(1)}`).join("");

  function draw({ xTop, lines = [], dots = [], guides = [], marks = [] }) {
    const x0 = M.left;
    const y0 = H - M.bottom;
    axes.replaceChildren(s("path", { class: "sa-train-axes", d: `M${x0} ${M.top}V${y0}H${W - M.right}` }));
    for (const t of ticks(xTop)) {
      const end = t >= xTop; // the last label ends at its tick, inside the drawing
      axes.append(s("line", { class: "sa-train-tick", x1: px(t, xTop), x2: px(t, xTop), y1: y0, y2: y0 + 4 }),
        s("text", { class: "sa-train-label", x: px(t, xTop), y: y0 + 17, "text-anchor": end ? "end" : "middle" },
          formatCount(t)));
    }
    for (const t of yTicks) {
      axes.append(s("line", { class: "sa-train-tick", x1: x0 - 4, x2: x0, y1: py(t), y2: py(t) }),
        s("text", { class: "sa-train-label", x: x0 - 7, y: py(t) + 4, "text-anchor": "end" }, fmt(t, yDecimals)));
    }
    const yMid = (M.top + y0) / 2;
    axes.append(s("text", { class: "sa-train-label", x: (x0 + W - M.right) / 2, y: H - 3, "text-anchor": "middle" },
      "step"), s("text", { class: "sa-train-label", x: 11, y: yMid, "text-anchor": "middle",
      transform: `rotate(-90 11 ${yMid})` }, yLabel));
    drawn.replaceChildren();
    for (const g of guides) {
      drawn.append(s("line", { class: `sa-train-guide ${g.cls || ""}`, x1: x0, x2: W - M.right, y1: py(g.y),
        y2: py(g.y) }), s("text", { class: "sa-train-label sa-train-halo", x: W - M.right - 4, y: py(g.y) - 5,
        "text-anchor": "end" }, g.label));
    }
    for (const m of marks) {
      drawn.append(s("line", { class: "sa-train-mark", x1: px(m.x, xTop), x2: px(m.x, xTop), y1: M.top, y2: y0 }),
        s("text", { class: "sa-train-label sa-train-halo", x: px(m.x, xTop) + 4, y: M.top + 12 }, m.label));
    }
    for (const l of lines) {
      if (l.points.length) drawn.append(s("path", { class: `sa-train-line ${l.cls}`, d: path(l.points, xTop) }));
    }
    for (const d of dots) {
      const g = s("g", { class: `sa-train-dots ${d.cls}` });
      for (const [x, y] of d.points) {
        g.append(s("circle", { cx: px(x, xTop).toFixed(1), cy: py(y).toFixed(1), r: 2.6 }));
      }
      drawn.append(g);
    }
  }
  // The width the plot has on the page; true if its drawing must change.
  function fit(width) {
    const w = Math.round(Math.min(Math.max(width, MIN_WIDTH), widest));
    if (w === W) return false;
    W = w;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    return true;
  }
  return { svg, draw, fit };
}

// A legend: one item per series, a short stroke drawn as the series is, then its name.
function legend(items) {
  return h("ul", { class: "sa-train-legend" }, ...items.map(([cls, name, dot]) => h("li", {},
    s("svg", { viewBox: "0 0 28 10", class: "sa-train-swatch", "aria-hidden": "true" },
      dot ? s("circle", { class: `sa-train-dots ${cls}`, cx: 14, cy: 5, r: 3 })
        : s("path", { class: `sa-train-line ${cls}`, d: "M1 5H27" })), name)));
}

// Points of a long series, sampled to at most MOST_POINTS (the last one always kept).
function sampled(points) {
  if (points.length <= MOST_POINTS) return points;
  const stride = Math.ceil(points.length / MOST_POINTS);
  const out = points.filter((_, i) => i % stride === 0);
  if (out.at(-1) !== points.at(-1)) out.push(points.at(-1));
  return out;
}

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./training.css", import.meta.url));
  const { every, heads, formed, budget, decimals, designs, code } = config;
  const last = config.steps;
  const id = root.id || "train-lab";
  const names = heads.flatMap((n, layer) => Array.from({ length: n }, (_, a) => `${layer}.${a}`));
  const label = Object.fromEntries(designs);

  // --- Controls.
  const train = h("button", { type: "button", "data-action": "train" }, "Train");
  const restart = h("button", { type: "button", "data-action": "restart" }, "Restart");
  restart.disabled = true;
  const seedBox = h("input", { type: "text", id: `${id}-seed`, class: "sa-train-seed-box", inputmode: "numeric",
    autocomplete: "off", spellcheck: "false", value: String(config.seed), "aria-describedby": `${id}-help` });
  const radios = designs.map(([value, text]) => {
    const input = h("input", { type: "radio", name: `${id}-design`, value });
    input.checked = value === config.design;
    return h("label", { class: "sa-train-design-choice" }, input, h("span", {}, text));
  });
  const design = h("fieldset", { class: "sa-train-design" }, h("legend", {}, "Positions enter"), ...radios);
  const help = h("p", { class: "sa-panel-hint", id: `${id}-help` },
    "The first Train downloads the book's Python from this site (once: the browser keeps it). A seed is a whole "
    + `number from 0 to ${formatCount(config.max_seed)}; a new seed or design takes effect when you press Restart.`);

  // --- Where the run is (not announced at every step), and what changed (announced).
  const facts = {};
  const factList = h("dl", { class: "simple sa-train-facts" }, ...[["step", "Step"], ["time", "Training time"],
    ["pace", "Per step"], ["formed", "Heads formed"]].flatMap(([key, name]) => {
    facts[key] = h("dd", { "data-fact": key });
    return [h("div", {}, h("dt", {}, name), facts[key])];
  }));
  const bar = h("progress", { max: "1", value: "0", "aria-label": "Python's download" });
  const bytes = h("span", { class: "sa-train-bytes" });
  const progress = h("p", { class: "sa-train-progress", hidden: "" }, bar, bytes);
  const status = h("p", { class: "sa-panel-status sa-train-status", role: "status", "aria-live": "polite" });

  // --- The plots.
  const yLoss = Math.ceil(config.guess + 1);
  const lossPlot = plot("loss", { yTop: yLoss, yTicks: ticks(yLoss), yDecimals: 0, yLabel: "loss" });
  const prevPlot = plot("score", { yTop: 1, yTicks: [0, 0.5, 1], yDecimals: 1, yLabel: "previous-token score" });
  const indPlot = plot("score", { yTop: 1, yTicks: [0, 0.5, 1], yDecimals: 1, yLabel: "induction score" });
  const headKeys = names.map((name, i) => [`sa-train-h${i}`, `head ${name}`]);
  const figure = (title, p, extra) => h("figure", { class: "sa-train-figure" },
    h("figcaption", {}, title), p.svg, extra || "");
  const rule = h("p", { class: "sa-panel-hint sa-train-rule" },
    `The lab's rule: the heads have formed at the first checkpoint (every ${every} steps) where a head of the `
    + `last layer has an induction score of at least ${fmt(formed, 1)}, the classic test's target: it puts `
    + `${Math.round(100 * formed)}% of its weight or more on the letter that followed the earlier copy of the `
    + "current one. The scores and the held-out loss are measured on a fixed set of classic-test sequences, "
    + "in which a random segment is repeated at once.");

  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-train" },
    h("div", { class: "sa-panel-controls" },
      h("div", { class: "sa-panel-buttons" }, train, restart),
      h("div", { class: "sa-train-seed" }, h("label", { for: `${id}-seed` }, "Seed"), seedBox)),
    design, help, progress, factList, status,
    h("div", { class: "sa-train-plots" },
      figure(`Loss of each step's batch (lines: mean of the last ${every} steps; faint: each step)`, lossPlot,
        legend([["sa-train-rep", "repeated part (a copy determines it)"], ["sa-train-rest", "the rest"],
          ["sa-train-held", "held-out repeated part, at checkpoints", true],
          ["sa-train-guess", `ln ${config.vocab}: a uniform guess`]])),
      figure("Previous-token score of each head", prevPlot),
      figure("Induction score of each head", indPlot),
      legend(headKeys)),
    rule));

  // Each plot draws itself at the width it has: again when the page's width changes.
  const plots = [lossPlot, prevPlot, indPlot];
  if (typeof ResizeObserver === "function") {
    const watch = new ResizeObserver((entries) => {
      let changed = false;
      for (const e of entries) changed = plots[Number(e.target.dataset.plot)].fit(e.contentRect.width) || changed;
      if (changed) render();
    });
    plots.forEach((p, i) => {
      p.svg.parentElement.dataset.plot = String(i);
      watch.observe(p.svg.parentElement);
    });
  }

  // --- The run.
  let history = { steps: [], checkpoints: [] };
  let current = null; // {seed, design} of the run shown
  let runs = 0;
  let seconds = 0; // training time of the run shown (the messages' round trips)
  let formedAt = null; // {step, seconds, head, score}
  let mode = "idle"; // idle | loading | training | paused | finished | failed
  let want = "pause"; // what the reader asked for: "run" or "pause"
  let pending = null; // a restart asked for: {seed, design}
  let driving = false;
  let worker = null;
  let ready = null; // a promise: Python is up with the lab's code
  let seq = 0;

  const canRun = supported();
  const stepNow = () => (history.steps.length ? history.steps.at(-1)[0] : 0);
  const designText = (d) => `positions ${label[d]}`;

  function show(text) { status.textContent = text; }

  function render() {
    const step = stepNow();
    Object.assign(root.dataset, { state: mode, step: String(step),
      formed: formedAt ? String(formedAt.step) : "" });
    facts.step.textContent = `${formatCount(step)} of ${formatCount(last)}`;
    facts.time.textContent = `${fmt(seconds, 1)} s`;
    facts.pace.textContent = step ? `${fmt(seconds / step, 3)} s` : "–";
    facts.formed.textContent = !formedAt ? "not yet"
      : `at step ${formatCount(formedAt.step)}, after ${fmt(formedAt.seconds, 1)} s (head ${formedAt.head})`;
    const going = mode === "loading" || mode === "training" || mode === "paused";
    train.textContent = !going ? "Train" : want === "run" ? "Pause" : "Resume";
    setDisabled(restart, mode === "idle" || (mode === "failed" && !current), train);

    const xTop = Math.min(niceAbove(Math.max(step, 10 * every)), last);
    const marks = formedAt ? [{ x: formedAt.step, label: "formed" }] : [];
    const { steps, checkpoints } = history;
    // The mean of the last `every` steps at each step (a running sum keeps it linear). A loss that was
    // not a finite number (Python sends null) is left out.
    const mean = (col) => {
      const out = [];
      let sum = 0;
      let count = 0;
      for (let i = 0; i < steps.length; i++) {
        if (steps[i][col] !== null) { sum += steps[i][col]; count += 1; }
        if (i >= every && steps[i - every][col] !== null) { sum -= steps[i - every][col]; count -= 1; }
        if (count) out.push([steps[i][0], sum / count]);
      }
      return sampled(out);
    };
    const raw = (col) => sampled(steps.filter((r) => r[col] !== null).map((r) => [r[0], r[col]]));
    const held = checkpoints.filter((c) => c.held_out !== null).map((c) => [c.step, c.held_out]);
    lossPlot.draw({
      xTop, marks,
      guides: [{ y: config.guess, label: `ln ${config.vocab}`, cls: "sa-train-guess" }],
      lines: [{ cls: "sa-train-rep sa-train-raw", points: raw(2) },
        { cls: "sa-train-rest sa-train-raw", points: raw(3) },
        { cls: "sa-train-rep", points: mean(2) }, { cls: "sa-train-rest", points: mean(3) }],
      dots: [{ cls: "sa-train-held", points: sampled(held) }],
    });
    const perHead = (key) => names.map((_, i) => ({ cls: `sa-train-h${i}`,
      points: sampled(checkpoints.map((c) => [c.step, c[key].flat()[i]])) }));
    prevPlot.draw({ xTop, marks, lines: perHead("previous") });
    indPlot.draw({ xTop, marks, lines: perHead("induction"),
      guides: [{ y: formed, label: `${fmt(formed, 1)}: formed` }] });

    const c = checkpoints.at(-1);
    const now = (col) => { const m = mean(col).at(-1); return m ? fmt(m[1], decimals.loss) : "–"; };
    const heldNow = c && c.held_out !== null
      ? ` Held-out repeated part at step ${formatCount(c.step)}: ${fmt(c.held_out, decimals.loss)}.` : "";
    lossPlot.svg.setAttribute("aria-label", steps.length
      ? `Loss against step, steps 1 to ${formatCount(step)}. Mean of the last ${Math.min(steps.length, every)} `
        + `steps: repeated part ${now(2)}, the rest ${now(3)}.${heldNow}`
      : "Loss against step: no step yet.");
    const scores = (key, what) => (c
      ? `${what} of each head at each checkpoint, up to step ${formatCount(c.step)}: `
        + names.map((name, i) => `head ${name} ${fmt(c[key].flat()[i], decimals.score)}`).join(", ") + "."
      : `${what} of each head: no checkpoint yet.`);
    prevPlot.svg.setAttribute("aria-label", scores("previous", "Previous-token score"));
    indPlot.svg.setAttribute("aria-label", scores("induction", "Induction score"));
  }

  // --- Python, in a Worker of the lab's own.
  function stopWorker(reason) {
    if (worker) {
      for (const p of worker.pending.values()) p.reject(reason);
      worker.terminate();
    }
    worker = null;
    ready = null;
  }

  // Run `text` in Python: {ok, out, err}.
  function send(text) {
    const cid = `t${seq++}`;
    return new Promise((resolve, reject) => {
      worker.pending.set(cid, { resolve, reject, out: [], err: [] });
      worker.postMessage({ type: "run", id: cid, code: text });
    });
  }

  const lastLine = (text) => text.trim().split("\n").pop();

  // Call one of the lab's Python functions: the JSON line it printed.
  async function call(line) {
    const res = await send(line);
    if (!res.ok) throw new Error(lastLine(res.err) || "Python raised an error");
    return JSON.parse(lastLine(res.out));
  }

  async function boot() {
    const t0 = performance.now();
    const base = new URL(RUNTIME_DIR, SITE);
    const response = await fetch(new URL("runtime.json", base));
    if (!response.ok) throw new Error(`the runtime's manifest is missing (HTTP ${response.status})`);
    const manifest = await response.json();
    worker = new Worker(new URL("../run/runtime.js", import.meta.url), { type: "module" });
    worker.pending = new Map();
    const up = new Promise((resolve, reject) => {
      worker.onmessage = (event) => {
        const msg = event.data;
        if (msg.type === "progress") {
          const text = `${fmt(msg.loaded / 1e6, 1)} of ${fmt(msg.total / 1e6, 1)} MB`;
          progress.hidden = false;
          bar.value = msg.loaded / msg.total;
          bar.setAttribute("aria-valuetext", text);
          bytes.textContent = text;
        } else if (msg.type === "ready") {
          resolve();
        } else if (msg.type === "out") {
          const p = worker.pending.get(msg.id);
          if (p) (msg.stream === "stderr" ? p.err : p.out).push(msg.text);
        } else if (msg.type === "done") {
          const p = worker.pending.get(msg.id);
          worker.pending.delete(msg.id);
          if (p) p.resolve({ ok: msg.ok, out: p.out.join(""), err: p.err.join("") });
        } else if (msg.type === "crash") {
          const err = new Error(msg.message);
          reject(err);
          stopWorker(err);
        }
      };
      worker.onerror = (event) => {
        event.preventDefault();
        const err = new Error(event.message || "the Python worker failed to start");
        reject(err);
        stopWorker(err);
      };
    });
    worker.postMessage({ type: "start", base: base.href, manifest });
    await up;
    progress.hidden = true;
    const define = await send(code);
    if (!define.ok) throw new Error(`the lab's Python did not start: ${lastLine(define.err)}`);
    return (performance.now() - t0) / 1000;
  }

  function take(res) {
    history.steps.push(...res.steps);
    history.checkpoints.push(...res.checkpoints);
    let news = null;
    for (const c of res.checkpoints) {
      if (formedAt) break;
      const top = c.induction.at(-1); // the last layer's heads
      const best = top.indexOf(Math.max(...top));
      if (top[best] >= formed) {
        const head = `${heads.length - 1}.${best}`;
        formedAt = { step: c.step, seconds, head, score: top[best] };
        news = `The heads have formed at step ${formatCount(c.step)}, after ${fmt(seconds, 1)} s of training: `
          + `head ${head}'s induction score is ${fmt(top[best], decimals.score)}.`;
      }
    }
    root.dispatchEvent(new CustomEvent(EVENT, { detail: { run: runs, seed: current.seed,
      design: current.design, steps: res.steps, checkpoints: res.checkpoints, seconds } }));
    return news;
  }

  async function drive() {
    if (driving) return;
    driving = true;
    try {
      if (!ready) {
        mode = "loading";
        show("Downloading and starting the book's Python…");
        render();
        ready = boot();
        const took = await ready;
        show(`Python started in ${fmt(took, 1)} s.`);
      }
      await ready;
      for (;;) {
        if (pending) {
          const r = pending;
          pending = null;
          history = { steps: [], checkpoints: [] };
          current = r;
          runs += 1;
          seconds = 0;
          formedAt = null;
          const res = await call(`_sa_train_start(${r.seed}, ${JSON.stringify(r.design)})`);
          if (pending) continue;
          take(res);
          show(`${runs > 1 ? "Restarted" : "Training"}: seed ${r.seed}, ${designText(r.design)}.`);
          mode = "training";
          render();
          continue;
        }
        if (want !== "run" || stepNow() >= last) break;
        mode = "training";
        const t0 = performance.now();
        const res = await call(`_sa_train_steps(${budget}, ${every}, ${last})`);
        if (pending) continue;
        seconds += (performance.now() - t0) / 1000;
        const news = take(res);
        if (news) show(news);
        render();
      }
      if (stepNow() >= last) {
        mode = "finished";
        show(`Finished: ${formatCount(last)} steps, the end of the schedule. Restart trains a new run.`);
      } else {
        mode = "paused";
        show(`Paused at step ${formatCount(stepNow())}.`);
      }
    } catch (err) {
      stopWorker(err);
      mode = "failed";
      want = "pause";
      const why = err && err.message ? err.message : err;
      show(`The training stopped: ${why}. Press Train to start Python again.`);
    } finally {
      driving = false;
      progress.hidden = true;
      render();
    }
  }

  // The seed box and the design, or null (with a message) if the seed is not a whole number in range.
  function chosen() {
    const text = seedBox.value.trim();
    const seed = Number(text);
    if (!/^\d+$/.test(text) || seed > config.max_seed) {
      seedBox.setAttribute("aria-invalid", "true");
      show(`The seed must be a whole number from 0 to ${formatCount(config.max_seed)}.`);
      seedBox.focus();
      return null;
    }
    seedBox.removeAttribute("aria-invalid");
    const checked = radios.map((r) => r.querySelector("input")).find((r) => r.checked);
    return { seed, design: checked ? checked.value : config.design };
  }

  train.addEventListener("click", () => {
    if (!canRun) {
      show("This browser cannot run the book's Python: it needs WebAssembly with exception references. "
        + "The same training runs on your computer: python -m selfattention.induction");
      return;
    }
    if (mode === "idle" || mode === "failed") {
      const r = chosen();
      if (!r) return;
      pending = r; // a new Python: a new run
      want = "run";
      drive();
    } else if (mode === "finished") {
      show(`This run has reached the end of its schedule, step ${formatCount(last)}. Restart trains a new one.`);
    } else if (want === "run") {
      want = "pause";
      if (driving) show("Pausing…");
      render();
    } else {
      want = "run";
      show(`Training again from step ${formatCount(stepNow())}.`);
      drive();
    }
    render();
  });

  restart.addEventListener("click", () => {
    const r = chosen();
    if (!r) return;
    pending = r;
    want = "run";
    if (!driving) drive();
    render();
  });

  render();
}
