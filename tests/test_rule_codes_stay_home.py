"""A rule's code is its own: outside its module, code never asks which rule a finding is.

The rule this enforces (issue 26): in graphmend_bot's sources, a string constant that is a rule
code (`"GM101"`, or a prefix such as `"GM4"`) appears only in that rule's own module
(`rules/gm101_*.py`). Strategies get what they need from the rule's reference to them
(`fixes=("io:build_print_fix",)`), advice lives on the rule, and everything else reads
`finding.code` only to look the rule up or to print it. Prose that names codes (docstrings, rule
documentation, help text) is documentation and may name any code.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "graphmend_bot"
CODE = re.compile(r"GM\d+")
OWN_MODULE = re.compile(r"gm(\d{3})_\w+\.py")


def code_constants(path: Path) -> list[tuple[int, str]]:
    """(line, code) of every string constant in `path` whose whole value is a code or a prefix."""
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.fullmatch(node.value)]


def test_a_code_appears_only_in_its_own_rule_module() -> None:
    strays = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = OWN_MODULE.fullmatch(path.name) if path.parent.name == "rules" else None
        strays += [f"{path.relative_to(PACKAGE.parent)}:{line}: {code}" for line, code in code_constants(path)
                   if own is None or code != f"GM{own.group(1)}"]
    assert strays == []


def test_every_rule_module_names_its_own_code() -> None:
    """The scan itself: it finds each rule's `code="GMxxx"`."""
    modules = sorted((PACKAGE / "rules").glob("gm*.py"))
    assert len(modules) > 30
    for path in modules:
        own = OWN_MODULE.fullmatch(path.name)
        assert own is not None and f"GM{own.group(1)}" in {code for _, code in code_constants(path)}, path.name
