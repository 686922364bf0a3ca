"""A clamp bound carried through Python (`max(t.min().item(), c)`) kept a tensor
(rewrite/scalars/clamp_bounds.py): the measured argument that it is the same bound, and the cases left alone.

The fixture pairs under tests/fixtures/rewrite/clamp_bounds/ are run by test_fixture_pairs.py
(rewrite, bit-identical outputs for float16/bfloat16/float32/float64 maps with NaN and ties, fewer
breaks); here: the bound over every dtype and edge value, and the cases that must get no fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from fixture_support import FIXTURES

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import attach_fixes

CASES = FIXTURES / "clamp_bounds"
EDGES = [0.0, -0.0, 1e-3, 0.0010000000474974513, 0.0009999, 1e-3 + 1e-12, 5e-4, 2.0, -3.0, 65504.0, 1e-8,
         float("nan"), float("inf"), float("-inf"), 1e30]
NUMBERS = [1e-3, 0, 1, -1e-3, 0.1, 1e-30, 3, 1e20]
SOURCES = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32, torch.int64, torch.bool, torch.uint8)


def python_bound(weights: torch.Tensor, number: float, lower: bool, dtype: torch.dtype) -> torch.Tensor:
    value = torch.min(weights).item()
    bound = max(value, number) if lower else min(value, number)
    return weights.to(dtype).clamp(**{"min" if lower else "max": bound})


def tensor_bound(weights: torch.Tensor, number: float, lower: bool, dtype: torch.dtype) -> torch.Tensor:
    keyword = "min" if lower else "max"
    bound = torch.min(weights).detach().to(dtype).clamp(**{keyword: number})
    return weights.to(dtype).clamp(**{keyword: bound})


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("lower", [True, False])
def test_the_tensor_bound_clamps_bit_for_bit_like_the_python_one(dtype: torch.dtype, lower: bool) -> None:
    compared = 0
    for source in SOURCES:
        for edge in EDGES:
            weights = torch.tensor([edge, 5.0, 7.0], dtype=torch.float64)
            if not source.is_floating_point and edge != edge:
                continue
            weights = weights.to(source)
            for number in NUMBERS:
                expected, got = python_bound(weights, number, lower, dtype), tensor_bound(weights, number, lower, dtype)
                context = f"{source} {edge} {number}"
                assert got.dtype == expected.dtype, context
                assert torch.equal(got.isnan(), expected.isnan()), context
                assert torch.equal(got.nan_to_num(123.0), expected.nan_to_num(123.0)), context
                assert torch.equal(got.signbit(), expected.signbit()), context
                compared += 1
    assert compared > 700


def test_gradients_do_not_flow_into_the_bound() -> None:
    for source in (torch.float16, torch.float32, torch.float64):
        for values in ([0.0, 0.5, 1e-3, 2.0], [5.0, 6.0, 7.0, 8.0], [float("nan"), 1.0, 0.0, 2.0]):
            before = torch.tensor(values, dtype=source, requires_grad=True)
            after = before.detach().clone().requires_grad_()
            python_bound(before * 1, 1e-3, True, torch.float32).backward(torch.arange(1.0, 5.0))
            tensor_bound(after * 1, 1e-3, True, torch.float32).backward(torch.arange(1.0, 5.0))
            assert before.grad is not None and after.grad is not None
            assert torch.equal(before.grad.nan_to_num(9.0), after.grad.nan_to_num(9.0))


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.glob("neg_*.in.py")))
def test_cases_that_must_be_left_alone_get_no_fix(case: str, tmp_path: Path) -> None:
    path = tmp_path / "case.py"
    path.write_text((CASES / case).read_text(), encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM301"]
    assert findings, "the `.item()` must still be reported"
    assert all(f.fix is None for f in findings), [f.fix for f in findings]


def test_the_monai_shape_is_fixed_safely(tmp_path: Path) -> None:
    path = tmp_path / "case.py"
    path.write_text((CASES / "lower_bound.in.py").read_text(), encoding="utf-8")
    (finding,) = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM301"]
    assert finding.fix is not None and finding.fix.applicability == "safe"
    assert finding.fix.edits[0].content == "torch.min(weights).detach().to(torch.float).clamp(min=1e-3)"
