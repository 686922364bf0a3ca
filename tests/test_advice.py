"""The `help:` advice for findings without a fix: every rule has some, and it quotes the flagged code."""

from __future__ import annotations

from pathlib import Path

from graphmend_bot.engine import check
from graphmend_bot.findings import Finding, Location
from graphmend_bot.report.advice import advice, flagged_text
from graphmend_bot.rules import RULES


def finding(code: str, line: str, start: int, end: int, end_row: int = 3) -> Finding:
    return Finding(code, "message", "m.py", Location(3, start), Location(end_row, end), "GB0000", source_line=line)


def test_every_rule_has_advice_that_quotes_the_flagged_code() -> None:
    line = "        y = torch.nonzero(x)"
    for rule in RULES:
        text = advice(finding(rule.code, line, 13, 29))
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
    by_code = {f.code: advice(f) for f in check([str(tmp_path)]).findings}
    assert by_code["GM403"].startswith("Left as written: compiled callers need this notice")
    assert "`deprecation-notices: guard`" in by_code["GM403"] and "`warnings.warn(" in by_code["GM403"]
    assert by_code["GM401"].startswith("Guard `print('step')`")
