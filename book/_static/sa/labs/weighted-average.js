// Lab "weighted average" (chapter "A weighted average"): move the words in
// the plane and watch X -> scores -> weights -> output update. The page
// computes the config with booktools.labs.weighted_average; the state and
// its maths live in weighted-average-state.js and ../maths.js; this module
// is the view: it draws the state and turns pointer, touch and keys into
// state changes. Everything lives inside mount(): no globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet, s } from "../dom.js";
import { fmt } from "../format.js";
import { createState } from "./weighted-average-state.js";

const SIZE = 340; // side of the square viewBox
const PAD = 26; // room for the tick labels
const MARKS = {
  circle: "M 9 0 A 9 9 0 1 1 -9 0 A 9 9 0 1 1 9 0 Z",
  square: "M -6.5 -6.5 H 6.5 V 6.5 H -6.5 Z",
  triangle: "M 0 -6.5 L 6 4 L -6 4 Z",
};
const GLYPHS = { circle: "●", square: "■", triangle: "▲" };
const LABEL_DY = [-11, 4, 19]; // label offsets: words on the same spot stay readable
const GRAB_PX = { mouse: 16, pen: 16, touch: 26 }; // how near a point a press must land, in CSS px
const LOOK_PROMPT = "Point at a weight, or focus it, to see who looks at whom.";

