"""verify counts Dynamo's breaks as the census does: explain's, plus the ones only the graph_breaks
log reports. A rewrite that moves a break before a frame's first tensor operation (here: a helper
under `torch.compiler.disable`, called first) leaves explain with nothing to count, but the log
still reports the break at the call, and so must verify."""

from __future__ import annotations

from pathlib import Path

from graphmend_bot.verify import ArmSource, EntryPoint, Settings, verify

MODULE = '''import torch


{decorator}def masks(x):
    rows = torch.nonzero(x > 0)
    return [int(r[0]) for r in rows]


def run(x):
    kept = masks(x)
    return x * len(kept)


def case(seed=0):
    return run, (torch.tensor([1.0, -1.0, 2.0]),)
'''


def test_a_break_only_the_graph_breaks_log_reports_is_counted(tmp_path: Path) -> None:
    for arm, decorator in (("original", ""), ("rewritten", "@torch.compiler.disable\n")):
        (tmp_path / arm).mkdir()
        (tmp_path / arm / "logonly.py").write_text(MODULE.format(decorator=decorator), encoding="utf-8")
    entry = EntryPoint("log-only", "logonly:case", Settings(device="cpu", backend="eager", seeds=(0,), warmup=1,
                                                              repeat=1, timeout=300))
    report = verify([entry], ArmSource(tmp_path / "original", "original"), ArmSource(tmp_path / "rewritten", "rewritten"))
    [result] = report.results
    rewritten = result.rewritten
    assert rewritten.ok, rewritten.error
    # explain alone: graph_count 1, graph_break_count 0; the log reports the skipped call.
    assert rewritten.graph_count == 1 and rewritten.graph_break_count == 1, rewritten
    [reason] = rewritten.break_reasons
    assert reason["location"] == "logonly.py:11" and "disable" in reason["reason"], reason
    assert result.original.graph_break_count >= 1
