"""`graphmend census --compare BASE`: the graph breaks a change added and removed, as a gate.

Two censuses (the base's and the head's, each read by the strict reader) are matched break by break
on fingerprints (fingerprint.py), so breaks that only moved are neither added nor removed. Per
census target (module or entry point): graphs, breaks, recompiles and fallbacks to eager on each
side. A target whose explain failed is reported as failed, never as a clean 0 breaks, and a target
that fails on the head but did not on the base fails the gate as an added break does: what it
breaks is unknown.

With a budget (budget.py, the repository's `graphmend-breaks.json` at the base commit), an added break
the budget expects is `accepted`, not added; with a budget and no base census, every head break the
budget does not hold is added (PyTorch's expected-breaks check).
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from graphmend_bot.census.budget import Budget, load_budget
from graphmend_bot.census.fingerprint import fingerprints
from graphmend_bot.census.record import (
    BreakRecord,
    CallRecord,
    Census,
    CensusError,
    bounded_list,
    is_commit,
    load_census,
    parse_breaks,
    printable_text,
    whole_number,
)
from graphmend_bot.census.reuse import complete_partial

EXIT_CLEAN = 0
EXIT_ADDED = 1
EXIT_UNUSABLE = 2


@dataclass
class TargetSummary:
    """What a census target's explained calls (one per input signature) added up to."""

    calls: int = 0
    graphs: int = 0
    breaks: int = 0
    recompiles: int = 0
    fallbacks: int = 0
    failed: int = 0  # calls that explain could not handle: their breaks are unknown
    error: str = ""  # the first failed call's error


@dataclass
class TargetChange:
    target: str
    base: TargetSummary | None  # None: not called on that side
    head: TargetSummary | None

    @property
    def newly_failed(self) -> bool:
        return self.head is not None and self.head.failed > 0 and (self.base is None or self.base.failed == 0)


@dataclass
class Comparison:
    base_commit: str
    head_commit: str
    added: list[BreakRecord] = field(default_factory=list)
    removed: list[BreakRecord] = field(default_factory=list)
    accepted: list[BreakRecord] = field(default_factory=list)  # added, but the budget expects them
    targets: list[TargetChange] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # why the verdict may not be the whole truth

    @property
    def newly_failed(self) -> list[TargetChange]:
        return [change for change in self.targets if change.newly_failed]

    @property
    def failed_on_head(self) -> list[TargetChange]:
        """Targets with a call explain could not handle on the head: their breaks are unknown, whatever
        the base said (0 breaks because compile failed is never clean)."""
        return [change for change in self.targets if change.head is not None and change.head.failed]

    @property
    def missing_on_head(self) -> list[TargetChange]:
        """Targets the base's tests called and the head's did not: their breaks there are unknown (a
        removed break of theirs may only not have run)."""
        return [change for change in self.targets if change.head is None]

    @property
    def exit_status(self) -> int:
        if self.problems:
            return EXIT_UNUSABLE
        return EXIT_ADDED if self.added or self.newly_failed else EXIT_CLEAN


def summarise(calls: list[CallRecord]) -> dict[str, TargetSummary]:
    targets: dict[str, TargetSummary] = {}
    for call in calls:
        summary = targets.setdefault(call.target, TargetSummary())
        summary.calls += 1
        if call.error:
            summary.failed += 1
            summary.error = summary.error or call.error
            continue
        summary.graphs += call.graph_count
        summary.breaks += call.graph_break_count
        summary.recompiles += call.recompiles
        summary.fallbacks += call.fallbacks
    return targets


def compare(base: Census | None, head: Census, budget: Budget | None = None) -> Comparison:
    """`base` None: judged against the budget alone (nothing is "removed")."""
    comparison = Comparison(base.commit if base is not None else "", head.commit)
    if head.partial:  # pull-request mode: the base census holds the calls that reach no changed file
        try:
            if base is None:
                raise CensusError("there is no base census to take the other calls from")
            head = complete_partial(base, head)
        except CensusError as error:
            comparison.problems.append(f"the head census is partial and cannot be completed: {error}")
    for side, census in (("base", base), ("head", head)):
        if census is not None and not census.complete:
            comparison.problems.append(f"the {side} census is incomplete (its test run stopped early): breaks it "
                                       "lacks may only not have run")
    before, after = fingerprints(base.breaks if base is not None else ()), fingerprints(head.breaks)
    new = sorted((key for key in after.keys() - before.keys()), key=lambda key: _where(after[key]))
    comparison.added = [after[key] for key in new if budget is None or not budget.holds(key)]
    comparison.accepted = [after[key] for key in new if budget is not None and budget.holds(key)]
    comparison.removed = sorted((before[key] for key in before.keys() - after.keys()), key=_where)
    base_targets, head_targets = summarise(base.calls if base is not None else []), summarise(head.calls)
    comparison.targets = [TargetChange(target, base_targets.get(target), head_targets.get(target))
                          for target in sorted(base_targets.keys() | head_targets.keys())]
    return comparison


def gate_failure(comparison: Comparison | None, why_none: str) -> str:
    """Why the gate fails on this comparison (trusted inputs only), "" when it passes."""
    if comparison is None:
        return f"no trusted base to compare the head's census with ({why_none}): the breaks added are unknown"
    if comparison.problems:
        return f"{comparison.problems[0]}: no verdict"
    if comparison.added:
        return f"{len(comparison.added)} graph break(s) added beyond the base's census and the budget"
    if comparison.newly_failed:
        return (f"{len(comparison.newly_failed)} census target(s) failed to compile on the head, so their breaks "
                "are unknown")
    return ""


