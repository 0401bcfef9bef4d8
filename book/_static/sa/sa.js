// Entry module of the book's interactive layer, loaded on every page.
// Self-checks, folds, skip tests, keyboard shortcuts, and labs (each lab is
// its own module under labs/, configured by JSON that the page computed).
import { initSelfChecks } from "./selfcheck.js";
import { initShortcuts } from "./shortcuts.js";

function readConfig(el) {
  const block = el.querySelector(":scope > script.sa-lab-config");
  return block ? JSON.parse(block.textContent) : {};
}

async function mountLabs() {
  for (const el of document.querySelectorAll(".sa-lab[data-lab]")) {
    const name = el.dataset.lab;
    if (!/^[a-z0-9-]+$/.test(name)) continue;
    try {
      const mod = await import(`./labs/${name}.js`);
      mod.mount(el, readConfig(el));
      el.classList.add("sa-lab-ready");
    } catch (err) {
      console.error(`lab ${name} failed to start`, err);
    }
  }
}

// Code blocks and outputs that scroll sideways must be reachable by keyboard.
// The theme does this too, but only after DOM changes settle; do it now.
const SCROLLABLE = "pre, .cell_output > .output, .pst-scrollable-table-container";

function markScrollables() {
  for (const el of document.querySelectorAll(SCROLLABLE)) {
    const scrolls = el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight;
    if (scrolls) el.tabIndex = 0;
  }
}

function start() {
  markScrollables();
  window.addEventListener("load", markScrollables);
  window.addEventListener("resize", markScrollables);
  document.addEventListener("toggle", markScrollables, true);
  initShortcuts();
  initSelfChecks();
  mountLabs();
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
