"""One verdict function, `judge_arms`: what it decides, and that the runner, the JSON report and the
approval all get the same verdict from it."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
import torch

from graphmend_bot.github.approval.verdict import APPROVE, REQUEST_CHANGES, decide
from graphmend_bot.verify import ArmSource, EntryPoint, Settings, VerifyReport
from graphmend_bot.verify.compare import compare_outputs
from graphmend_bot.verify.judgement import (
    BOTH_ARMS_RAN,
    ERROR,
    EVERY_RULE_PASSED,
    GRAPH_COUNTS_KNOWN,
    IMPROVED,
    NO_BREAK_ADDED,
    NO_GRAPH_ADDED,
    OUTPUTS_DIFFER,
    REGRESSED,
    STILL_COMPILED,
    UNCHANGED,
    Equivalence,
    Failure,
    ReportedArm,
    judge_arms,
    measured_equivalence,
    reported_arm,
    reported_equivalence,
)
from graphmend_bot.verify.policy import COMPILED_VS_EAGER, EAGER_BITWISE
from graphmend_bot.verify.protocol import ArmResult
from graphmend_bot.verify.render import report_json
from graphmend_bot.verify.runner import judge

EQUAL = Equivalence(True)
DIFFERENT = Equivalence(False, (Failure(EAGER_BITWISE, "outputs differ (bit-identical required): ..."),))


def arm(graphs: int | None = 2, breaks: int | None = 1, ok: bool = True, error: str | None = None) -> ReportedArm:
    return ReportedArm(ok, error, graphs, breaks)


def never_called() -> Equivalence:
    raise AssertionError("outputs are compared only when both arms ran and were counted")


def test_a_failed_arm_decides_before_anything_is_compared() -> None:
    verdict = judge_arms(arm(ok=False, error="boom"), arm(ok=False), never_called)
    assert (verdict.outcome, verdict.passed, verdict.rule) == (ERROR, False, BOTH_ARMS_RAN)
    assert verdict.reasons == ["original arm failed: boom", "rewritten arm failed: no result"]
    missing = judge_arms(arm(graphs=None), arm(), never_called)
    assert (missing.outcome, missing.rule) == (ERROR, GRAPH_COUNTS_KNOWN)
    assert missing.reasons == ["graph counts are missing from the measurement"]


@pytest.mark.parametrize(
    ("rewritten_graphs", "equivalence", "outcome", "rules"),
    [
        (1, EQUAL, IMPROVED, []),
        (2, EQUAL, UNCHANGED, []),
        (1, DIFFERENT, OUTPUTS_DIFFER, [EAGER_BITWISE]),
        (3, EQUAL, REGRESSED, [NO_GRAPH_ADDED]),
        (3, DIFFERENT, REGRESSED, [NO_GRAPH_ADDED, EAGER_BITWISE]),  # both reasons, the graphs first
        # No graph at all: the code was hidden from Dynamo (a disabled entry point), not mended.
        (0, EQUAL, REGRESSED, [STILL_COMPILED]),
    ],
)
def test_the_verdict_and_the_rule_that_decided(
    rewritten_graphs: int, equivalence: Equivalence, outcome: str, rules: list[str]
) -> None:
    verdict = judge_arms(arm(graphs=2), arm(graphs=rewritten_graphs), lambda: equivalence)
    assert verdict.outcome == outcome
    assert verdict.passed is (outcome in (IMPROVED, UNCHANGED))
    assert [failure.rule for failure in verdict.failures] == rules
    assert verdict.rule == (rules[0] if rules else EVERY_RULE_PASSED)
    if NO_GRAPH_ADDED in rules:
        assert verdict.reasons[0] == f"the rewritten arm has more graphs ({rewritten_graphs} > 2)"


@pytest.mark.parametrize(
    ("breaks", "outcome", "rules"),
    [
        ((14, 13), IMPROVED, []),  # one break fewer with the graph count unchanged: not "unchanged"
        ((1, 1), UNCHANGED, []),
        ((1, 2), REGRESSED, [NO_BREAK_ADDED]),  # a break before a frame's first op adds no graph
    ],
)
def test_the_verdict_reads_the_breaks_as_well_as_the_graphs(breaks: tuple[int, int], outcome: str,
                                                            rules: list[str]) -> None:
    verdict = judge_arms(arm(graphs=2, breaks=breaks[0]), arm(graphs=2, breaks=breaks[1]), lambda: EQUAL)
    assert verdict.outcome == outcome
    assert [failure.rule for failure in verdict.failures] == rules
    if rules:
        assert verdict.reasons == [f"the rewritten arm has more graph breaks ({breaks[1]} > {breaks[0]})"]


def saved(folder: Path, name: str, eager: torch.Tensor, compiled: torch.Tensor) -> dict:
    """One seed of an arm in the children's format."""
    records = {}
    for kind, value in (("eager", eager), ("compiled", compiled)):
        path = folder / f"{name}-{kind}.pt"
        torch.save({"output": value}, path)
        records[kind] = {"tensors": str(path), "leaves": {}}
    return {"0": records}


