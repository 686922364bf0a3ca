"""Does a verify report prove the rewrite? A pure function of the JSON report (render.report_json).

Proven means both:
- every entry point passed: both arms ran, no graph was added, and its outputs (and gradients,
  with `backward`) passed the equivalence policy (policy.py);
- every rewritten line was executed by at least one entry point (coverage.py).

`proves_rewrite` reads the verdicts as the report states them (`passed`, `outputs_equal`): it is
the report's own `proof` field. The approval does not use it: it recomputes each verdict with
judgement.judge_arms and takes only `rewrite_coverage` from here, so no rule is decided twice.

The report is read defensively (it travels between jobs as an artifact): anything missing or of
the wrong type is a reason not to prove, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_LISTED = 20  # uncovered lines named in the reasons; the rest are counted


@dataclass(frozen=True)
class Proof:
    proven: bool
    reasons: list[str]  # why not, one per problem; empty when proven
    # "path:line" -> the entry points that executed it, for every covered rewritten line
    covered_by: dict[str, list[str]] = field(default_factory=dict)


def proves_rewrite(report: Mapping[str, Any]) -> Proof:
    reasons: list[str] = []
    entries = report.get("entry_points")
    if not isinstance(entries, list) or not entries:
        reasons.append("no entry point was verified")
        entries = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            reasons.append(f"entry point {index} is malformed")
            continue
        name = _text(entry.get("name"), f"entry point {index}")
        if entry.get("passed") is not True:
            verdict = _text(entry.get("verdict"), "no verdict")
            reasons.append(f"`{name}` did not pass ({verdict})")
        elif entry.get("outputs_equal") is not True:
            reasons.append(f"`{name}`: outputs are not equivalent under the policy")
    covered_by, unproven = rewrite_coverage(report)
    reasons += unproven
    return Proof(not reasons, reasons, covered_by)


def rewrite_coverage(report: Mapping[str, Any]) -> tuple[dict[str, list[str]], list[str]]:
    """("path:line" -> the entry points that ran it, for each covered rewritten line; why the
    coverage does not prove the rewrite, empty when every rewritten line ran)."""
    coverage = report.get("coverage")
    covered_by: dict[str, list[str]] = {}
    if not isinstance(coverage, Mapping):
        return covered_by, ["the report has no coverage of the rewritten lines"]
    total = coverage.get("rewritten_lines")
    covered, uncovered = coverage.get("covered"), coverage.get("uncovered")
    if not isinstance(total, int) or not isinstance(covered, list) or not isinstance(uncovered, list):
        return covered_by, ["the report's coverage is malformed"]
    reasons: list[str] = []
    if total == 0:
        reasons.append("the report lists no rewritten line: there is nothing it proves")
    for line in covered:
        if isinstance(line, Mapping) and isinstance(line.get("entry_points"), list) and line["entry_points"]:
            covered_by[_where(line)] = [_text(name, "?") for name in line["entry_points"]]
    if uncovered:
        named = ", ".join(_where(line) for line in uncovered[:MAX_LISTED])
        more = f" and {len(uncovered) - MAX_LISTED} more" if len(uncovered) > MAX_LISTED else ""
        reasons.append(f"{len(uncovered)} rewritten line(s) never executed by an entry point: {named}{more}")
    if len(covered_by) + len(uncovered) != total:
        reasons.append(
            f"the coverage does not add up: {len(covered_by)} covered + {len(uncovered)} uncovered != {total}"
        )
    return covered_by, reasons


def _where(line: Any) -> str:
    if not isinstance(line, Mapping):
        return "?"
    number = line.get("line")
    return f"{_text(line.get('path'), '?')}:{number if isinstance(number, int) else '?'}"


def _text(value: Any, default: str) -> str:
    """A string from the report, short and on one line."""
    if not isinstance(value, str) or not value:
        return default
    flat = " ".join(value.split())
    return flat if len(flat) <= 120 else flat[:117] + "..."
