"""GM623 on operands an `isinstance` test proves objects of a class: each test of an `and`.

torch_complex's `matmul(a: Union[ComplexTensor, Tensor], b: ...)` runs `a @ b` under
`isinstance(a, ComplexTensor) and isinstance(b, ComplexTensor)`; Dynamo has no `@` for objects
(GB0059, measured below with the census's explain + graph_breaks log). In the arm of an `and`,
every isinstance test of it holds, so both operands are objects of the class. Near misses,
measured: the arm for a tensor and an object (not taken: Dynamo traces the call), the method
called by name, and an `or` of the tests (nothing narrowed: not reported, and here not taken).
The same function in a dependency is reported at the call that passes it objects
(test_dependency_breaks.py, complex)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

SOURCE = """from typing import Union

import torch
from torch import nn


class Pair:
    def __init__(self, re: torch.Tensor, im: torch.Tensor) -> None:
        self.re = re
        self.im = im

    def __matmul__(self, other) -> "Pair":
        return Pair(self.re @ other.re - self.im @ other.im, self.re @ other.im + self.im @ other.re)


def matmul(a: Union[Pair, torch.Tensor], b: Union[Pair, torch.Tensor]) -> Pair:
    if {test}:
        return {product}
    if not isinstance(a, Pair) and isinstance(b, Pair):
        return Pair(torch.matmul(a, b.re), torch.matmul(a, b.im))
    return Pair(a, b)


class Model(nn.Module):
    def forward(self, x):
        row, column = torch.sin(x).view(1, 3), torch.cos(x).view(3, 1)
        return matmul({arguments}).re
"""
OBJECTS = "Pair(row, row), Pair(column, column)"
CASES = {
    # (the arm's test, what it returns, what forward passes), whether Dynamo breaks in the arm
    "both_objects": ("isinstance(a, Pair) and isinstance(b, Pair)", "a @ b", OBJECTS, True),
    "three_tests": ("isinstance(a, Pair) and a.re.dim() == 2 and isinstance(b, Pair)", "a @ b", OBJECTS, True),
    "tensor_and_object": ("isinstance(a, Pair) and isinstance(b, Pair)", "a @ b", "row, Pair(column, column)", False),
    "method_called_by_name": ("isinstance(a, Pair) and isinstance(b, Pair)", "a.__matmul__(b)", OBJECTS, False),
    "either_test": ("isinstance(a, Pair) or isinstance(b, Pair)", "a @ b", "row, column", False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_operator_on_narrowed_objects(case: str, tmp_path: Path) -> None:
    test, product, arguments, breaks = CASES[case]
    source = SOURCE.format(test=test, product=product, arguments=arguments)
    line = source.splitlines().index(f"        return {product}") + 1
    measured = {row for row, _ in dynamo_breaks(source, tmp_path)}
    found = {row for row, code, _ in graphmend_findings(source, tmp_path) if code == "GM623"}
    assert measured == ({line} if breaks else set())
    # an arm no call takes is reported too: it breaks when taken (`tensor_and_object`), not a traced line
    assert found == ({line} if case in ("both_objects", "three_tests", "tensor_and_object") else set())
