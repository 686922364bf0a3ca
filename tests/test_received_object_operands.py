"""GM623 on an object the frame receives: a parameter annotated with a class that answers the operator.

Measured on torch 2.13 (below, with the census's explain + graph_breaks log): `op * t`, `t * op` and
`op += t` break with GB0055 whether the frame built `op` or received it, as an annotated parameter of
a method the forward calls: Dynamo hands the object to the tensor operation in either case. The
near misses trace: the object's method called by name, an operator on the tensor it holds, and a
received `float` subclass (a float to Dynamo, which runs its `__rmul__`). After a break Dynamo cannot
resume from (a property whose getter breaks), the rest of the frame runs eagerly and the operator is
not traced: as for every finding in such a frame, GM623 does not see it (test_dependency_breaks.py's
typed fixture keeps its `@` out for that reason)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

SOURCE = """import torch
from torch import nn


class Op:
    def __init__(self, s):
        self.s = s

    def __mul__(self, other):
        return self.s * other

    def __rmul__(self, other):
        return other * self.s

    def __iadd__(self, other):
        self.s = self.s + other
        return self


class Half(float):
    def __rmul__(self, other):
        return other * 0.5


class Model(nn.Module):
    def forward(self, x):
        y = torch.sin(x)
        return self.use(Op(y), Half(2.0), y)

    def use(self, op: Op, half: Half, y):
        z = torch.cos(y)
{body}
"""
CASES = {
    # the method's body (after `z = torch.cos(y)`), whether Dynamo breaks there
    "object_on_the_left": ("        return op * z", True),
    "object_on_the_right": ("        return z * op", True),
    "augmented": ("        op += z\n        return op.s", True),
    "method_called_by_name": ("        return op.__mul__(z)", False),
    "held_tensor": ("        return op.s * z", False),
    "float_subclass": ("        return z * half", False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_operator_on_a_received_object(case: str, tmp_path: Path) -> None:
    body, breaks = CASES[case]
    source = SOURCE.format(body=body)
    line = source.splitlines().index(body.splitlines()[0]) + 1
    measured = {row for row, gb in dynamo_breaks(source, tmp_path) if gb == "GB0055"}
    found = {row for row, code, _ in graphmend_findings(source, tmp_path) if code == "GM623"}
    assert measured == ({line} if breaks else set())
    assert found == measured
