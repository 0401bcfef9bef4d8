// The step-by-step trace of one head (chapter "Queries, keys and values").
// The page holds every step, computed by the package (booktools.labs.qkv_trace);
// without JavaScript they all show, one after the other. This module shows one
// step at a time, with Back and Next buttons, and announces each step.
// Everything lives inside mount(): no globals.
import { TRACE_STEPS_CLASS, TRACE_STEP_CLASS } from "../contract.js";
import { h, loadStylesheet } from "../dom.js";

export function mount(root, config) {
  loadStylesheet(new URL("./panel.css", import.meta.url));
  loadStylesheet(new URL("./qkv-trace.css", import.meta.url));
  const steps = [...root.querySelectorAll(`.${TRACE_STEP_CLASS}`)];
  const n = steps.length;
  let at = 0;

  const back = h("button", { type: "button", "data-action": "back" }, "← Back");
  const next = h("button", { type: "button", "data-action": "next" }, "Next →");
  const count = h("span", { class: "sa-trace-count" });
  const status = h("p", { class: "sa-trace-status", role: "status", "aria-live": "polite" });
  const nav = h("div", { class: "sa-trace-nav", role: "group", "aria-label": "Steps of the trace" }, back, count, next);
  const panel = h("div", { class: "sa-panel sa-trace" }, nav, root.querySelector(`.${TRACE_STEPS_CLASS}`), status);
  root.append(panel);

  function show(k, announce) {
    at = Math.max(0, Math.min(n - 1, k));
    steps.forEach((s, i) => { s.hidden = i !== at; });
    root.dataset.step = String(at);
    count.textContent = at === 0 ? `Start (${n - 1} steps)` : `Step ${at} of ${n - 1}`;
    // A button that becomes disabled loses the focus: hand it to the other one.
    const focused = document.activeElement;
    back.disabled = at === 0;
    next.disabled = at === n - 1;
    if (focused === next && next.disabled) back.focus();
    if (focused === back && back.disabled) next.focus();
    if (announce) status.textContent = `${config.steps[at].title}.`;
  }
  back.addEventListener("click", () => show(at - 1, true));
  next.addEventListener("click", () => show(at + 1, true));
  show(0, false);
}
