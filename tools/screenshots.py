"""Screenshots of every page of the built book, for a person to look at.

Usage: ``python tools/screenshots.py [--out DIR] [--width 1366 --width 390] [--mode light --mode dark] [pages]``

Serves ``_build/html`` on 127.0.0.1, opens each page in Debian's Chromium
(``/usr/bin/chromium``) at each width, in each colour mode chosen the way the
theme menu chooses it (``localStorage`` ``mode`` and ``theme``), with every
dropdown and fold open, and writes full-page PNGs cut into slices of at most
``--slice`` pixels, named ``<page>-<width>-<mode>-<n>.png``. Phone widths
get a touch screen and a device scale factor of 1 (the PNG pixel is a CSS
pixel, so text sizes can be read off the image).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from booksite.serve import serve

ROOT = Path(__file__).resolve().parents[1]

OPEN_EVERYTHING = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.sa-fold-bar button').forEach(b => b.click());
  document.querySelectorAll('button.toggle-button').forEach(b => {
    if (b.getAttribute('aria-expanded') === 'false') b.click();
  });
}"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "screenshots")
    parser.add_argument("--width", type=int, action="append")
    parser.add_argument("--mode", action="append", choices=["light", "dark"])
    parser.add_argument("--slice", type=int, default=2400, help="largest PNG height in pixels")
    parser.add_argument("--closed", action="store_true", help="leave dropdowns and folds as they are")
    parser.add_argument("pages", nargs="*")
    args = parser.parse_args(argv)
    widths = args.width or [1366, 390]
    modes = args.mode or ["light", "dark"]
    pages = args.pages or sorted(p.name for p in args.html.glob("*.html")
                                 if p.name not in ("genindex.html", "search.html"))
    from PIL import Image
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with serve(args.html) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        for width in widths:
            phone = width < 600
            for mode in modes:
                context = browser.new_context(
                    viewport={"width": width, "height": 844 if phone else 900},
                    has_touch=phone, is_mobile=phone, device_scale_factor=1)
                context.add_init_script(
                    f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
                page = context.new_page()
                for name in pages:
                    page.goto(f"{base}/{name}", wait_until="networkidle")
                    if not args.closed:
                        page.evaluate(OPEN_EVERYTHING)
                    page.wait_for_timeout(700)
                    stem = f"{Path(name).stem}-{width}-{mode}"
                    full = args.out / f"{stem}.png"
                    page.screenshot(path=str(full), full_page=True)
                    img = Image.open(full)
                    full.unlink()
                    for n, top in enumerate(range(0, img.height, args.slice)):
                        img.crop((0, top, img.width, min(img.height, top + args.slice))).save(
                            args.out / f"{stem}-{n}.png")
                    print(f"{stem}: {img.height} px tall, {n + 1} slices", flush=True)
                context.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
