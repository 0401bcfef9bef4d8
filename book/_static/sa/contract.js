// The HTML contract between the book's Python and its labs, named once for
// JavaScript. booktools.labs.contract names the same things, with the same
// names and values, for Python; tests/booktools/labs/test_contract.py checks
// that the two agree and that no other module spells them out.
export const LAB_CLASS = "sa-lab"; // the element a lab mounts on
export const NAME_ATTR = "data-lab"; // names the lab: its module is labs/NAME.js
export const NAME_PATTERN = "^[a-z0-9-]+$"; // what a lab's name may be made of
export const CONFIG_CLASS = "sa-lab-config"; // the lab's <script> configuration block
export const CONFIG_TYPE = "application/json"; // that block's type: data, never executed
export const CONFIG_SRC_ATTR = "data-src"; // an emptied block: the file that holds the configuration
export const FALLBACK_CLASS = "sa-lab-fallback"; // the text shown without JavaScript
export const READY_CLASS = "sa-lab-ready"; // the lab is drawn and its styles have arrived
export const TRACE_STEPS_CLASS = "sa-trace-steps"; // the qkv-trace lab's page-made steps
export const TRACE_STEP_CLASS = "sa-trace-step"; // one of those steps

// Every lab element of the page.
export const LAB_SELECTOR = `.${LAB_CLASS}[${NAME_ATTR}]`;
// A lab's configuration block, a child of its element.
export const CONFIG_SELECTOR = `:scope > script.${CONFIG_CLASS}`;

// A lab removes the text shown to readers without JavaScript once it draws itself.
export function removeFallback(root) {
  root.querySelector(`.${FALLBACK_CLASS}`)?.remove();
}
