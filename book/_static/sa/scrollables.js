// Blocks that scroll sideways are tab stops, so that a keyboard can scroll them: code,
// outputs, tables and display maths. Those that do not scroll get tabindex -1, as the
// theme gives them.
//
// The theme (pydata-sphinx-theme's addTabStopsToScrollableElements) does this in one pass
// when the page has loaded, and again 300 ms after any change to the page, reading the
// width of every block at once. On the API pages most entries are off screen and not laid
// out (sa.css gives them content-visibility: auto), and reading a width inside one lays it
// out: a hundred reads make a task of a second or more on a phone, the page's worst delay.
// So this module does the job instead, in slices of a few milliseconds: blocks on pages laid
// out already at load, the rest when the browser is idle. The theme's pass is not added
// (takeOverThemePass below); <html data-sa-scrollables> says "marked" once every block is,
// "resized" from a resize until the pass after it starts, and "marking" while a pass runs.
//
// A block that scrolls sideways also shows which way: data-sa-more="right", "left" or "both"
// names the sides that hide more of it, and sa.css fades those edges. On a phone the scroll
// bar is hidden until a finger moves, so a table or a heatmap cut at the screen's edge gave
// no sign that the rest was a swipe away. A lab's own sideways box (class sa-scroll-x) is
// marked too, again whenever the lab redraws (watchScrollables).
//
// Loaded by sa.js, a module that runs before the theme's deferred script.

const SCROLLABLE = "pre, .cell_output > .output, .pst-scrollable-table-container, div.math, .sa-scroll-x";
// A lab's region that its markup made focusable (the explorer's heatmap) keeps its tab stop.
const OWN_TAB_STOP = "[role=region][tabindex]";
const REDRAW_MS = 200; // a lab's redraw is marked once it has been still this long
const SLICE_MS = 8; // the longest slice of reads when the browser gives no idle deadline
const RESIZE_MS = 300;

// A block scrolls along an axis only where its style lets it. Display maths is
// `overflow-y: hidden`: a formula whose glyphs reach a few pixels below its box (a fraction,
// a root) has a scrollHeight above its height, yet nothing in it moves, so it is no tab stop.
// (The theme's own pass, taken over below, compared the heights alone.)
const along = (overflow, content, box) => content > box && (overflow === "auto" || overflow === "scroll");
const sideways = (el, style) => along(style.overflowX, el.scrollWidth, el.clientWidth);
const scrolls = (el, style) => sideways(el, style) || along(style.overflowY, el.scrollHeight, el.clientHeight);

// The sides of a sideways block that hide some of it ("" when none do).
function hiddenSides(el) {
  const left = el.scrollLeft > 1;
  const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
  return left && right ? "both" : left ? "left" : right ? "right" : "";
}

function showCue(el, more) {
  if (more) {
    if (el.dataset.saMore !== more) el.dataset.saMore = more;
  } else if (el.dataset.saMore !== undefined) {
    delete el.dataset.saMore;
  }
}

function mark(el) {
  const style = getComputedStyle(el);
  showCue(el, sideways(el, style) ? hiddenSides(el) : "");
  if (el.matches(OWN_TAB_STOP)) return;
  const stop = scrolls(el, style) ? 0 : -1;
  if (el.tabIndex !== stop) el.tabIndex = stop;
}

// Scroll events do not bubble, but they pass the document on their way down: one listener
// follows every block that shows a cue.
function followSidewaysScrolls() {
  document.addEventListener("scroll", (event) => {
    const el = event.target;
    if (el instanceof Element && el.dataset.saMore !== undefined) showCue(el, hiddenSides(el));
  }, { capture: true, passive: true });
}

const idle = typeof requestIdleCallback === "function"
  ? (fn) => requestIdleCallback(fn, { timeout: 2000 })
  : (fn) => setTimeout(() => { const end = performance.now() + SLICE_MS; fn({ timeRemaining: () => end - performance.now() }); }, 0);

let queue = [];
let running = false;
let resized = false; // a resize has come and the pass after it has not started yet

function drain(deadline) {
  do {
    const el = queue.shift();
    if (el && el.isConnected) mark(el);
  } while (queue.length && deadline.timeRemaining() > 1);
  if (queue.length) {
    idle(drain);
  } else {
    running = false;
    // A lab's pass may end while the page's pass after a resize is still to come.
    document.documentElement.dataset.saScrollables = resized ? "resized" : "marked";
  }
}

// Mark every block under `root` (the whole page by default), in idle slices.
export function markScrollables(root = document) {
  const found = Array.from(root.querySelectorAll(SCROLLABLE));
  if (root !== document && root.matches?.(SCROLLABLE)) found.unshift(root);
  if (!found.length) {
    // A page with no such block is marked at once (after a resize too: a glossary on a phone).
    if (root === document && !running && !resized) document.documentElement.dataset.saScrollables = "marked";
    return;
  }
  const queued = new Set(queue);
  queue.push(...found.filter((el) => !queued.has(el)));
  document.documentElement.dataset.saScrollables = "marking";
  if (!running) {
    running = true;
    idle(drain);
  }
}

// A lab draws itself again when the reader changes it (a longer sentence, a wider heatmap): its
// blocks are marked again once it has been still for REDRAW_MS. `marks` is the block to mark,
// which may hold the lab (the cell output around it).
export function watchScrollables(lab, marks = lab) {
  markScrollables(marks);
  let timer = null;
  new MutationObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(() => markScrollables(marks), REDRAW_MS);
  }).observe(lab, { childList: true, subtree: true });
}

// The theme adds its pass as a "load" listener when its script runs (after this module, so
// before the page has loaded). Recognised by what it does (it sets tabIndex from scrollWidth),
// it is not added; everything else is. The wrapper is removed once the theme's script has run.
function takeOverThemePass() {
  const add = window.addEventListener;
  const isThemePass = (type, fn) => type === "load" && typeof fn === "function"
    && /tabIndex\s*=\s*\w+\.scrollWidth/.test(Function.prototype.toString.call(fn));
  window.addEventListener = function addEventListener(type, fn, options) {
    if (this === window && isThemePass(type, fn)) {
      document.documentElement.dataset.saThemeTabStops = "taken-over";
      return undefined;
    }
    return add.call(this, type, fn, options);
  };
  document.addEventListener("DOMContentLoaded", () => { window.addEventListener = add; }, { once: true });
}

// Mark at load, again after a resize, and inside what shows later: a <details> that opens,
// a folded cell or a toggled block, a lab that has drawn itself.
export function initScrollables() {
  followSidewaysScrolls();
  const all = () => markScrollables(document);
  if (document.readyState === "complete") all();
  else window.addEventListener("load", all, { once: true });
  let timer = null;
  window.addEventListener("resize", () => {
    // Until the pass after the last resize has run, the marks may be out of date: say so at once.
    resized = true;
    document.documentElement.dataset.saScrollables = "resized";
    clearTimeout(timer);
    timer = setTimeout(() => { resized = false; all(); }, RESIZE_MS);
  });
  document.addEventListener("toggle", (event) => {
    if (event.target.open) markScrollables(event.target);
  }, true);
  document.addEventListener("click", (event) => {
    if (event.target.closest?.(".sa-fold-bar button, button.toggle-button")) requestAnimationFrame(all);
  }, true);
}

takeOverThemePass();
