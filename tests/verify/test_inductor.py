"""One run with the inductor backend (compiles C++ on the CPU, so only this one)."""

from __future__ import annotations

from graphmend_bot.verify import ArmSource, EntryPoint, Settings, verify
from graphmend_bot.verify.runner import IMPROVED

from .conftest import PAIRS


def test_inductor_arms_compile_measure_and_match() -> None:
    settings = Settings(device="auto", backend="inductor", seeds=(0,), warmup=1, repeat=3, timeout=300)
    report = verify(
        [EntryPoint("logging-net", "vcases:logging_net", settings)],
        ArmSource(PAIRS / "original", "original"),
        ArmSource(PAIRS / "rewritten", "rewritten"),
    )
    (result,) = report.results
    assert result.original.ok and result.rewritten.ok, result.reasons
    # the same counts as Dynamo gives with any backend (checked against explain in test_verify_pairs)
    assert (result.original.graph_count, result.original.graph_break_count) == (2, 1)
    assert (result.rewritten.graph_count, result.rewritten.graph_break_count) == (1, 0)
    assert result.verdict == IMPROVED
    # eager and compiled outputs of both arms, bit-identical across arms
    assert result.outputs_equal is True
    assert (
        result.comparison is not None and result.comparison.detail == "2 tensors across 1 seed(s) match"
    )  # eager and compiled
    for arm in (result.original, result.rewritten):
        assert arm.cold_start_s is not None and arm.steady_state_s is not None
        assert arm.cold_start_s > arm.steady_state_s > 0  # the first call includes compilation
