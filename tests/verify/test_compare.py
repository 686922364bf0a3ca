"""Output comparison between arms: exact by default, tolerances when configured, structure first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from graphmend_bot.verify.compare import compare_outputs


def saved(
    tmp_path: Path, name: str, tensors: dict[str, torch.Tensor], leaves: dict[str, str] | None = None
) -> dict[str, Any]:
    """One arm's outputs in the children's format, the same output for eager and compiled."""
    path = tmp_path / f"{name}.pt"
    torch.save(tensors, path)
    record = {"tensors": str(path), "leaves": leaves or {}}
    return {"0": {"eager": record, "compiled": record}}


def test_identical_outputs_with_nan_are_equal(tmp_path: Path) -> None:
    value = torch.tensor([1.0, float("nan"), 3.0])
    comparison = compare_outputs(
        saved(tmp_path, "a", {"output[0]": value}),
        saved(tmp_path, "b", {"output[0]": value.clone()}),
        (0.0, 0.0),
    )
    assert comparison.equal
    assert comparison.max_abs_diff == 0.0
    assert comparison.detail == "2 tensors across 1 seed(s) match"


def test_one_ulp_fails_exact_and_passes_a_tolerance(tmp_path: Path) -> None:
    value = torch.tensor([1.0, 2.0])
    nudged = torch.nextafter(value, torch.tensor(3.0))
    original, rewritten = saved(tmp_path, "a", {"output": value}), saved(tmp_path, "b", {"output": nudged})
    exact = compare_outputs(original, rewritten, (0.0, 0.0))
    assert not exact.equal
    assert exact.detail.startswith("seed 0, eager, output: Tensor-likes are not equal!")
    assert exact.max_abs_diff is not None and 0 < exact.max_abs_diff < 1e-6
    assert compare_outputs(original, rewritten, (1e-6, 0.0)).equal


def test_dtype_and_shape_changes_are_differences(tmp_path: Path) -> None:
    value = torch.ones(2, 3)
    for other in (value.double(), value.reshape(3, 2)):
        comparison = compare_outputs(
            saved(tmp_path, "a", {"o": value}), saved(tmp_path, "b", {"o": other}), (1.0, 1.0)
        )
        assert not comparison.equal


def test_structure_and_non_tensor_leaves_are_compared(tmp_path: Path) -> None:
    value = torch.ones(2)
    structure = compare_outputs(
        saved(tmp_path, "a", {"output.logits": value}), saved(tmp_path, "b", {"output.hidden": value}), None
    )
    assert not structure.equal and "different structure" in structure.detail
    leaves = compare_outputs(
        saved(tmp_path, "c", {"o": value}, {"output[1]": "None"}),
        saved(tmp_path, "d", {"o": value}, {"output[1]": "3"}),
        None,
    )
    assert not leaves.equal
    assert leaves.detail == "seed 0, eager: non-tensor outputs differ: output[1]: None vs 3"