def _where(record: BreakRecord) -> tuple[str, int]:
    return record.path, record.line


# -- output ----------------------------------------------------------------------------------------
def render_text(comparison: Comparison) -> str:
    accepted = f", {len(comparison.accepted)} new but in the budget" if comparison.accepted else ""
    lines = [f"graphmend census: {len(comparison.added)} break(s) added, {len(comparison.removed)} removed{accepted} "
             f"(base {comparison.base_commit[:12] or 'unknown'} -> head {comparison.head_commit[:12] or 'unknown'})"]
    for sign, records in (("+", comparison.added), ("-", comparison.removed), ("~", comparison.accepted)):
        lines += [f"{sign} {_break_line(record)}" for record in records]
    if comparison.targets:
        lines.append("per target (base -> head):")
        lines += [f"  {change.target}: {_target_line(change)}" for change in comparison.targets]
    lines += [f"graphmend census: {problem}" for problem in comparison.problems]
    for change in comparison.newly_failed:
        lines.append(f"graphmend census: {change.target} could not be explained on the head, so its breaks are "
                     "unknown: not clean")
    return "\n".join(lines) + "\n"


def _break_line(record: BreakRecord) -> str:
    parts = [f"{record.path}:{record.line}", record.reason]
    if record.gb_id:
        parts.append(f"[{record.gb_id}]")
    if record.function:
        parts.append(f"in {record.function}")
    if record.test:
        parts.append(f"(test {record.test})")
    return "  ".join(parts)


def _target_line(change: TargetChange) -> str:
    def side(summary: TargetSummary | None, name: str) -> str | int:
        if summary is None:
            return "-"
        return "failed" if summary.failed and not summary.calls - summary.failed else getattr(summary, name)

    text = ", ".join(f"{name} {side(change.base, name)} -> {side(change.head, name)}"
                     for name in ("graphs", "breaks", "recompiles", "fallbacks"))
    failures = [f"{label} failed: {summary.error}" for label, summary in (("base", change.base), ("head", change.head))
                if summary is not None and summary.failed]
    return "; ".join([text, *failures])


def comparison_data(comparison: Comparison) -> dict[str, Any]:
    """The comparison as JSON data (`--output-format json`, and what a fork's review bundle carries)."""
    return {"base_commit": comparison.base_commit, "head_commit": comparison.head_commit,
            "added": [asdict(record) for record in comparison.added],
            "removed": [asdict(record) for record in comparison.removed],
            "accepted": [asdict(record) for record in comparison.accepted],
            "targets": [{"target": change.target, "base": change.base and asdict(change.base),
                         "head": change.head and asdict(change.head), "newly_failed": change.newly_failed}
                        for change in comparison.targets],
            "problems": comparison.problems, "exit_status": comparison.exit_status}


def render_json(comparison: Comparison) -> str:
    return json.dumps(comparison_data(comparison), indent=1) + "\n"


# -- reading one back: a fork's review bundle carries it, and a pull request's code wrote it --------
MAX_SHOWN = 1000  # the table shows 50 rows; a bundle carries no more than this per list
MAX_PROBLEMS = 20


def parse_comparison(data: Any) -> Comparison:
    """`comparison_data`'s output, validated as a census file is (bounded lists, printable text cut
    to length, well-formed ids, paths and commits); the derived fields are recomputed, never read.
    CensusError naming the first bad field."""
    if not isinstance(data, dict):
        raise CensusError("the comparison must be an object")
    base, head = (printable_text(data.get(side, ""), side, 64).lower() for side in ("base_commit", "head_commit"))
    if any(commit and not is_commit(commit) for commit in (base, head)):
        raise CensusError("base_commit and head_commit must be hexadecimal commit ids")
    added, removed, accepted = (parse_breaks(data.get(name), name, MAX_SHOWN) for name in ("added", "removed", "accepted"))
    comparison = Comparison(base, head, added, removed, accepted)
    for index, item in enumerate(bounded_list(data.get("targets"), "targets", MAX_SHOWN)):
        name = f"targets[{index}]"
        if not isinstance(item, dict):
            raise CensusError(f"{name} must be an object")
        comparison.targets.append(TargetChange(printable_text(item.get("target"), f"{name}.target"),
                                               _summary(item.get("base"), f"{name}.base"),
                                               _summary(item.get("head"), f"{name}.head")))
    comparison.problems = [printable_text(problem, "problems")
                           for problem in bounded_list(data.get("problems"), "problems", MAX_PROBLEMS)]
    return comparison


def _summary(value: Any, name: str) -> TargetSummary | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CensusError(f"{name} must be an object or null")
    counts = {field_name: whole_number(value.get(field_name, 0), f"{name}.{field_name}")
              for field_name in ("calls", "graphs", "breaks", "recompiles", "fallbacks", "failed")}
    return TargetSummary(**counts, error=printable_text(value.get("error", ""), f"{name}.error"))


RENDERERS = {"text": render_text, "json": render_json}


def compare_files(base: Path | None, head: Path, output_format: str = "text", budget: Path | None = None) -> int:
    """Print the comparison of two census files (or of the head's with a budget file); the gate's
    exit status (EXIT_ADDED when breaks were added or a target newly failed, EXIT_UNUSABLE when a
    census or the budget cannot be used)."""
    try:
        base_census = load_census(base) if base is not None else None
        head_census = load_census(head)
        expected = load_budget(budget) if budget is not None else None
    except CensusError as error:
        print(f"graphmend: census comparison not made: {error}", file=sys.stderr)
        return EXIT_UNUSABLE
    comparison = compare(base_census, head_census, expected)
    sys.stdout.write(RENDERERS[output_format](comparison))
    return comparison.exit_status
