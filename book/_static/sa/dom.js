// Small DOM helpers shared by the labs.
const SVGNS = "http://www.w3.org/2000/svg";

function build(node, attrs, children) {
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

// An HTML element: h("button", { type: "button" }, "Reset").
export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

// An SVG element: s("circle", { r: 4 }).
export function s(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVGNS, tag), attrs, children);
}

// Load a lab's stylesheet once (a <link>: allowed by the site's CSP).
const pending = new Set();

export function loadStylesheet(url) {
  const href = new URL(url).href;
  const links = document.querySelectorAll("link[rel=stylesheet]");
  if ([...links].some((l) => l.href === href)) return;
  const link = h("link", { rel: "stylesheet", href });
  const loaded = new Promise((resolve) => {
    link.addEventListener("load", resolve, { once: true });
    link.addEventListener("error", resolve, { once: true }); // the lab still works, unstyled
  });
  pending.add(loaded);
  loaded.then(() => pending.delete(loaded));
  document.head.append(link);
}

// Resolves once every stylesheet a lab asked for has arrived, so that a lab is
// marked ready (and shown as laid out) only when its styles apply.
export function stylesheetsLoaded() {
  return Promise.all([...pending]);
}

// Disable or enable a button. A button that disables itself while it has focus (the last
// "Next token") would drop focus to <body>: the keyboard's place is lost and a screen reader
// says nothing. So focus moves first to `fallback`, the lab's other button, if it is enabled.
export function setDisabled(button, disabled, fallback) {
  if (disabled && document.activeElement === button && fallback && !fallback.disabled) fallback.focus();
  button.disabled = disabled;
}
