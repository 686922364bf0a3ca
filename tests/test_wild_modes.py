"""The wild benchmark sets apart findings that name a mode its truth did not run (harness.py, halves.py).

Dynamo's truth is measured in eval mode and float32; a finding whose message says it breaks only in
training mode, in float16 or under autocast (graphmend_bot/analysis/modes.py) is neither confirmed
nor refuted by it. Precision is reported both ways: strict (every executed finding) and over the
findings in the measured mode.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "wild"))

from halves import figures, halves_report
from harness import DECLARED_SCOPE, CallResult, LibraryReport, measure, truth_json
from mode_confirm import explain_in_modes, mode_findings
from run import details, table
from split import half

from graphmend_bot.analysis.modes import AUTOCAST, GRAD_ENABLED, TRAINING

# Dynamo breaks at line 4 in every mode, at line 6 in float16 only, at line 9 in training mode only
SOURCE = """\
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            x = x + 1
        if x.dtype == torch.float16 and torch.isinf(x).any():
            x = x.clamp(-1, 1)
        if self.training:
            x.requires_grad_()
        return x
"""
UNIT = "torch_dct"  # any unit with a config


def _recorded(package: Path) -> dict[str, Any]:
    """A saved run of a call in training mode and float32: Dynamo broke at lines 4 and 9; all but 7 ran."""
    saved = LibraryReport(UNIT, "torch", importlib.metadata.version("torch"), "why", [])
    saved.calls = [CallResult("forward", graph_count=2, breaks=1)]
    ran = {("pkg/mod.py", line) for line in (4, 5, 6, 8, 9, 10)}
    breaks = {("pkg/mod.py", 4): "generic_jump TensorVariable()", ("pkg/mod.py", 9): "Tensor.requires_grad_"}
    saved.truth = truth_json(str(package), breaks, ran)
    return saved.to_json()


@pytest.fixture
def report(tmp_path: Path) -> LibraryReport:
    (tmp_path / "pkg").mkdir()
    for name, text in (("__init__.py", ""), ("mod.py", SOURCE)):
        (tmp_path / "pkg" / name).write_text(text)
    measured = measure(UNIT, sample=0, ablate=False, recorded=_recorded(tmp_path / "pkg"))
    assert measured.error is None, measured.error
    return measured


def test_a_finding_naming_a_mode_the_truth_did_not_run_is_set_apart(report: LibraryReport) -> None:
    # strict, as before: the float16-only `if` on line 6 ran in float32 and Dynamo did not break there;
    # the training-only line 9 names a mode too, but Dynamo broke on it: it stays confirmed
    assert (report.executed_findings, report.confirmed, report.precision) == (3, 2, 2 / 3)
    assert report.scopes[DECLARED_SCOPE]["mode_named"] == ["pkg/mod.py:6"]
    assert (report.mode_named, report.measured_precision) == (1, 1.0)
    row = table([report]).splitlines()[2].split()
    assert row[row.index("0.67") + 1 : row.index("0.67") + 3] == ["1", "1.00"]  # prec, mode, mprec
    printed = details(report, show_test_lines=True)
    assert "named a mode the truth did not run: pkg/mod.py:6" in printed and "false positive" not in printed


def test_the_halves_report_precision_both_ways(report: LibraryReport) -> None:
    scope = figures([report], half(UNIT)).scopes[DECLARED_SCOPE]
    assert (scope.executed, scope.confirmed, scope.mode_named) == (3, 2, 1)
    assert (scope.precision, scope.measured_precision) == (2 / 3, 1.0)
    assert "named a mode the truth did not run: 1; executed precision in the measured mode 1.00 (2/2)" in halves_report([report])


def test_a_run_saved_before_modes_were_counted_says_so(report: LibraryReport) -> None:
    for scope in report.scopes.values():
        del scope["mode_named"]
    old = LibraryReport.from_json(report.to_json())
    assert (old.mode_named, old.measured_precision) == (None, None)
    assert figures([old], half(UNIT)).scopes[DECLARED_SCOPE].measured_precision is None
    assert "named a mode the truth did not run: not counted" in halves_report([old])


def test_false_positives_are_counted_by_rule_code_and_mode(tmp_path: Path) -> None:
    """Counted, not read (the test half's lines are never shown): a truth where Dynamo broke only at
    line 9 leaves line 4's finding a plain false positive and line 6's one that names a mode."""
    (tmp_path / "pkg").mkdir()
    for name, text in (("__init__.py", ""), ("mod.py", SOURCE)):
        (tmp_path / "pkg" / name).write_text(text)
    saved = _recorded(tmp_path / "pkg")
    del saved["truth"]["breaks"]["pkg/mod.py:4"]
    measured = measure(UNIT, sample=0, ablate=False, recorded=saved)
    f = figures([measured], half(UNIT))
    assert f.false_positives[DECLARED_SCOPE] == Counter({("GM101", False): 1, ("GM101", True): 1})
    assert "false positives (declared) by rule code, counted, not read: GM101 2 (1 name a mode)" in halves_report([measured])
    for scope in measured.scopes.values():
        del scope["false_positive_codes"]
    assert "false positives (declared): not counted" in halves_report([measured])


def test_set_apart_findings_are_grouped_by_the_modes_they_name(report: LibraryReport) -> None:
    assert mode_findings(report) == {("in float16",): ["pkg/mod.py:6"]}


@pytest.mark.parametrize(
    ("modes", "rows"),
    [((TRAINING,), {15, 19, 31, 34}), (("in float16",), {20, 23}), ((AUTOCAST,), {25}), ((GRAD_ENABLED,), {36}),
     ((), set())],
)
def test_a_call_is_run_in_the_modes_a_finding_names(
    modes: tuple[str, ...], rows: set[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """mode_confirm.py builds the call in the named mode: Dynamo then breaks on that mode's lines
    of tests/fixtures/modes/mode_only_breaks.py (and on none in eval/float32)."""
    import torch
    from ground_truth import Tree, normalise

    fixture = Path(__file__).parent / "fixtures" / "modes" / "mode_only_breaks.py"
    spec = importlib.util.spec_from_file_location("gm_wild_mode_only_breaks", fixture)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # Dynamo imports a traced function's module
    spec.loader.exec_module(module)
    explained = explain_in_modes((module.Block().eval(), (torch.ones(3),), {}), modes, Tree([str(fixture)]))
    assert {b.location[1] for b in explained.breaks if b.location and b.location[0] == normalise(str(fixture))} == rows
