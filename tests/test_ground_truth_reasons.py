"""The benchmarks' ground truth reads Dynamo's reasons as the census does (census/dynamo.py): a
break Dynamo could not resume from (inside a `with` block or a `try`) and a break inside a called
function are recorded with the underlying reason, never Dynamo's wrapper line
("Failed to handle graph break gracefully ... Graph break encountered:", "Encountered graph break
when attempting to trace CALL ..."). Measured live with Dynamo."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from ground_truth import Tree, dynamo_breaks  # noqa: E402

SOURCE = """\
import pickle

import torch


class Scope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def in_with(x):
    with Scope():
        y = x * 2
        if y.sum() > 0:  # line 17
            y = y + 1
        return y + 1


def in_try(x):
    try:
        y = x * 2
        if y.sum() > 0:  # line 25
            y = y + 1
    except ValueError:
        y = x
    return y


def calls_inner(x):
    return inner(x) + 1


def inner(x):
    pickle.dumps(1)  # line 37
    return x * 2
"""


@pytest.mark.parametrize(("name", "line", "reason", "explained"), [
    ("in_with", 17, "Data-dependent branching", "Detected data-dependent branching"),
    ("in_try", 25, "Data-dependent branching", "Detected data-dependent branching"),
    ("calls_inner", 37, "Attempted to call function marked as skipped", "_pickle.dumps"),
])
def test_the_underlying_reason_is_recorded(tmp_path: Path, name: str, line: int, reason: str,
                                           explained: str) -> None:
    path = tmp_path / "wrapped_breaks.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("gm_wrapped_breaks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        result = dynamo_breaks(getattr(module, name), (torch.ones(2),), {}, Tree([str(path)]))
    finally:
        sys.modules.pop(spec.name, None)
    found = [b for b in result.breaks if b.location is not None and b.location[1] == line]
    assert found, result.breaks
    assert {b.reason for b in found} == {reason}
    assert all(explained in b.explanation for b in found)
    assert all(b.gb_id.startswith("GB") for b in found)


def test_traced_lines_are_the_lines_dynamo_traced(tmp_path: Path) -> None:
    """`traced` gets the tree's lines Dynamo traced (its trace_source log), which a finding's line is
    checked against to tell a rule that is wrong where Dynamo traced (fp_causes.py) from code Dynamo
    never compiled; the break is still recorded with its reason beside it."""
    path = tmp_path / "traced_lines.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("gm_traced_lines", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    traced: dict[str, set[int]] = {}
    try:
        spec.loader.exec_module(module)
        result = dynamo_breaks(module.in_try, (torch.ones(2),), {}, Tree([str(path)]), traced=traced)
    finally:
        sys.modules.pop(spec.name, None)
    assert list(traced) == [str(path.resolve())]
    lines = traced[str(path.resolve())]
    assert {23, 24, 25} <= lines  # `try:`, `y = x * 2`, the branch that breaks
    assert 28 not in lines  # the handler never runs
    assert not lines - set(range(22, 30))  # only in_try's lines: no other function ran
    assert {b.location[1] for b in result.breaks if b.location is not None} == {25}
