"""`graphmend check --statistics`: how many findings each rule has, most first (ruff's --statistics)."""

from __future__ import annotations

import json
from collections import Counter

from graphmend_bot.findings import CheckResult
from graphmend_bot.rules import ALL_RULES_BY_CODE

# The --output-format values the counts are printed in (a table, or JSON); the others are refused.
STATISTICS_FORMATS = ("text", "json")


def rule_counts(result: CheckResult) -> list[tuple[str, int]]:
    """(code, count), the most frequent first, then by code."""
    return sorted(Counter(f.code for f in result.findings).items(), key=lambda item: (-item[1], item[0]))


def render_statistics(result: CheckResult, output_format: str) -> str:
    rows = [(code, count, ALL_RULES_BY_CODE[code].name if code in ALL_RULES_BY_CODE else "",
             ALL_RULES_BY_CODE[code].gb_id if code in ALL_RULES_BY_CODE else "")
            for code, count in rule_counts(result)]
    if output_format == "json":
        return json.dumps([{"code": code, "name": name, "graph_break_id": gb_id, "count": count}
                           for code, count, name, gb_id in rows], indent=2) + "\n"
    width = max((len(str(count)) for _, count, _, _ in rows), default=1)
    lines = [f"{count:>{width}}  {code}  {gb_id}  {name}" for code, count, name, gb_id in rows]
    return "".join(f"{line}\n" for line in lines)
