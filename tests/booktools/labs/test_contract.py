"""The HTML contract between Python and the labs is named once per language, and the two agree.

``booktools.labs.contract`` names it for Python, ``_static/sa/contract.js``
for JavaScript. The test reads the JavaScript module's ``export const``
lines and compares them with the Python names, then checks that no other
JavaScript module spells the contract's strings out.
"""

from __future__ import annotations

import re
from pathlib import Path

from booktools.labs import contract
from booktools.labs.contract import CONTRACT

ROOT = Path(__file__).resolve().parents[3]
STATIC = ROOT / "book" / "_static" / "sa"
EXPORT = re.compile(r'^export const ([A-Z_]+) = "([^"]*)";', re.M)


def js_contract() -> dict[str, str]:
    return dict(EXPORT.findall((STATIC / "contract.js").read_text(encoding="utf-8")))


def test_the_javascript_and_the_python_contract_name_the_same_things_alike():
    assert js_contract() == CONTRACT
    assert {name: getattr(contract, name) for name in CONTRACT} == CONTRACT
    assert set(CONTRACT) <= set(contract.__all__)


def test_no_other_javascript_module_spells_the_contract_out():
    # Quoted as a string, or as a class in a selector: ".sa-lab-config", "data-lab", /^[a-z0-9-]+$/ ...
    spelled = []
    values = sorted(CONTRACT.values(), key=len, reverse=True)
    for path in sorted(STATIC.rglob("*.js")):
        if path.name == "contract.js":
            continue
        code = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                         if not line.lstrip().startswith("//"))
        for value in values:
            if re.search(rf'["\'`.\[]{re.escape(value)}(?![\w-])', code) or value == contract.NAME_PATTERN \
                    and value.strip("^$") in code:
                spelled.append((path.relative_to(STATIC).as_posix(), value))
    assert spelled == []


def test_the_lab_element_and_its_config_block_match_the_page_patterns():
    from booktools.labs.element import lab_element

    markup = lab_element("grid", "g1", {"n": 4}, "<p>x</p>").markup
    tag = contract.LAB_TAG.match(markup)
    assert (tag["name"], tag["id"]) == ("grid", "g1")
    block = contract.CONFIG_BLOCK.search(markup)
    assert block["body"] == '{"n": 4}' and block["src"] is None
