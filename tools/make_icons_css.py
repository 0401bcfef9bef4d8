"""Write book/_static/sa/icons.css: the theme's few icons as CSS masks, without its icon script.

Usage: ``python tools/make_icons_css.py`` (run again after a theme upgrade).

pydata-sphinx-theme ships Font Awesome as a 1.5 MB script that swaps every
``<i class="fa-...">`` for an inline SVG. The book's pages use a dozen icons.
This reads their outlines from the installed theme's ``fontawesome.js``
(the solid set) and writes one CSS rule per icon: a ``::before`` box in the
text colour, masked by the icon's SVG (a ``data:`` URL, allowed by the CSP).
Font Awesome Free icons are CC BY 4.0 (see the header of the written file).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "book" / "_static" / "sa" / "icons.css"

#: Icons in the theme's templates and scripts (grep 'fa-' in the built pages and the theme's JS).
ICONS = [
    "angle-left", "angle-right", "arrow-up", "bars", "chevron-down", "chevron-right",
    "circle-half-stroke", "download", "expand", "file", "file-pdf", "list", "magnifying-glass",
    "moon", "outdent", "sun", "xmark",
]

#: The icon the theme's CSS draws (with Font Awesome's font) in each kind of admonition title.
ADMONITIONS = {
    "": "bell", "attention": "circle-exclamation", "important": "circle-exclamation",
    "caution": "triangle-exclamation", "warning": "triangle-exclamation", "danger": "triangle-exclamation",
    "error": "circle-xmark", "hint": "lightbulb", "tip": "lightbulb", "note": "circle-info",
    "seealso": "share", "admonition-todo": "pencil", "exercise": "pencil",
}
#: Icons the theme's CSS draws after external links in the navigation and before download links.
LINK_ICONS = {"external": "arrow-up-right-from-square", "download": "download"}


def fontawesome_js() -> Path:
    import pydata_sphinx_theme

    return Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static" / "scripts" / \
        "fontawesome.js"


def solid_icons(source: str, names: list[str]) -> dict[str, tuple[int, int, str]]:
    """Width, height and SVG path of each named icon of the solid set.

    The script defines the regular set, then the solid set, then registers the
    solid one as ``"fas"``; an icon of the solid set lies between the
    registration of ``"far"`` and that of ``"fas"``.

    Examples
    --------
    >>> js = 'x("far",{});bars:[448,512,[],"f0c9","M0 96z"],y("fas",{})'
    >>> solid_icons(js, ["bars"])
    {'bars': (448, 512, 'M0 96z')}
    """
    start = source.index('("far",')
    end = source.index('("fas",')
    found = {}
    for name in names:
        key = f'"{name}"' if "-" in name else f'(?:"{name}"|(?<![\\w"-]){name})'
        pattern = key + r':\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]+","([^"]*)"\]'
        hits = [m for m in re.finditer(pattern, source) if start < m.start() < end]
        if not hits:
            raise ValueError(f"icon {name!r} not found in the solid set of fontawesome.js")
        m = hits[-1]
        found[name] = (int(m.group(1)), int(m.group(2)), m.group(3))
    return found


def css(icons: dict[str, tuple[int, int, str]], version: str) -> str:
    lines = [
        f"/* Icons of the theme as CSS masks: Font Awesome Free {version} (solid), icons CC BY 4.0,",
        " * https://fontawesome.com/license/free. Written by tools/make_icons_css.py; do not edit. */",
        "/* The theme's own rules give these elements Font Awesome's web font; with no glyph",
        "   left to draw, that would only cost a 115 KB download. */",
        ".fa, .fa-solid, .fas, .fa-regular, .far, .fa-brands, .fab { font-family: inherit; }",
        ".fa-solid, .fas { display: inline-block; font-style: normal; line-height: 1; }",
        ".fa-solid::before, .fas::before {",
        '  content: ""; display: inline-block; vertical-align: -0.125em;',
        "  width: calc(1em * var(--sa-icon-ratio, 1)); height: 1em;",
        "  background-color: currentColor;",
        "  -webkit-mask: var(--sa-icon) center / contain no-repeat; mask: var(--sa-icon) center / contain no-repeat;",
        "}",
        ".fa-lg { font-size: 1.25em; line-height: 0.05em; vertical-align: -0.075em; }",
        ".fa-fw { width: 1.25em; text-align: center; }",
        "@media (forced-colors: active) { .fa-solid::before, .fas::before { background-color: CanvasText; } }",
    ]
    for name in ICONS:
        w, h, _ = icons[name]
        lines.append(f'.fa-{name} {{ --sa-icon: {mask_url(icons[name])}; --sa-icon-ratio: {w / h:.4f}; }}')
    lines += [
        "/* Admonition titles (a solution's has none), external and download links: the theme draws",
        "   their icons with Font Awesome's font, which is not loaded; the same icons as masks. */",
        "div.admonition:not(.solution) > .admonition-title::after,",
        "nav.bd-links li > a.reference.external::after, .nav-link.nav-external::after,",
        "a.reference.download::before {",
        '  content: "" !important; font-family: inherit !important;',
        "  background-color: currentColor;",
        "  -webkit-mask: var(--sa-icon) center / contain no-repeat; mask: var(--sa-icon) center / contain no-repeat;",
        "}",
        "nav.bd-links li > a.reference.external::after, .nav-link.nav-external::after,",
        "a.reference.download::before { display: inline-block; width: 0.8em; height: 0.8em; }",
    ]
    for kind, name in ADMONITIONS.items():
        selector = f"div.admonition.{kind}" if kind else "div.admonition"
        lines.append(f"{selector} > .admonition-title::after {{ --sa-icon: {mask_url(icons[name])}; }}")
    lines.append("nav.bd-links li > a.reference.external::after, .nav-link.nav-external::after "
                 f"{{ --sa-icon: {mask_url(icons[LINK_ICONS['external']])}; }}")
    lines.append(f"a.reference.download::before {{ --sa-icon: {mask_url(icons[LINK_ICONS['download']])}; }}")
    return "\n".join(lines) + "\n"


def mask_url(icon: tuple[int, int, str]) -> str:
    """A CSS ``url()`` holding the icon as an SVG ``data:`` URL.

    Examples
    --------
    >>> url = mask_url((10, 20, "M0 0z"))
    >>> url.startswith('url("data:image/svg+xml,%3Csvg'), "viewBox='0 0 10 20'" in url, url.endswith('%3E")')
    (True, True, True)
    """
    w, h, path = icon
    svg = f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {w} {h}'><path d='{path}'/></svg>"
    return 'url("data:image/svg+xml,' + quote(svg, safe=" /:=',") + '")'


def main() -> int:
    path = fontawesome_js()
    source = path.read_text(encoding="utf-8")
    version = re.search(r"Font Awesome Free ([\d.]+)", (path.parent / "fontawesome.js.LICENSE.txt").read_text())
    names = sorted(set(ICONS) | set(ADMONITIONS.values()) | set(LINK_ICONS.values()))
    OUT.write_text(css(solid_icons(source, names), version.group(1) if version else "?"), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes, {len(names)} icons)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
