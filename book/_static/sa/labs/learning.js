// Lab "learning" (chapter "Nobody designs these matrices: learning where to look").
// One number c sets W_Q = [[0, 0], [c, 0]] of the apple/sweet head. The step
// buttons take 1, 10 or 200 steps of gradient descent; the slider sets c. The
// plot draws the loss over c as far as training has gone, and the side panel
// shows c, sweet's weight on apple, the loss, the gradient and the next step.
// The maths is the shared maths.js (tested against selfattention.learning);
// the state lives in learning-state.js (no DOM), this module draws it; the
// configuration comes from booktools.labs.learning. No globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet, s } from "../dom.js";
import { fmt } from "../format.js";
import { appleSweet } from "../maths.js";
import { createState, readout } from "./learning-state.js";

const W = 400; // viewBox width
const H = 270; // viewBox height
const M = { left: 54, right: 14, top: 14, bottom: 44 }; // room for the axes' labels
const SAMPLES = 160; // points of the drawn curve
const DOTS = 250; // the last steps drawn as dots

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./learning.css", import.meta.url));
  const { c0, learning_rate: lr, buttons, slider: range, loss_max: lossMax, words } = config;
  const [apple, sweet] = words;
  const lab = createState(config);
  const { state } = lab;

  // --- Controls: step buttons, Reset, the slider for c.
  const stepButtons = buttons.map((n) => h("button", { type: "button", "data-steps": String(n) },
    n === 1 ? "1 step" : `${n} steps`));
  const reset = h("button", { type: "button", "data-action": "reset" }, "Reset");
  const sliderId = `${root.id}-c`;
  const input = h("input", {
    type: "range", id: sliderId, min: String(range.min), max: String(range.max), step: String(range.step),
    value: String(c0), "aria-describedby": `${root.id}-hint`,
  });
  const sliderOut = h("output", { for: sliderId, class: "sa-learn-slider-value" });

  // --- The plot: loss against c.
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "sa-learn-svg", role: "img" });
  const grid = s("g", { class: "sa-learn-grid" });
  const curve = s("path", { class: "sa-learn-curve" });
  const dots = s("g", { class: "sa-learn-dots" });
  const now = s("circle", { class: "sa-learn-now", r: 6 });
  svg.append(grid, curve, dots, now);

  // --- The numbers.
  const rows = [
    ["c", "c"], ["weight", `${sweet}'s weight on ${apple}`], ["loss", "loss"],
    ["gradient", "gradient d loss / d c"], ["step", `next step, −η × gradient (η = ${fmt(lr, Number.isInteger(lr) ? 0 : 2)})`], ["steps", "steps taken"],
  ];
  const values = {};
  const table = h("table", { class: "sa-learn-table" }, h("tbody", {}, ...rows.map(([key, label]) => {
    values[key] = h("td", { "data-value": key });
    return h("tr", {}, h("th", { scope: "row" }, label), values[key]);
  })));
  const status = h("p", { class: "sa-panel-status sa-learn-status", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "sa-panel-hint", id: `${root.id}-hint` },
    "Each step moves c against the gradient. The slider (arrow keys, Home, End) sets c and starts a new curve.");
  const panel = h("div", { class: "sa-panel sa-learn", role: "group", "aria-label": "Learning c by gradient descent" },
    h("div", { class: "sa-panel-controls" },
      h("div", { class: "sa-panel-buttons", role: "group", "aria-label": "Take steps of gradient descent" },
        ...stepButtons, reset),
      h("label", { class: "sa-learn-slider", for: sliderId }, h("span", {}, "c"), input, sliderOut)),
    h("div", { class: "sa-panel-body" }, h("div", { class: "sa-learn-plot" }, svg),
      h("div", { class: "sa-panel-side" }, table, status, hint)));
  removeFallback(root);
  root.append(panel);

  const cMax = () => lab.cMax();
  const px = (c) => M.left + ((c - range.min) / (cMax() - range.min)) * (W - M.left - M.right);
  const py = (loss) => H - M.bottom - (Math.min(loss, lossMax) / lossMax) * (H - M.top - M.bottom);

  function drawAxes() {
    grid.replaceChildren();
    const x0 = M.left;
    const y0 = H - M.bottom;
    grid.append(s("path", { class: "sa-learn-axes", d: `M${x0} ${M.top}V${y0}H${W - M.right}` }));
    const top = cMax();
    const every = top - range.min > 12 ? 4 : 2;
    for (let c = Math.ceil(range.min / every) * every; c <= top; c += every) {
      grid.append(s("line", { class: "sa-learn-tick", x1: px(c), x2: px(c), y1: y0, y2: y0 + 5 }),
        s("text", { class: "sa-learn-label", x: px(c), y: y0 + 20, "text-anchor": "middle" }, String(c)));
    }
    for (let k = 0; k <= lossMax + 1e-9; k += 0.5) {
      grid.append(s("line", { class: "sa-learn-tick", x1: x0 - 5, x2: x0, y1: py(k), y2: py(k) }),
        s("text", { class: "sa-learn-label", x: x0 - 9, y: py(k) + 5, "text-anchor": "end" }, fmt(k, 1)));
    }
    grid.append(s("text", { class: "sa-learn-label", x: (x0 + W - M.right) / 2, y: H - 4, "text-anchor": "middle" }, "c"),
      s("text", { class: "sa-learn-label", x: 14, y: (M.top + y0) / 2, "text-anchor": "middle",
        transform: `rotate(-90 14 ${(M.top + y0) / 2})` }, "loss"));
  }

  function drawCurve() {
    const lo = Math.min(...state.path);
    const hi = Math.max(...state.path);
    let d = "";
    for (let i = 0; i <= SAMPLES; i++) {
      const c = lo + ((hi - lo) * i) / SAMPLES;
      d += `${i ? "L" : "M"}${px(c).toFixed(2)} ${py(appleSweet(c).loss).toFixed(2)}`;
    }
    curve.setAttribute("d", hi > lo ? d : "");
    dots.replaceChildren(...state.path.slice(-DOTS).map((c) => s("circle", {
      class: "sa-learn-dot", r: 2.5, cx: px(c).toFixed(2), cy: py(appleSweet(c).loss).toFixed(2),
    })));
    const at = appleSweet(state.c);
    now.setAttribute("cx", px(state.c).toFixed(2));
    now.setAttribute("cy", py(at.loss).toFixed(2));
  }

  function render(announce) {
    const shown = readout(config, state);
    for (const [key, td] of Object.entries(values)) td.textContent = shown[key];
    root.dataset.c = String(state.c);
    root.dataset.steps = String(state.steps);
    sliderOut.textContent = shown.c;
    input.setAttribute("aria-valuetext", `c = ${shown.c}`);
    drawAxes();
    drawCurve();
    svg.setAttribute("aria-label", `The loss against c. At c = ${shown.c} the loss is ${shown.loss}, `
      + `after ${shown.steps} steps; the curve is drawn over the values of c visited so far.`);
    if (announce) {
      status.textContent = `c = ${shown.c}, loss ${shown.loss}, gradient ${shown.gradient}, `
        + `next step ${shown.step}.`;
    }
  }

  function take(n) {
    lab.take(n);
    input.value = String(lab.slider()); // the slider follows, on its grid
    render(true);
  }

  function restart(c) {
    lab.restart(c);
    render(true);
  }

  stepButtons.forEach((b, i) => b.addEventListener("click", () => take(buttons[i])));
  reset.addEventListener("click", () => {
    input.value = String(c0);
    restart(c0);
  });
  input.addEventListener("input", () => restart(Number(input.value)));

  render(false);
}
