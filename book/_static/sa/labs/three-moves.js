// Lab "three-moves" (chapter "Words are islands"): one word does the three
// moves of attention, one at a time: look, score, blend. Back and Next (or
// the arrow keys, Home and End, with the focus anywhere in the panel) walk
// through them. Every number and text comes from the page's config, computed
// by the package (booktools.labs.three_moves); the state and what each move
// draws live in three-moves-state.js (no DOM); this module only draws them.
// Everything lives inside mount(): no globals.
import { removeFallback } from "../contract.js";
import { h, loadStylesheet, s } from "../dom.js";
import { SIZE, createState, labels as labelSpots, plane, scene } from "./three-moves-state.js";

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./three-moves.css", import.meta.url));
  const { words, x, word, output, moves } = config;
  const lab = createState(config);
  const { state, last } = lab;

  // --- The plane: from 0 to the largest coordinate, the same scale on both axes.
  const { top, px, py } = plane(config);
  const svg = s("svg", { viewBox: `0 0 ${SIZE} ${SIZE}`, class: "sa-moves-svg", role: "img" });
  const axes = s("path", {
    class: "sa-moves-axes", d: `M${px(0)} ${py(0)}H${px(top)}M${px(0)} ${py(0)}V${py(top)}`,
  });
  const links = s("g", { class: "sa-moves-links" });
  const pieces = s("g", { class: "sa-moves-pieces" });
  const points = s("g", { class: "sa-moves-points" });
  const labels = s("g", { class: "sa-moves-labels" });
  const shareLabels = s("g", { class: "sa-moves-shares" });
  const star = s("path", { class: "sa-moves-star" });
  const starLabel = s("text", { class: "sa-moves-label sa-moves-star-label", "text-anchor": "end" });
  svg.append(axes, links, pieces, points, labels, shareLabels, star, starLabel);
  const me = x[word];
  x.forEach((p, j) => {
    points.append(s("circle", {
      cx: px(p[0]), cy: py(p[1]), r: j === word ? 7 : 5.5,
      class: j === word ? "sa-moves-point sa-moves-me" : "sa-moves-point",
    }));
    labels.append(s("text", { class: "sa-moves-label", "data-word": j }, words[j]));
  });

  // --- The move: its title, text and table, and the buttons.
  const title = h("p", { class: "sa-moves-title" });
  const text = h("p", { class: "sa-moves-text" });
  const table = h("table", { class: "sa-moves-table" });
  const back = h("button", { type: "button", "data-action": "back" }, "← Back");
  const next = h("button", { type: "button", "data-action": "next" }, "Next →");
  const dots = h("ol", { class: "sa-moves-dots", "aria-hidden": "true" },
    ...moves.map((m) => h("li", {}, m.name)));
  const status = h("p", { class: "sa-moves-status sa-visually-hidden", role: "status", "aria-live": "polite" });
  const hint = h("p", { class: "sa-panel-hint" },
    "Next and Back walk through the moves; with the focus in this panel, the arrow keys do too "
    + "(Home and End jump to the first and last move).");
  const panel = h("div", {
    class: "sa-panel sa-moves", role: "group", "aria-label": `The three moves of ${words[word]}`,
  },
  h("div", { class: "sa-panel-controls" },
    h("div", { class: "sa-panel-buttons", role: "group", "aria-label": "Move through the steps" }, back, next),
    dots),
  h("div", { class: "sa-panel-body" }, h("div", { class: "sa-moves-plane" }, svg),
    h("div", { class: "sa-panel-side" }, title, text, table, status, hint)));
  removeFallback(root);
  root.append(panel);

  function drawLinks(move) {
    const sc = scene(config, move);
    labelSpots(config, move).forEach((at, j) => {
      const text = labels.children[j];
      text.setAttribute("x", String(at.x));
      text.setAttribute("y", String(at.y));
      text.setAttribute("text-anchor", at.anchor);
    });
    links.replaceChildren(...sc.links.map((l) => (l.self
      ? s("circle", { cx: px(l.to[0]), cy: py(l.to[1]), r: 13, class: "sa-moves-link", "stroke-width": l.width })
      : s("line", {
        x1: px(sc.me[0]), y1: py(sc.me[1]), x2: px(l.to[0]), y2: py(l.to[1]), class: "sa-moves-link",
        "stroke-width": l.width,
      }))));
    shareLabels.replaceChildren(...sc.shareLabels.map((text, j) => {
      const p = x[j];
      const right = p[0] < top / 2;
      return s("text", {
        x: px(p[0]) + (right ? 10 : -10), y: py(p[1]) + 20, class: "sa-moves-label sa-moves-share",
        "text-anchor": right ? "start" : "end",
      }, text);
    }));
    pieces.replaceChildren(...sc.pieces.map(([at, to], j) => s("line", {
      x1: px(at[0]), y1: py(at[1]), x2: px(to[0]), y2: py(to[1]), class: `sa-moves-piece sa-moves-piece-${j}`,
    })));
    const [cx, cy] = [px(output[0]), py(output[1])];
    let d = "";
    for (let k = 0; k < 10; k++) {
      const r = k % 2 ? 4 : 10;
      const a = -Math.PI / 2 + (k * Math.PI) / 5;
      d += `${k ? "L" : "M"}${(cx + r * Math.cos(a)).toFixed(2)} ${(cy + r * Math.sin(a)).toFixed(2)}`;
    }
    star.setAttribute("d", sc.blend ? `${d}Z` : "");
    starLabel.setAttribute("x", String(cx - 14)); // left of the star, clear of the word's own label
    starLabel.setAttribute("y", String(cy - 6));
    starLabel.textContent = sc.blend ? "blend" : "";
  }

  function render(announce) {
    const m = moves[state.move];
    root.dataset.move = String(state.move);
    title.textContent = m.title;
    text.textContent = m.text;
    table.replaceChildren(
      h("thead", {}, h("tr", {}, ...m.columns.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...m.rows.map((row) => h("tr", {},
        h("th", { scope: "row" }, row[0]), ...row.slice(1).map((v) => h("td", {}, v))))),
    );
    [...dots.children].forEach((li, i) => li.classList.toggle("sa-moves-current", i === state.move));
    back.disabled = state.move === 0;
    next.disabled = state.move === last;
    drawLinks(state.move);
    svg.setAttribute("aria-label", `${m.title}. ${m.text}`);
    if (announce) status.textContent = `${m.title}. ${m.text}`;
  }

  function go(move) {
    if (lab.go(move)) render(true);
  }

  back.addEventListener("click", () => {
    go(state.move - 1);
    if (back.disabled) next.focus(); // never leave the focus on a disabled button
  });
  next.addEventListener("click", () => {
    go(state.move + 1);
    if (next.disabled) back.focus();
  });
  panel.addEventListener("keydown", (event) => {
    const to = lab.target(event.key);
    if (to === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    go(to);
    if (document.activeElement?.disabled || !panel.contains(document.activeElement)) {
      (next.disabled ? back : next).focus();
    }
  });

  render(false);
}