def test_measured_equivalence_names_each_failing_rule_with_its_first_failure(tmp_path: Path) -> None:
    value = torch.tensor([1.0, 2.0, 3.0])
    original = saved(tmp_path, "a", value, value)
    rewritten = saved(tmp_path, "b", value + 1, value * 100)
    comparison = compare_outputs(original, rewritten, (0.0, 0.0))
    equivalence = measured_equivalence(comparison, "bit-identical")
    assert not equivalence.equal and equivalence.checks == tuple(comparison.checks)
    # no fp64 reference was saved: the compiled output is judged against the original's eager one
    assert [failure.rule for failure in equivalence.failures] == [EAGER_BITWISE, COMPILED_VS_EAGER]
    eager, compiled = [failure.reason for failure in equivalence.failures]
    assert eager.startswith("outputs differ (bit-identical required): seed 0, eager, output: ")
    assert eager.endswith("(rule eager-bitwise)")
    assert compiled.startswith("compiled outputs are less accurate than the original's: seed 0, compiled, output: ")
    same = measured_equivalence(compare_outputs(original, saved(tmp_path, "c", value, value), (0.0, 0.0)), "x")
    assert same.equal and same.failures == () and all(check.passed for check in same.checks)


def arm_result(graphs: int, breaks: int, outputs: dict) -> ArmResult:
    return ArmResult(
        ok=True, device="cpu", torch_version=torch.__version__, graph_count=graphs, graph_break_count=breaks,
        cold_start_s=1.0, steady_state_s=0.1, outputs=outputs,
    )  # fmt: skip


def test_the_runner_the_report_and_the_approval_reach_the_same_verdict(tmp_path: Path) -> None:
    """The approval recomputes each verdict from the JSON with the runner's own function."""
    value = torch.tensor([1.0, 2.0])
    good = saved(tmp_path, "good", value, value)
    entry = EntryPoint("net", "m:f", Settings(device="cpu"))
    cases = {
        IMPROVED: (arm_result(2, 1, good), arm_result(1, 0, saved(tmp_path, "same", value, value))),
        OUTPUTS_DIFFER: (arm_result(2, 1, good), arm_result(1, 0, saved(tmp_path, "off", value + 1, value))),
        REGRESSED: (arm_result(1, 0, good), arm_result(2, 1, saved(tmp_path, "more", value, value))),
        ERROR: (arm_result(2, 1, good), ArmResult.failed("run-failed", "the eager call raised ValueError: x")),
    }
    for expected, (original, rewritten) in cases.items():
        result = judge(entry, original, rewritten)
        assert result.verdict == expected, result.reasons
        data = report_json(VerifyReport(ArmSource(tmp_path, "base"), ArmSource(tmp_path, "head"), [result]))
        (reported,) = data["entry_points"]
        assert (reported["verdict"], reported["rule"]) == (expected, result.judgement.rule)
        recomputed = judge_arms(
            reported_arm(reported["original"]),
            reported_arm(reported["rewritten"]),
            partial(reported_equivalence, reported),
        )
        assert (recomputed.outcome, recomputed.passed) == (expected, result.passed)
        # With every rewritten line covered, the approval approves exactly the passing verdict.
        data["coverage"] = {
            "rewritten_lines": 1, "uncovered": [],
            "covered": [{"path": "m.py", "line": 1, "entry_points": ["net"]}],
        }  # fmt: skip
        assert decide(data).event == (APPROVE if result.passed else REQUEST_CHANGES), decide(data)


def test_a_saved_output_the_code_under_test_overwrote_fails_that_entry_point_with_a_message(
    tmp_path: Path,
) -> None:
    value = torch.tensor([1.0, 2.0])
    original = saved(tmp_path, "a", value, value)
    rewritten = saved(tmp_path, "b", value, value)
    Path(rewritten["0"]["eager"]["tensors"]).write_bytes(b"\x80\x04not a tensor file")
    result = judge(EntryPoint("net", "m:f"), arm_result(2, 1, original), arm_result(1, 0, rewritten))
    assert (result.verdict, result.judgement.rule) == (OUTPUTS_DIFFER, "outputs-equivalent")
    (reason,) = result.reasons
    assert reason.startswith("outputs differ (bit-identical required): the saved outputs cannot be read: ")
