"""The verdict on one entry point, decided in one place: `judge_arms`.

An entry point passes when both arms ran, the rewrite added no graph and no graph break and left
at least one graph, and
every output (and, with `backward`, every gradient) passes the equivalence policy (policy.py). `judge_arms` returns the
verdict, the rule that decided it and the per-output checks. Its callers:

- the runner, from the arms the children measured and the comparison of their saved outputs;
- render, which shows that verdict (it decides nothing);
- the approval (github/approval/verdict.py `decide`), which recomputes it from the JSON report
  (`reported_arm`, `reported_equivalence`) rather than believe the report's `verdict`, and adds
  only what is the approval's own (a graph break must go away, none may be added; coverage; the
  rewrite recomputed from the base).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from graphmend_bot.verify.compare import Comparison
from graphmend_bot.verify.policy import Check

# Verdicts: the first two pass.
IMPROVED, UNCHANGED, REGRESSED, OUTPUTS_DIFFER, ERROR = (
    "improved",
    "unchanged",
    "regressed",
    "outputs differ",
    "error",
)
PASSING = (IMPROVED, UNCHANGED)

# The rules a verdict is decided by, besides the equivalence rules of policy.py (a failing
# output's failure carries its check's rule, e.g. eager-bitwise).
BOTH_ARMS_RAN = "both-arms-ran"
GRAPH_COUNTS_KNOWN = "graph-counts-known"
NO_GRAPH_ADDED = "no-graph-added"
NO_BREAK_ADDED = "no-break-added"
# Merging graphs leaves at least one; a rewritten arm with none no longer lets Dynamo see the code
# (a `torch.compiler.disable` on what is compiled): its zero breaks are hidden, not removed.
STILL_COMPILED = "still-compiled"
OUTPUTS_EQUIVALENT = "outputs-equivalent"  # seeds, structure and non-tensor leaves; or as reported
EVERY_RULE_PASSED = "every-rule-passed"


class ArmOutcome(Protocol):
    """What the verdict needs of one arm (protocol.ArmResult, or an arm read from a report)."""

    @property
    def ok(self) -> bool: ...
    @property
    def error(self) -> str | None: ...
    @property
    def graph_count(self) -> int | None: ...
    @property
    def graph_break_count(self) -> int | None: ...


@dataclass(frozen=True)
class Failure:
    rule: str  # the rule that failed
    reason: str  # one line for the reader


@dataclass(frozen=True)
class Equivalence:
    """Whether the rewritten arm's results pass the equivalence policy; why not, one failure per
    kind of result; and every output's check."""

    equal: bool
    failures: tuple[Failure, ...] = ()
    checks: tuple[Check, ...] = ()


@dataclass(frozen=True)
class Verdict:
    outcome: str  # IMPROVED, UNCHANGED, REGRESSED, OUTPUTS_DIFFER or ERROR
    failures: tuple[Failure, ...] = ()  # in the order the reader should see them
    checks: tuple[Check, ...] = ()  # per output and seed: the rule that judged it and the errors

    @property
    def passed(self) -> bool:
        return self.outcome in PASSING

    @property
    def rule(self) -> str:
        """The rule that decided: the first one that failed, or EVERY_RULE_PASSED."""
        return self.failures[0].rule if self.failures else EVERY_RULE_PASSED

    @property
    def reasons(self) -> list[str]:
        return [failure.reason for failure in self.failures]


