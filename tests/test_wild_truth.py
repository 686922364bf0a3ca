"""The wild benchmark's recorded truth (benchmarks/wild/harness.py, `run.py --truth-from`) and its
accounting of breaks outside the measured package (halves.py).

Dynamo's break lines and the eager run's executed lines do not depend on graphmend's code, so a
saved run's truth is reused and only `graphmend check` reruns; a truth recorded on another version
of the library must not be reused. A break with no frame in the package is no missed statement.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "wild"))

from halves import NOT_RECORDED, figures
from harness import HERE, CallResult, LibraryReport, Line, frame_owner, measure, truth_json
from split import TEST, half

SOURCE = (
    "import torch\n"  # 1
    "class M(torch.nn.Module):\n"  # 2
    "    def forward(self, x):\n"  # 3
    "        if x.sum() > 0:\n"  # 4
    "            return x + 1\n"  # 5
    "        return x - 1\n"  # 6
)


def _recorded(package: Path, version: str) -> dict[str, Any]:
    """A saved report of the unit `torch_dct` (any unit with a config) whose package is `package`."""
    saved = LibraryReport("torch_dct", "torch", version, "why", [])
    saved.calls = [CallResult("forward", graph_count=2, breaks=1)]
    breaks = {("pkg/mod.py", 4): "generic_jump TensorVariable()"}
    saved.truth = truth_json(str(package), breaks, {("pkg/mod.py", line) for line in (4, 5)})
    return saved.to_json()


@pytest.fixture
def package(tmp_path: Path) -> Path:
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "mod.py").write_text(SOURCE)
    return folder


def test_a_recorded_truth_is_reused_and_only_the_check_reruns(package: Path) -> None:
    recorded = _recorded(package, importlib.metadata.version("torch"))
    report = measure("torch_dct", sample=0, ablate=False, recorded=recorded)
    assert report.error is None, report.error
    assert [(c.name, c.graph_count, c.breaks) for c in report.calls] == [("forward", 2, 1)]  # no call ran again
    assert report.truth == recorded["truth"]
    # the data-dependent `if` is found by the check and confirmed by the recorded break
    assert (report.break_statements, report.matched, report.executed_findings, report.confirmed) == (1, 1, 1, 1)


def test_a_truth_recorded_on_another_version_is_refused(package: Path) -> None:
    report = measure("torch_dct", sample=0, ablate=False, recorded=_recorded(package, "0.0.1"))
    assert report.error is not None and "0.0.1" in report.error


def test_breaks_with_no_frame_in_the_package_are_not_counted_as_misses() -> None:
    """They are listed by the package that owns the frame Dynamo broke in, apart from the misses."""
    name = next(n for n in ("torchdiffeq", "torchsde", "gpytorch") if half(n) == TEST)
    report = LibraryReport(name, name, "1", "", [])
    report.break_lines = [Line(f"{name}/a.py:3", "", "")]
    report.miss_causes = {f"{name}/a.py:3": "construct has no rule"}
    report.calls = [
        CallResult("new", unmapped=["a", "b", "c"], unmapped_in=["torchdiffeq", "torchdiffeq", "torch"]),
        CallResult("old", unmapped=["d"]),  # recorded before owners were
    ]
    half_figures = figures([report], TEST)
    assert half_figures.causes == {"construct has no rule": 1}
    assert half_figures.outside == {"torchdiffeq": 2, "torch": 1, NOT_RECORDED: 1}


def test_the_owner_of_a_frame_outside_the_package() -> None:
    site = os.path.join(os.sep, "venv", "lib", "python3.11", "site-packages")
    assert frame_owner(((os.path.join(site, "torchdiffeq", "_impl", "misc.py"), 3),)) == "torchdiffeq"
    assert frame_owner(((os.path.join(site, "torch", "nn", "modules", "module.py"), 1),)) == "torch"
    assert frame_owner(((os.path.join(site, "six.py"), 1),)) == "six"
    assert frame_owner(((os.path.join(HERE, "libs", "torchcde.py"), 20),)) == "the benchmark's code"
    assert frame_owner(()) == "no frame"


def test_a_file_that_does_not_parse_is_no_finding_to_match(package: Path) -> None:
    """`graphmend check` reports a file it cannot parse with no location (torch-harmonics 0.8.0 ships
    one): the harness scores the package's other findings instead of failing the whole unit."""
    from ground_truth import Tree
    from harness import StatementKeys, finding_keys

    mod = str(package / "mod.py")
    findings = [
        {"filename": str(package / "broken.py"), "location": None, "code": "E999", "message": "syntax error"},
        {"filename": mod, "location": {"row": 4, "column": 9}, "code": "GM101", "message": "`if` on a tensor"},
    ]
    found = finding_keys(findings, Tree([str(package)]), StatementKeys(str(package)))
    assert found == {("pkg/mod.py", 4): "GM101 `if` on a tensor"}
