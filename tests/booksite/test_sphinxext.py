"""The build's CSP post-processing (the notebook export is tested in test_notebooks.py)."""

import pytest

from booksite.sphinxext import apply_csp, inline_script_hashes

PAGE = '<html><head><meta charset="utf-8" />\n<script>a()</script></head>' \
       '<body><button onclick="window.print()">p</button></body></html>'


def test_csp_allows_inline_scripts_only_by_hash():
    out = apply_csp(PAGE)
    policy = out.split('content="', 1)[1].split('"', 1)[0]
    script_src = next(p for p in policy.split(";") if p.strip().startswith("script-src"))
    assert inline_script_hashes(PAGE)[0] in script_src
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
    assert "'wasm-unsafe-eval'" in script_src  # compiling the reader's Python (booksite.runcells)


def test_theme_onclick_handlers_become_data_attributes():
    out = apply_csp(PAGE)
    assert "onclick" not in out and 'data-sa-action="print"' in out


def test_an_unknown_inline_handler_fails_the_build():
    with pytest.raises(ValueError, match="inline event handler"):
        apply_csp(PAGE.replace('onclick="window.print()"', 'onclick="go()"'))


def test_csp_is_placed_once_even_when_applied_twice():
    out = apply_csp(apply_csp(PAGE))
    assert out.count("Content-Security-Policy") == 1


def test_json_data_blocks_need_no_hash():
    assert inline_script_hashes('<script type="application/json">{"a": 1}</script>') == []


def test_a_page_whose_choices_can_be_guessed_fails_the_build(caplog):
    from booksite.sphinxext import _check_balance
    from booktools.selfcheck import choose_check

    wrong = {"a wrong option": "h", "another wrong one": "h", "a third wrong": "h"}
    ids = [f"c{i}" for i in range(40)
           if '"answer": 0' in choose_check(f"c{i}", "q?", "right", wrong).markup][:3]
    body = "".join(choose_check(i, "q?", "right", wrong).markup for i in ids)
    with caplog.at_level("WARNING"):
        _check_balance(None, "chapter", None, {"body": body}, None)
    assert "self-checks of chapter: all 3 choice checks have their right option in place 1" in caplog.text
