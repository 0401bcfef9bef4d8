"""Every lab works on every device: dark mode from the theme menu, a phone, and no test data in the pages.

* In light and in dark mode (set as the theme menu sets it: ``localStorage``
  ``mode``), every piece of text in a lab contrasts with what is behind it:
  axe reports this case only as "incomplete", so the colours are compared
  here, with the WCAG formula.
* At 390 x 844, nothing in a lab reaches past the screen, and the page does
  not scroll sideways (the explorer's heatmap scrolls inside its own box).
* No built page holds the labs' test data.
"""

from __future__ import annotations

import re

import pytest

# (page, lab): a page may hold several labs.
LABS = [
    ("words-are-islands.html", "#referent-game"),
    ("words-are-islands.html", "#moves-lab"),
    ("weighted-average.html", "#wa-lab"),
    ("queries-keys-values.html", "#qkv-lab"),
    ("learning-where-to-look.html", "#learning-lab"),
    ("why-divide-by-sqrt-dk.html", "#temperature-lab"),
    ("causal-masking.html", "#mask-lab"),
    ("where-each-word-stands.html", "#position-dial-lab"),
    ("attention-in-a-real-model.html", "#explorer-lab"),
    ("the-cost-of-full-context.html", "#grid-lab"),
    ("one-word-at-a-time.html", "#gen-lab"),
    ("two-heads-that-copy.html", "#copy-lab"),
    ("two-heads-that-copy.html", "#train-lab"),
    ("a-model-that-writes.html", "#writer-lab"),
]

# Every visible element that holds text of its own, with its text colour
# (fill for SVG) and the colour behind it, composited up the ancestors.
TEXT_AND_BACKGROUND = """root => {
  const parse = (c) => {
    let m = c.match(/^rgba?\\(([^)]+)\\)$/);
    if (m) { const v = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v[3] ?? 1]; }
    m = c.match(/^color\\(srgb ([^)]+)\\)$/);
    if (m) {
      const v = m[1].split(/[ \\/]+/).filter(Boolean).map(Number);
      return [v[0] * 255, v[1] * 255, v[2] * 255, v[3] ?? 1];
    }
    return null;
  };
  const over = (top, under) => { const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]); };
  const behind = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg && bg[3] > 0) { layers.push(bg); if (bg[3] >= 1) break; }
    }
    let c = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) c = over(layers[i], c);
    return c;
  };
  const out = [];
  for (const el of root.querySelectorAll("*")) {
    const own = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join("").trim();
    if (!own) continue;
    const r = el.getBoundingClientRect();
    const st = getComputedStyle(el);
    if (!r.width || !r.height || st.visibility === "hidden" || st.display === "none") continue;
    if (el.closest("option, script, [aria-hidden=true]")) continue; // marks beside a word's name are graphics, not text
    const svg = el instanceof SVGElement;
    const fg = parse(svg ? st.fill : st.color);
    if (!fg) { out.push({text: own, bad: (svg ? st.fill : st.color)}); continue; }
    const bg = behind(svg ? el.ownerSVGElement : el);
    out.push({text: own.slice(0, 30), fg: over(fg, bg), bg, size: parseFloat(st.fontSize),
              bold: Number(st.fontWeight) >= 700, opacity: Number(st.opacity)});
  }
  return out;
}"""


def luminance(rgb) -> float:
    lin = [(v / 255 / 12.92) if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def open_page(tabs, page_path, lab, *, mode="light", **options):
    """A new tab at ``page_path`` in colour mode ``mode``, once its lab ``lab`` has drawn itself."""
    page = tabs.open(page_path, mode=mode, **options)
    page.wait_for_selector(f"{lab}.sa-lab-ready")
    return page


@pytest.mark.browser
@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("page_path, lab", LABS)
def test_every_text_in_a_lab_is_readable(tabs, page_path, lab, mode):
    page = open_page(tabs, page_path, lab, mode=mode, viewport={"width": 1366, "height": 900})
    assert page.evaluate("document.documentElement.dataset.theme") == mode
    texts = page.locator(lab).evaluate(TEXT_AND_BACKGROUND)
    assert len(texts) >= 8
    unreadable = [t for t in texts if "bad" in t]
    assert unreadable == [], f"colours that cannot be read: {unreadable[:5]}"
    low = [(t["text"], round(contrast(t["fg"], t["bg"]), 2)) for t in texts
           if contrast(t["fg"], t["bg"]) < (3.0 if t["size"] >= 18.5 or (t["bold"] and t["size"] >= 14) else 4.5)
           and t["opacity"] == 1]
    assert low == [], f"{mode} mode: text that does not contrast with its background: {low[:8]}"
    panel_bg = page.locator(f"{lab} .sa-panel").evaluate("el => getComputedStyle(el).backgroundColor")
    dark_panel = luminance([float(v) for v in re.findall(r"[\d.]+", panel_bg)[:3]]) < 0.2
    assert dark_panel == (mode == "dark")  # the panel follows the theme
    assert page.watch.console_errors == []


@pytest.mark.browser
@pytest.mark.parametrize("page_path, lab", LABS)
def test_labs_fit_a_phone(tabs, page_path, lab):
    page = open_page(tabs, page_path, lab, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    lab = page.locator(lab)
    wide = lab.evaluate("""root => { const w = document.documentElement.clientWidth;
        return [...root.querySelectorAll("*")].filter(el => !el.closest(".sa-ex-grid-wrap"))
          .filter(el => { const r = el.getBoundingClientRect(); return r.width && r.right > w + 0.5; })
          .map(el => el.className.baseVal ?? el.className); }""")
    assert wide == [], f"parts of the lab reach past the screen: {wide[:8]}"
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    # What scrolls sideways does so in its own box, which the keyboard can reach.
    for box in lab.locator(".sa-ex-grid-wrap").all():
        assert box.get_attribute("tabindex") == "0" and box.get_attribute("role") == "region"
    # Every control is at least 24 px high: a finger can hit it.
    # (A checkbox counts with its label; a heatmap's row label repeats a token of the strip above;
    # a control not shown, such as the explorer's Cancel while nothing loads, cannot be hit.)
    small = lab.evaluate("""root => [...root.querySelectorAll("button, select, input")]
        .filter(el => !el.classList.contains("sa-ex-rowtok") && el.getClientRects().length > 0)
        .filter(el => (el.closest("label") || el).getBoundingClientRect().height < 24)
        .map(el => el.outerHTML.slice(0, 60))""")
    assert small == []


@pytest.mark.book
def test_no_page_ships_the_labs_test_data(built_book):
    for html in built_book.rglob("*.html"):
        if html.relative_to(built_book).parts[0] == "_modules":
            continue   # viewcode's source pages show the code that makes the test data, as text
        text = html.read_text(encoding="utf-8")
        assert "sa-fixture" not in text, html.name
        assert "locked row ignores hover" not in text and "no division by sqrt(d_k)" not in text, html.name
