"""verify reads like a result (issue 29.5): the breaks as a diff, reasons that are not cut off, timings
with their spread and "within noise" where the arms overlap."""

from __future__ import annotations

from graphmend_bot.verify.break_diff import diff_breaks
from graphmend_bot.verify.protocol import BreakReason


def brk(location: str, reason: str) -> BreakReason:
    return BreakReason(location=location, reason=reason)


def test_a_break_on_a_moved_line_is_kept_and_the_fixed_one_removed() -> None:
    original = [brk("m.py:7", "logging.Logger.info"), brk("m.py:9", "Data-dependent branching"),
                brk("m.py:12", "Data-dependent branching")]
    rewritten = [brk("m.py:11", "Data-dependent branching"), brk("n.py:3", "print")]
    diff = diff_breaks(original, rewritten)
    assert diff.removed == [original[0], original[2]]  # the logger; one of the two branches
    assert diff.kept == [rewritten[0]]  # the other branch, two lines lower after the rewrite
    assert diff.added == [rewritten[1]]


def test_breaks_without_a_frame_match_by_reason() -> None:
    diff = diff_breaks([brk("", "graph break")], [brk("", "graph break")])
    assert (diff.removed, diff.added, len(diff.kept)) == ([], [], 1)


def test_a_reason_cut_off_at_its_announcement_reads_as_its_content() -> None:
    from graphmend_bot.census.dynamo import reason_title

    assert reason_title("Unsupported Tensor.item() call. Graph break encountered:\n"
                        "  Dynamo does not know the value of a tensor") == "Dynamo does not know the value of a tensor"
    assert reason_title("torch._dynamo.exc.Unsupported: Graph break encountered:") == \
        "torch._dynamo.exc.Unsupported"
    assert reason_title("Encountered graph break when attempting to trace CALL\nData-dependent branching") == \
        "Data-dependent branching"
    assert reason_title("Graph break encountered:") == "graph break (Dynamo gave no reason)"
    assert reason_title("logging.Logger.info\n  Explanation: ...") == "logging.Logger.info"


def test_overlapping_timings_read_as_within_noise_not_a_speedup() -> None:
    from graphmend_bot.verify.table import speedup_text, spread_text, within_noise

    # medians 6.64 ms and 1.0 ms, but each arm's calls ranged over the other's: noise, not 6.64x
    noisy = within_noise((0.0009, 0.0120), (0.0008, 0.0070))
    assert noisy is True and speedup_text(6.64, noisy) == "within noise"
    apart = within_noise((0.0060, 0.0070), (0.0009, 0.0011))
    assert apart is False and speedup_text(6.64, apart) == "6.64x"
    assert within_noise((None, None), (0.001, 0.002)) is None  # a report from before the spread
    assert spread_text(0.00664, 0.0009, 0.012) == "6.64 ms (900.0 us-12.00 ms)"
    assert spread_text(0.00664, None, None) == "6.64 ms"


def test_the_measured_spread_round_trips_through_the_child_protocol() -> None:
    from graphmend_bot.verify.protocol import ArmResult

    arm = ArmResult(ok=True, device="cpu", torch_version="2.13.0", graph_count=1, graph_break_count=0,
                    cold_start_s=0.5, steady_state_s=0.002, steady_state_min_s=0.001, steady_state_max_s=0.004)
    back = ArmResult.from_child(arm.to_json())
    assert (back.steady_state_min_s, back.steady_state_s, back.steady_state_max_s) == (0.001, 0.002, 0.004)
