"""Per-rule fixtures: `graphmend check` reports exactly the lines marked `# expect: GMnnn`."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rules import RULES

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "rules"
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>GM\d+(?:\s*,\s*GM\d+)*)")
FILES = sorted(FIXTURES.glob("*.py"))
# A stand-in for an installed package, which GM608's fixture calls (and Dynamo then imports).
DEPENDENCY_SITE = FIXTURES.parent / "dependency" / "site"
if str(DEPENDENCY_SITE) not in sys.path:
    sys.path.append(str(DEPENDENCY_SITE))


def config_for(path: Path) -> Config | None:
    """The configuration a fixture is checked with: the dependencies it calls into."""
    return Config(dependencies=["fakedep"]) if "from fakedep" in path.read_text(encoding="utf-8") else None


def expected(path: Path) -> set[tuple[int, str]]:
    marks: set[tuple[int, str]] = set()
    for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            marks.update((row, code.strip()) for code in match["codes"].split(","))
    return marks


def reported(path: Path) -> set[tuple[int, str]]:
    result = check([str(path)], config_for(path), jobs=1)
    assert not result.errors, result.errors
    return {(f.location.row, f.code) for f in result.findings}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_fixture_findings_are_exactly_the_marked_lines(path: Path) -> None:
    assert reported(path) == expected(path)


def test_every_rule_has_a_fixture_with_a_positive() -> None:
    covered = {code for path in FILES for _, code in expected(path)}
    assert covered == {rule.code for rule in RULES}
    for rule in RULES:
        assert any(p.name.startswith(f"{rule.code}_") for p in FILES), rule.code


def test_negative_fixtures_mark_nothing_and_exist() -> None:
    negatives = [p for p in FILES if p.name.startswith("negatives_")]
    assert negatives
    for path in negatives:
        assert expected(path) == set()
