"""The `help:` advice for findings without a fix: every rule owns some, and it quotes the flagged code."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from graphmend_bot.engine import check
from graphmend_bot.findings import Finding, Location
from graphmend_bot.rules import RULES, RULES_BY_CODE, advice_for, gm101_data_dependent_if
from graphmend_bot.rules.advice import flagged_text


def finding(code: str, line: str, start: int, end: int, end_row: int = 3) -> Finding:
    return Finding(code, "message", "m.py", Location(3, start), Location(end_row, end), "GB0000", source_line=line)


def test_every_rule_has_advice_that_quotes_the_flagged_code() -> None:
    line = "        y = torch.nonzero(x)"
    for rule in RULES:
        text = advice_for(finding(rule.code, line, 13, 29))
        assert "torch.nonzero(x)" in text, rule.code
        assert text[0].isupper() or text[0] == "`", rule.code


def test_flagged_text_is_shortened_for_long_calls_and_several_lines() -> None:
    call = '        logger.warning_once("' + "a very long message " * 5 + '")'
    assert flagged_text(finding("GM402", call, 9, len(call) + 1)) == "logger.warning_once(...)"
    assert flagged_text(finding("GM101", "    if (x > 0).any() and (", 8, 5, end_row=5)) == "(x > 0).any() and ( ..."


def test_a_deprecation_notice_is_left_and_the_advice_names_the_choice(tmp_path: Path) -> None:
    """Issue 16: a guard would hide the notice from compiled callers (GM403's fix safety), so the
    advice leaves it and names the project-level setting that guards or defers it."""
    (tmp_path / "case.py").write_text(
        "import warnings\n\nimport torch\n\n\n@torch.compile\ndef f(x):\n    y = x + 1\n"
        "    warnings.warn('`scale` is deprecated', FutureWarning)\n    print('step')\n    return y\n",
        encoding="utf-8")
    by_code = {f.code: advice_for(f) for f in check([str(tmp_path)]).findings}
    assert by_code["GM403"].startswith("Left as written: compiled callers need this notice")
    assert "`deprecation-notices: guard`" in by_code["GM403"] and "`warnings.warn(" in by_code["GM403"]
    assert by_code["GM401"].startswith("Guard `print('step')`")


def test_a_rule_carries_its_advice_and_its_special_cases() -> None:
    """Issue 26: the advice is the rule's own (no table elsewhere keyed by code), and a rule's
    special case (GM101's operand before the compile guard) is chosen from the finding it gets."""
    rule = RULES_BY_CODE["GM101"]
    before_guard = gm101_data_dependent_if.BEFORE_GUARD_MESSAGE
    line = "    if x.min() < 0 and not torch.compiler.is_compiling():"
    plain = Finding(rule.code, "`if` condition depends on tensor values", "m.py", Location(3, 8), Location(3, 20),
                    rule.gb_id, source_line=line)
    guarded = Finding(rule.code, before_guard, "m.py", Location(3, 8), Location(3, 20), rule.gb_id, source_line=line)
    assert rule.advice_for(plain) == rule.advice.format(code="x.min() < 0")
    assert rule.advice_for(guarded).startswith("`and`/`or` evaluate left to right, so `x.min() < 0` runs")
    assert advice_for(replace(plain, code="GM999")) == ""
