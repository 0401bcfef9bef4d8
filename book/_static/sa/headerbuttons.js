// The article header's buttons, as the theme leaves them, made to keep the keyboard's place.
//
// sphinx-book-theme blurs the colour-mode button and the sidebar buttons on every click, to
// hide their tooltips after a mouse click (its addBlurToButtons). A click made with Enter or
// Space blurs them too: focus fell to <body>, so the arrow keys could not reach the colour
// menu that had opened, and the next Tab started again from the top of the page. A keyboard
// click (event.detail 0) now puts focus where the reader is: in the menu that opened, on the
// menu's button once a choice closes it, or back on the button it left.
//
// The theme shows its header menus on :hover as well as when open, so a mouse still over a
// menu kept it open after a choice; it now closes until the pointer leaves. sa.css hides the
// tooltips where they cover a menu (and on touch screens, where they stayed after a tap).

const MENU_BUTTON = ".bd-header-article .dropdown > .dropdown-toggle";
const BLURRED = ".theme-switch-button, .primary-toggle, .secondary-toggle";

const later = (fn) => setTimeout(fn, 0); // after the theme's and Bootstrap's own click handlers

// Into the menu that opened, at its chosen item (the colour mode in use) or its first; on the
// button if the click closed it.
function focusInto(button) {
  const menu = button.nextElementSibling;
  const items = menu?.classList.contains("show") ? [...menu.querySelectorAll(".dropdown-item")] : [];
  (items.find((item) => item.classList.contains("active")) || items[0] || button).focus();
}

function onKeyboardClick(event) {
  const target = event.target instanceof Element ? event.target : null;
  const menuButton = target?.closest(MENU_BUTTON);
  const item = target?.closest(".bd-header-article .dropdown-menu .dropdown-item");
  const blurred = target?.closest(BLURRED);
  if (menuButton) {
    later(() => focusInto(menuButton));
  } else if (item) {
    const button = item.closest(".dropdown").querySelector(":scope > .dropdown-toggle");
    later(() => { if (!item.closest(".dropdown-menu.show")) button.focus(); });
  }
  if (blurred && !menuButton) later(() => { if (document.activeElement === document.body) blurred.focus(); });
}

// A choice made with the pointer: the menu closes, though the pointer is still over it.
function onPointerChoice(event) {
  const item = event.target instanceof Element && event.target.closest(".bd-header-article .dropdown-menu .dropdown-item");
  if (!item) return;
  const dropdown = item.closest(".dropdown");
  dropdown.dataset.saChosen = "";
  dropdown.addEventListener("pointerleave", () => delete dropdown.dataset.saChosen, { once: true });
}

// On the way down (capture): on a wide screen the theme stops a sidebar button's click there.
export function initHeaderButtons() {
  document.addEventListener("click", (event) => {
    if (event.detail === 0) onKeyboardClick(event);
    else onPointerChoice(event);
  }, true);
}
