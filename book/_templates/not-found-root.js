// The 404 page, served at any missing address however deep, has its addresses written from
// the site's root (booksite.publish): the path of the site's address, or "/" for a build
// without one. A book copied under another path (a project page at /name/, a folder of a
// larger site) would then show an unstyled page whose links leave the book. So this looks
// for the book's root, the nearest folder above this address that holds the book's own
// script, and, if it is not the one the build wrote, moves every address there.
// Inline (an address of a script is what may be wrong) and allowed by its hash in the CSP.
(() => {
  const built = document.documentElement.dataset.content_root || "/";
  const holdsBook = (dir) => fetch(dir + "_static/sa/sa.js", { method: "HEAD", cache: "no-store" })
    .then((answer) => answer.ok, () => false);

  async function bookRoot() {
    if (await holdsBook(built)) return built;
    const folders = location.pathname.split("/").slice(1, -1);
    for (let n = folders.length; n >= 0; n--) {
      const dir = "/" + folders.slice(0, n).map((f) => f + "/").join("");
      if (dir !== built && await holdsBook(dir)) return dir;
    }
    return built;
  }

  // A script's address cannot be changed once it has run (or failed): it is loaded again, in
  // its place in the order, after the others that were moved.
  function reload(script, address) {
    const again = document.createElement("script");
    for (const attribute of script.attributes) again.setAttribute(attribute.name, attribute.value);
    again.setAttribute("src", address);
    again.async = false;
    script.replaceWith(again);
  }

  function move(from, to) {
    for (const el of document.querySelectorAll("[href], [src], form[action]")) {
      for (const name of ["href", "src", "action"]) {
        const address = el.getAttribute(name);
        if (!address || !address.startsWith(from)) continue;
        const moved = to + address.slice(from.length);
        if (el.tagName === "SCRIPT") reload(el, moved);
        else el.setAttribute(name, moved);
      }
    }
    document.documentElement.dataset.content_root = to;
    document.documentElement.dataset.saRoot = "moved";
  }

  const parsed = new Promise((resolve) => {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", resolve, { once: true });
    else resolve();
  });
  Promise.all([bookRoot(), parsed]).then(([root]) => {
    if (root !== built) move(built, root);
    else document.documentElement.dataset.saRoot = "found";
  });
})();
