// Lab "grid" (chapter "The cost of full context"): a slider sets the number
// of tokens n and the lab draws the n x n grid of comparisons, one square per
// score, with their count n * n. The page computes the config with
// booktools.labs.grid; the browser tests compare every count with the
// package's score_count. The state is one number, n: no separate state
// module. Everything lives inside mount(): no globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet, s } from "../dom.js";
import { formatCount } from "../format.js";
import { scoreCount } from "../maths.js";

const SIZE = 320; // side of the square viewBox
const PAD = 24; // room for the axis labels (top and left)

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./grid.css", import.meta.url));
  const { min, max, step } = config;
  const id = root.id || "sa-grid";
  const state = { n: config.start };

  // --- Controls: the slider, its value, double and halve.
  const slider = h("input", {
    type: "range", id: `${id}-n`, min, max, step, value: state.n, class: "sa-grid-slider",
  });
  const shown = h("output", { for: slider.id, class: "sa-grid-n" });
  const halve = h("button", { type: "button", "data-action": "halve" }, "halve n");
  const double = h("button", { type: "button", "data-action": "double" }, "double n");
  const controls = h("div", { class: "sa-panel-controls sa-grid-controls" },
    h("label", { for: slider.id }, "Tokens n"), slider, shown,
    h("div", { class: "sa-panel-buttons", role: "group", "aria-label": "Change n by a factor of 2" }, halve, double));

  // --- The grid: one square per comparison, the top-left quarter shaded.
  const area = SIZE - PAD;
  const svg = s("svg", { viewBox: `0 0 ${SIZE} ${SIZE}`, class: "sa-grid-svg", role: "img" });
  const cells = s("rect", { x: PAD, y: PAD, width: area, height: area, class: "sa-grid-cells" });
  const quarter = s("rect", { x: PAD, y: PAD, class: "sa-grid-quarter" });
  const lines = s("path", { class: "sa-grid-lines" });
  const keysLabel = s("text", { x: PAD + area / 2, y: PAD - 8, class: "sa-grid-axis", "text-anchor": "middle" },
    "columns: the token it looks at");
  const queriesLabel = s("text", {
    x: PAD - 8, y: PAD + area / 2, class: "sa-grid-axis", "text-anchor": "middle",
    transform: `rotate(-90 ${PAD - 8} ${PAD + area / 2})`,
  }, "rows: the token that looks");
  svg.append(cells, quarter, lines, s("g", { "aria-hidden": "true" }, keysLabel, queriesLabel));

  // --- The numbers.
  const formula = h("span", { class: "sa-grid-formula" });
  const count = h("strong", { class: "sa-grid-count", "data-count": "" });
  const total = h("p", { class: "sa-grid-total" }, formula, count, " comparisons");
  const half = h("p", { class: "sa-grid-half" });
  const status = h("p", { class: "sa-panel-status sa-grid-status", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "sa-panel-hint sa-grid-hint" },
    "Drag the slider, or focus it and use the arrow keys (Home and End jump to the ends).");
  removeFallback(root);
  root.append(h("div", { class: "sa-panel sa-grid" }, controls,
    h("div", { class: "sa-panel-body" }, h("div", { class: "sa-grid-plane" }, svg),
      h("div", { class: "sa-panel-side sa-grid-side" }, total, half, status, hint))));

  const canHalve = (n) => n % 2 === 0 && n / 2 >= min;
  const canDouble = (n) => 2 * n <= max;
  const summary = (n) => `${n} tokens: ${formatCount(scoreCount(n))} comparisons`;

  // Device pixels per unit of the viewBox. The grid is drawn on whole device pixels: each cell
  // is a whole number of them and each line too, so that on any screen every row and column
  // is as wide as the others (a fractional cell made the lines alias into uneven rows).
  function devicePixels() {
    const w = svg.getBoundingClientRect().width;
    return w > 0 ? (w * (window.devicePixelRatio || 1)) / SIZE : 1;
  }

  function render() {
    const n = state.n;
    const c = scoreCount(n);
    const k = devicePixels();
    const origin = Math.round(PAD * k); // device pixels
    const cell = Math.max(1, Math.floor((SIZE * k - origin) / n));
    const line = Math.max(1, Math.round(k * Math.max(0.6, Math.min(2, (cell / k) * 0.12))));
    const u = (px) => Number((px / k).toFixed(4)); // device pixels to viewBox units
    const [start, end] = [u(origin), u(origin + n * cell)];
    slider.value = String(n);
    slider.setAttribute("aria-valuetext", summary(n));
    shown.textContent = String(n);
    formula.textContent = `${n} × ${n} = `;
    count.textContent = formatCount(c);
    root.dataset.n = String(n);
    halve.disabled = !canHalve(n);
    double.disabled = !canDouble(n);

    let d = "";
    for (let i = 1; i < n; i++) {
      const at = u(origin + i * cell - Math.floor(line / 2) + line / 2); // the line's middle
      d += `M${at} ${start}V${end}M${start} ${at}H${end}`;
    }
    for (const r of [cells, quarter]) {
      r.setAttribute("x", start);
      r.setAttribute("y", start);
    }
    cells.setAttribute("width", end - start);
    cells.setAttribute("height", end - start);
    lines.setAttribute("d", d);
    lines.style.strokeWidth = String(u(line));
    const middle = (start + end) / 2; // the axis names stay centred on the grid drawn
    keysLabel.setAttribute("x", middle);
    queriesLabel.setAttribute("y", middle);
    queriesLabel.setAttribute("transform", `rotate(-90 ${PAD - 8} ${middle})`);
    const even = n % 2 === 0;
    quarter.setAttribute("width", even ? u((n / 2) * cell) : 0);
    quarter.setAttribute("height", even ? u((n / 2) * cell) : 0);
    if (even) {
      half.textContent = `The shaded quarter is the grid of n / 2 = ${n / 2} tokens: `
        + `${formatCount(scoreCount(n / 2))} comparisons. Twice the tokens, four times the comparisons.`;
    } else {
      half.textContent = "Pick an even n to see the grid of half as many tokens shaded.";
    }
    svg.setAttribute("aria-label", `A grid of ${n} rows by ${n} columns, one square per comparison: `
      + `${formatCount(c)} in all.${even ? ` The shaded top-left quarter is the grid of ${n / 2} tokens.` : ""}`);
  }

  function set(n, announce) {
    state.n = Math.min(max, Math.max(min, Math.round(n)));
    render();
    if (announce) status.textContent = `${summary(state.n)}.`;
  }

  // A new width or zoom changes the device pixels: draw the grid again on them.
  if (typeof ResizeObserver === "function") new ResizeObserver(() => render()).observe(svg);
  slider.addEventListener("input", () => set(Number(slider.value), false));
  slider.addEventListener("change", () => set(Number(slider.value), true));
  for (const [button, can, factor] of [[halve, canHalve, 0.5], [double, canDouble, 2]]) {
    button.addEventListener("click", () => {
      if (!can(state.n)) return;
      set(state.n * factor, true);
      if (button.disabled) slider.focus(); // never leave the focus on a disabled button
    });
  }

  render();
}