def judge_arms(original: ArmOutcome, rewritten: ArmOutcome, compare: Callable[[], Equivalence]) -> Verdict:
    """The verdict on one entry point; `compare` judges the outputs, called only when both arms ran."""
    failed = tuple(
        Failure(BOTH_ARMS_RAN, f"{arm} arm failed: {result.error or 'no result'}")
        for arm, result in (("original", original), ("rewritten", rewritten))
        if not result.ok
    )
    if failed:
        return Verdict(ERROR, failed)
    before, after = original.graph_count, rewritten.graph_count
    breaks_before, breaks_after = original.graph_break_count, rewritten.graph_break_count
    if before is None or after is None or breaks_before is None or breaks_after is None:
        return Verdict(ERROR, (Failure(GRAPH_COUNTS_KNOWN, "graph counts are missing from the measurement"),))
    equivalence = compare()
    # Fewer breaks is an improvement even where the graph count stays (14 -> 13 breaks, a break
    # before a frame's first tensor op makes no graph); fewer graphs is one too.
    outcome = IMPROVED if after < before or breaks_after < breaks_before else UNCHANGED
    failures = [] if equivalence.equal else list(equivalence.failures)
    if not equivalence.equal:
        outcome = OUTPUTS_DIFFER
    if breaks_after > breaks_before:
        outcome = REGRESSED
        failures.insert(0, Failure(NO_BREAK_ADDED,
                                   f"the rewritten arm has more graph breaks ({breaks_after} > {breaks_before})"))
    if after > before:
        outcome = REGRESSED
        failures.insert(0, Failure(NO_GRAPH_ADDED, f"the rewritten arm has more graphs ({after} > {before})"))
    if after == 0 < before:
        outcome = REGRESSED
        failures.insert(0, Failure(STILL_COMPILED, f"the rewritten arm compiles no graph ({before} before): the "
                                   "rewrite hides the code from Dynamo instead of removing its breaks"))
    return Verdict(outcome, tuple(failures), equivalence.checks)


def measured_equivalence(comparison: Comparison, eager_tolerance: str) -> Equivalence:
    """A comparison of saved outputs (compare.py) as the verdict reads it: one failure per kind of
    result that failed (its first failing check), eager outputs first."""
    checks = tuple(comparison.checks)
    if comparison.equal:
        return Equivalence(True, (), checks)
    failing = comparison.failures
    if not failing:  # structure, non-tensor leaves or missing results
        reason = f"outputs differ ({eager_tolerance} required): {comparison.detail}"
        return Equivalence(False, (Failure(OUTPUTS_EQUIVALENT, reason),), checks)
    failures = []
    for kind, text in (
        ("eager", f"outputs differ ({eager_tolerance} required)"),
        ("grad-eager", f"gradients differ ({eager_tolerance} required)"),
        ("compiled", "compiled outputs are less accurate than the original's"),
        ("grad-compiled", "compiled gradients are less accurate than the original's"),
    ):
        first = next((check for check in failing if check.kind == kind), None)
        if first is not None:
            failures.append(
                Failure(
                    first.rule,
                    f"{text}: seed {first.seed}, {first.kind}, {first.key}: {first.detail} (rule {first.rule})",
                )
            )
    return Equivalence(False, tuple(failures), checks)


@dataclass(frozen=True)
class ReportedArm:
    """An arm as the JSON report gives it, read defensively: a field of the wrong type is absent."""

    ok: bool
    error: str | None
    graph_count: int | None
    graph_break_count: int | None


def reported_arm(data: Any) -> ReportedArm:
    arm: Mapping[str, Any] = data if isinstance(data, Mapping) else {}
    error = arm.get("error")
    return ReportedArm(
        ok=arm.get("ok") is True,
        error=error if isinstance(error, str) else None,
        graph_count=_count(arm.get("graph_count")),
        graph_break_count=_count(arm.get("graph_break_count")),
    )


def reported_equivalence(entry: Mapping[str, Any]) -> Equivalence:
    """The equivalence a report entry states (`outputs_equal`; the tensors stayed on the measuring
    machine): anything but `true` fails, with the entry's reasons about outputs as the detail."""
    if entry.get("outputs_equal") is True:
        return Equivalence(True)
    reasons = entry.get("reasons")
    # verify's reasons about outputs, and about gradients with `backward` (a NaN gradient)
    detail = "; ".join(str(r) for r in reasons if "outputs" in str(r) or "gradients" in str(r)) if isinstance(
        reasons, list) else ""
    reason = "outputs are not equivalent" + (f" ({detail})" if detail else "")
    return Equivalence(False, (Failure(OUTPUTS_EQUIVALENT, reason),))


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