function star(r) {
  const pts = [];
  for (let k = 0; k < 10; k++) {
    const a = (Math.PI * k) / 5 - Math.PI / 2;
    const rad = k % 2 ? r * 0.45 : r;
    pts.push(`${(rad * Math.cos(a)).toFixed(2)},${(rad * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./weighted-average.css", import.meta.url));
  const { words, decimals, colours, shapes, presets } = config;
  const [lo, hi] = config.limits;
  const id = root.id || "sa-wa";
  const lab = createState(config);
  const { state } = lab;

  const span = SIZE - 2 * PAD;
  const px = (v) => PAD + ((v - lo) / (hi - lo)) * span;
  const py = (v) => PAD + ((hi - v) / (hi - lo)) * span;
  const pair = (p, d = decimals.x) => p.map((v) => fmt(v, d)).join(", ");
  const glyph = (i) => {
    const g = h("span", { class: "sa-wa-glyph", "aria-hidden": "true" }, GLYPHS[shapes[i]]);
    g.style.color = colours[i];
    return g;
  };

  // --- Controls: the sqrt(d_k) switch, presets, reset.
  const check = h("input", { type: "checkbox", class: "sa-wa-scale" });
  check.checked = true;
  const presetButtons = presets.map((p) => h("button", { type: "button", "data-preset": p.id }, p.label));
  const reset = h("button", { type: "button", "data-action": "reset" }, "reset");
  const controls = h("div", { class: "sa-panel-controls" },
    h("label", { class: "sa-wa-switch" }, check, " divide the scores by √d", h("sub", {}, "k"), ` = √${config.d_k}`),
    h("div", { class: "sa-panel-buttons", role: "group", "aria-label": "Presets" }, ...presetButtons, reset));

  // --- The plane: grid, vectors, the chosen word's mix, who-looks-at-whom, points.
  const svg = s("svg", {
    viewBox: `0 0 ${SIZE} ${SIZE}`, class: "sa-wa-svg", role: "group",
    "aria-label": "The words as points in the plane",
    "data-min": lo, "data-max": hi, "data-pad": PAD, "data-size": SIZE,
  });
  const arrowId = `${id}-arrow`;
  svg.append(s("defs", {}, s("marker", {
    id: arrowId, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto",
  }, s("path", { d: "M0 0 L10 5 L0 10 Z", class: "sa-wa-arrowhead" }))));
  const grid = s("g", { class: "sa-wa-grid", "aria-hidden": "true" });
  for (let v = Math.ceil(lo); v <= hi; v++) {
    const cls = v === 0 ? "sa-wa-axis" : "";
    grid.append(
      s("line", { x1: px(v), x2: px(v), y1: py(lo), y2: py(hi), class: cls }),
      s("line", { x1: px(lo), x2: px(hi), y1: py(v), y2: py(v), class: cls }),
      s("text", { x: px(v), y: py(lo) + 17, class: "sa-wa-tick", "text-anchor": "middle" }, String(v)),
      s("text", { x: px(lo) - 7, y: py(v) + 4, class: "sa-wa-tick", "text-anchor": "end" }, String(v)));
  }
  const rays = words.map((_, i) => s("line", { x1: px(0), y1: py(0), class: "sa-wa-ray", stroke: colours[i] }));
  const segs = words.map((_, j) => s("line", { class: "sa-wa-seg", stroke: colours[j], "data-word": j }));
  const outStar = s("polygon", { points: star(10), class: "sa-wa-star" });
  const mixLayer = s("g", { class: "sa-wa-mix", "aria-hidden": "true" }, ...segs, outStar);
  const lookLine = s("line", { class: "sa-wa-look", "marker-end": `url(#${arrowId})` });
  const hintId = `${id}-hint`;
  const points = words.map((w, i) => {
    const label = s("text", { class: "sa-wa-label", x: 13, y: LABEL_DY[i % 3] }, w);
    const marker = s("path", { d: MARKS[shapes[i]], class: "sa-wa-marker", fill: colours[i] });
    const g = s("g", {
      class: "sa-wa-point", tabindex: 0, role: "button", "aria-roledescription": "movable point",
      "aria-describedby": hintId, "data-word": i,
    }, s("circle", { r: 16, class: "sa-wa-hit" }), s("circle", { r: 13, class: "sa-wa-halo" }),
    s("circle", { r: 18, class: "sa-wa-focus" }), marker, label);
    g.addEventListener("keydown", (ev) => {
      if (ev.altKey || ev.ctrlKey || ev.metaKey || !lab.press(i, ev.key, ev.shiftKey)) return;
      ev.preventDefault();
      ev.stopPropagation();
      render();
      sayMove(i);
    });
    return { g, label };
  });
  svg.append(grid, ...rays, mixLayer, lookLine, ...points.map((p) => p.g));

  // --- Dragging, by mouse, pen or touch. The SVG itself has touch-action:
  // none (weighted-average.css), so a finger on the plane moves a word
  // instead of scrolling the page; the SVG captures the pointer, so the drag
  // goes on when the finger leaves the point.
  const toData = (ev) => {
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(svg.getScreenCTM().inverse());
    return [lo + ((p.x - PAD) / span) * (hi - lo), hi - ((p.y - PAD) / span) * (hi - lo)];
  };
  const onScreen = (i) => new DOMPoint(px(state.x[i][0]), py(state.x[i][1])).matrixTransform(svg.getScreenCTM());
  function nearest(ev) {
    let best = null;
    let bestD = GRAB_PX[ev.pointerType] ?? GRAB_PX.mouse;
    words.forEach((_, i) => {
      const p = onScreen(i);
      const d = Math.hypot(p.x - ev.clientX, p.y - ev.clientY);
      if (d <= bestD) [best, bestD] = [i, d]; // the later word wins a tie: it is drawn on top
    });
    return best;
  }
  let drag = null; // { i, pointer, grab: offset of the pointer from the point }
  svg.addEventListener("pointerdown", (ev) => {
    if (ev.pointerType === "mouse" && ev.button !== 0) return;
    const i = nearest(ev);
    if (i === null) return;
    ev.preventDefault();
    points[i].g.focus({ preventScroll: true });
    svg.setPointerCapture(ev.pointerId);
    const p = toData(ev);
    drag = { i, pointer: ev.pointerId, grab: [state.x[i][0] - p[0], state.x[i][1] - p[1]] };
    svg.classList.add("is-dragging");
  });
  svg.addEventListener("pointermove", (ev) => {
    if (!drag || ev.pointerId !== drag.pointer) return;
    const p = toData(ev);
    lab.place(drag.i, [p[0] + drag.grab[0], p[1] + drag.grab[1]]);
    render();
  });
  const drop = (ev) => {
    if (!drag || ev.pointerId !== drag.pointer) return;
    const { i } = drag;
    drag = null;
    svg.classList.remove("is-dragging");
    sayMove(i);
  };
  for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) svg.addEventListener(type, drop);

  // --- The side panel: how to use it, the chosen word's output as a mix, who looks at whom.
  const select = h("select", { id: `${id}-mix` }, ...words.map((w, i) => h("option", { value: i }, w)));
  const mixer = h("p", { class: "sa-wa-mixer" }, h("label", { for: select.id }, "Draw the output of"), select);
  const shares = h("p", { class: "sa-wa-shares" });
  const lookText = h("p", { class: "sa-wa-look-text" });
  const status = h("p", { class: "sa-panel-status sa-wa-status", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "sa-panel-hint sa-wa-hint", id: hintId },
    "Drag a word, or reach it with Tab and move it with the arrow keys (with Shift: steps of 1).");

  // --- The tables: X -> scores -> weights -> output.
  const cols = ["first", "second"];
  const specs = [
    ["x", "X: the words", cols, "word"],
    ["scores", "", words, "looks at →"],
    ["weights", "weights: softmax of each row", words, "takes from →"],
    ["output", "output = weights X", cols, "word"],
  ];
  const cells = {};
  const tables = specs.map(([name, caption, heads, corner]) => {
    const byWord = heads === words;
    const head = h("tr", {}, h("th", { scope: "col", class: "sa-wa-corner" }, corner),
      ...heads.map((c, j) => h("th", { scope: "col", "data-c": j }, ...(byWord ? [glyph(j)] : []), c)));
    cells[name] = words.map(() => heads.map(() => null));
    const rows = words.map((w, i) => h("tr", {}, h("th", { scope: "row", "data-r": i }, glyph(i), w),
      ...heads.map((_, j) => (cells[name][i][j] = h("td", { "data-r": i, "data-c": j })))));
    return h("table", { class: "sa-wa-table", "data-table": name },
      h("caption", {}, caption), h("thead", {}, head), h("tbody", {}, ...rows));
  });
  const scoresCaption = tables[1].querySelector("caption");
  for (const td of cells.weights.flat()) {
    td.tabIndex = 0;
    const on = () => { lab.setLook([Number(td.dataset.r), Number(td.dataset.c)]); showLook(); };
    const off = () => { lab.setLook(null); showLook(); };
    td.addEventListener("mouseenter", on);
    td.addEventListener("focus", on);
    td.addEventListener("mouseleave", off);
    td.addEventListener("blur", off);
  }

  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-wa" }, controls,
    h("div", { class: "sa-panel-body" }, h("div", { class: "sa-wa-plane" }, svg),
      h("div", { class: "sa-panel-side" }, hint, mixer, shares, lookText, status)),
    h("div", { class: "sa-wa-tables" }, ...tables)));

  // --- Drawing the state.
  const rowText = (i) => state.result.weights[i].map((w, j) => `${fmt(w, decimals.weights)} from ${words[j]}`).join(", ");
  const say = (text) => { status.textContent = text; };
  const sayMove = (i) => say(`${words[i]} at ${pair(state.x[i])}. ${words[i]} takes ${rowText(i)}.`);

  function render() {
    const r = state.result;
    for (const name of Object.keys(cells)) {
      cells[name].forEach((row, i) => row.forEach((td, j) => { td.textContent = fmt(r[name][i][j], decimals[name]); }));
    }
    scoresCaption.textContent = state.scaled ? `scores = X Xᵀ / √${config.d_k}` : "scores = X Xᵀ (not divided)";
    root.dataset.scaled = String(state.scaled);
    points.forEach(({ g, label }, i) => {
      const [a, b] = state.x[i];
      g.setAttribute("transform", `translate(${px(a)} ${py(b)})`);
      g.setAttribute("aria-label", `${words[i]} at ${pair(state.x[i])}`);
      g.dataset.x = String(a);
      g.dataset.y = String(b);
      const flip = a > hi - 1.3; // keep the label inside the plane
      label.setAttribute("x", flip ? -13 : 13);
      label.setAttribute("text-anchor", flip ? "end" : "start");
      rays[i].setAttribute("x2", px(a));
      rays[i].setAttribute("y2", py(b));
    });
    drawMix();
    showLook();
  }

  function drawMix() {
    const m = state.mix;
    const w = state.result.weights[m];
    let at = [0, 0];
    segs.forEach((seg, j) => {
      const end = at.map((v, c) => v + w[j] * state.x[j][c]);
      seg.setAttribute("x1", px(at[0]));
      seg.setAttribute("y1", py(at[1]));
      seg.setAttribute("x2", px(end[0]));
      seg.setAttribute("y2", py(end[1]));
      at = end;
    });
    const out = state.result.output[m];
    outStar.setAttribute("transform", `translate(${px(out[0])} ${py(out[1])})`);
    mixLayer.dataset.word = String(m);
    const terms = w.map((v, j) => `${fmt(v, decimals.weights)} × ${words[j]}`);
    const parts = terms.map((t, j) => h("span", { class: "sa-wa-share", "data-word": j }, glyph(j), t));
    const result = `[${pair(out, decimals.output)}]`;
    shares.replaceChildren(`★ ${words[m]}'s output = `,
      ...parts.flatMap((p, j) => (j ? [" + ", p] : [p])), ` = ${result}`);
    return `${words[m]}'s output = ${terms.join(" + ")} = ${result}`; // for announcements
  }

  function showLook() {
    const [a, b] = state.look || [-1, -1];
    if (state.look) {
      root.dataset.looker = words[a];
      root.dataset.target = words[b];
    } else {
      delete root.dataset.looker;
      delete root.dataset.target;
    }
    points.forEach(({ g }, i) => {
      g.classList.toggle("is-looker", i === a);
      g.classList.toggle("is-target", i === b);
    });
    for (const t of tables) {
      const byWord = t.dataset.table === "scores" || t.dataset.table === "weights";
      t.querySelectorAll("th[data-r]").forEach((th) => {
        const r = Number(th.dataset.r);
        th.classList.toggle("is-looker", r === a);
        th.classList.toggle("is-target", t.dataset.table === "x" && r === b);
      });
      t.querySelectorAll("th[data-c]").forEach((th) => th.classList.toggle("is-target", byWord && Number(th.dataset.c) === b));
      t.querySelectorAll("td").forEach((td) => {
        td.classList.toggle("is-pair", byWord && Number(td.dataset.r) === a && Number(td.dataset.c) === b);
      });
    }
    const apart = state.look && a !== b && (state.x[a][0] !== state.x[b][0] || state.x[a][1] !== state.x[b][1]);
    lookLine.classList.toggle("is-on", Boolean(apart));
    if (apart) {
      const [x1, y1, x2, y2] = [px(state.x[a][0]), py(state.x[a][1]), px(state.x[b][0]), py(state.x[b][1])];
      const len = Math.hypot(x2 - x1, y2 - y1);
      const cut = Math.min(16, len / 3) / len; // stop short of the markers
      lookLine.setAttribute("x1", x1 + (x2 - x1) * cut);
      lookLine.setAttribute("y1", y1 + (y2 - y1) * cut);
      lookLine.setAttribute("x2", x2 - (x2 - x1) * cut);
      lookLine.setAttribute("y2", y2 - (y2 - y1) * cut);
    }
    lookText.classList.toggle("is-on", Boolean(state.look));
    lookText.textContent = state.look
      ? `${words[a]} looks at ${words[b]}: score ${fmt(state.result.scores[a][b], decimals.scores)}, `
        + `weight ${fmt(state.result.weights[a][b], decimals.weights)}.`
      : LOOK_PROMPT;
  }

  // --- Controls to state changes.
  check.addEventListener("change", () => {
    lab.setScaled(check.checked);
    render();
    say(`Division by √${config.d_k} ${state.scaled ? "on" : "off"}. ${words[state.mix]} takes ${rowText(state.mix)}.`);
  });
  presetButtons.forEach((btn, k) => btn.addEventListener("click", () => {
    lab.preset(k);
    render();
    const p = presets[k];
    say(`Preset: ${p.label}. ${words[p.word]} takes ${rowText(p.word)}.`);
  }));
  reset.addEventListener("click", () => {
    lab.reset();
    check.checked = true;
    render();
    say("Back to the start.");
  });
  select.addEventListener("change", () => {
    lab.setMix(Number(select.value));
    say(`Drawing ${drawMix()}.`);
  });

  render();
}
