// Entry module of the book's interactive layer, loaded on every page.
// Self-checks, folds, skip tests, keyboard shortcuts, and labs (each lab is
// its own module under labs/, configured by JSON that the page computed).
import {
  CONFIG_SELECTOR, CONFIG_SRC_ATTR, LAB_SELECTOR, NAME_ATTR, NAME_PATTERN, READY_CLASS,
} from "./contract.js";
import { stylesheetsLoaded } from "./dom.js";
import { initHeaderButtons } from "./headerbuttons.js";
import { initScrollables, watchScrollables } from "./scrollables.js";
import { initSelfChecks } from "./selfcheck.js";
import { initShortcuts } from "./shortcuts.js";

// A large configuration is not in the page but in a file beside it (data-src, written by
// booksite.labdata at build time), so that the page's text arrives first.
async function readConfig(el) {
  const block = el.querySelector(CONFIG_SELECTOR);
  if (!block) return {};
  const src = block.getAttribute(CONFIG_SRC_ATTR);
  if (src) {
    const response = await fetch(new URL(src, document.baseURI));
    if (!response.ok) throw new Error(`${src}: ${response.status}`);
    return response.json();
  }
  return JSON.parse(block.textContent);
}

async function mountLab(el) {
  const name = el.getAttribute(NAME_ATTR);
  if (!new RegExp(NAME_PATTERN).test(name)) return;
  try {
    const [mod, config] = await Promise.all([import(`./labs/${name}.js`), readConfig(el)]);
    mod.mount(el, config);
    await stylesheetsLoaded();
    el.classList.add(READY_CLASS);
    watchScrollables(el, el.closest(".cell_output > .output") || el);
  } catch (err) {
    console.error(`lab ${name} failed to start`, err);
  }
}

// Labs start side by side; none waits for another, or for the theme's scripts.
function mountLabs() {
  return Promise.all(Array.from(document.querySelectorAll(LAB_SELECTOR), mountLab));
}

// The search page: a result's snippet quotes the chapter's text. Sphinx reads it from the
// page's whole [role=main], which in this theme starts with the page's contents list.
function searchSnippetsFromTheArticle() {
  if (typeof Search === "undefined" || typeof Search.htmlToText !== "function") return;
  const fromMain = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    const article = page.querySelector("article.bd-article");
    if (!article) return fromMain(htmlString, anchor);
    for (const el of article.querySelectorAll(".headerlink, script, style, .sa-download")) el.remove();
    let part = null;
    try {
      part = anchor ? article.querySelector(anchor) : null;
    } catch {
      part = null;  // an anchor that is not a CSS selector
    }
    return (part || article).textContent;
  };
}

// Before the search page runs its query (searchtools.js, a classic script, has defined Search).
searchSnippetsFromTheArticle();

// sphinx-copybutton's buttons show only an icon; the name inside it (its <svg>'s <title>) is
// not read by every screen reader. Each button gets the name its tooltip shows. Its script adds
// them when the page is parsed, as this one runs, so they are named again once it has loaded.
function nameCopyButtons() {
  const name = () => {
    for (const button of document.querySelectorAll("button.copybtn:not([aria-label])")) {
      button.setAttribute("aria-label", button.dataset.tooltip || "Copy");
    }
  };
  name();
  if (document.readyState !== "complete") window.addEventListener("load", name, { once: true });
}

function start() {
  nameCopyButtons();
  initHeaderButtons();
  initScrollables();
  initShortcuts();
  initSelfChecks();
  mountLabs();
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start);
} else {
  start();
}
