// Keyboard shortcuts: "?" opens the list. Keys are ignored while typing.
const SHORTCUTS = [
  ["?", "Open this list of shortcuts"],
  ["n", "Go to the next page"],
  ["p", "Go to the previous page"],
  ["Ctrl + K", "Search the book"],
  ["Tab / Shift + Tab", "Move between links, self-checks and lab controls"],
  ["Enter or Space", "Press the focused button or choice"],
  ["Arrow keys", "Move the focused point in a lab"],
  ["Esc", "Close this list"],
];

let dialog = null;

function buildDialog() {
  const d = document.createElement("dialog");
  d.className = "sa-shortcuts";
  d.setAttribute("aria-labelledby", "sa-shortcuts-title");
  const title = document.createElement("h2");
  title.id = "sa-shortcuts-title";
  title.textContent = "Keyboard shortcuts";
  const list = document.createElement("dl");
  for (const [key, what] of SHORTCUTS) {
    const dt = document.createElement("dt");
    const kbd = document.createElement("kbd");
    kbd.textContent = key;
    dt.append(kbd);
    const dd = document.createElement("dd");
    dd.textContent = what;
    list.append(dt, dd);
  }
  const close = document.createElement("button");
  close.type = "button";
  close.className = "sa-shortcuts-close";
  close.textContent = "Close";
  close.addEventListener("click", () => d.close());
  d.append(title, list, close);
  document.body.append(d);
  return d;
}

function typing(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function follow(selector) {
  const link = document.querySelector(selector);
  if (link) location.href = link.href;
}

export function openShortcuts() {
  dialog = dialog || buildDialog();
  if (!dialog.open) dialog.showModal();
}

export function initShortcuts() {
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "?") {
      event.preventDefault();
      openShortcuts();
    } else if (dialog && dialog.open) {
      return;
    } else if (event.key === "n") {
      follow("a.right-next");
    } else if (event.key === "p") {
      follow("a.left-prev");
    }
  });
  // The theme's print and full-screen buttons, without inline handlers
  // (the build moves their onclick code here: see booksite.sphinxext).
  for (const el of document.querySelectorAll("[data-sa-action]")) {
    el.addEventListener("click", () => {
      if (el.dataset.saAction === "print") window.print();
      if (el.dataset.saAction === "fullscreen" && typeof window.toggleFullScreen === "function") {
        window.toggleFullScreen();
      }
    });
  }
}
