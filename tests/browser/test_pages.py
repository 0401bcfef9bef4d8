"""Every built page opens in Chromium without errors, foreign requests or raw math."""

from __future__ import annotations

import pytest

from tests.book.pages import built_pages

WAIT_FOR_MATH = """async () => {
  if (!window.MathJax || !window.MathJax.startup) return 'no-mathjax';
  await window.MathJax.startup.promise;
  return 'ok';
}"""

RAW_MATH = """() => Array.from(document.querySelectorAll('.math'))
  .filter(el => !el.querySelector('mjx-container') && el.tagName !== 'MJX-CONTAINER')
  .map(el => el.textContent.slice(0, 60))"""


def pytest_generate_tests(metafunc):
    if "page_path" in metafunc.fixturenames:
        metafunc.parametrize("page_path", built_pages())


@pytest.mark.browser
def test_page_loads_cleanly(page, site_url, page_path):
    page.goto(f"{site_url}/{page_path}", wait_until="networkidle")
    has_math = page.locator(".math").count() > 0
    if has_math:
        assert page.evaluate(WAIT_FOR_MATH) == "ok", "MathJax did not load"
        assert page.evaluate(RAW_MATH) == [], "math left unrendered"
        assert page.locator("mjx-merror").count() == 0, "MathJax reported a math error"
    assert page.watch.foreign == [], f"requests to other hosts: {page.watch.foreign}"
    assert page.watch.console_errors == [], f"console errors: {page.watch.console_errors}"
