"""GM623 on an object read from or returned by an annotated one: `y.conj() * z`, `y.inner * z`.

Measured on torch 2.13 (below, with the census's explain + graph_breaks log): with `y: Op` a
parameter of a method the forward calls, `y.conj() * z` (`conj` annotated `-> "Op"`), `z * y.inner`
(`inner: Op`, a class annotation) and `y.conj() + z` break with GB0055, as `y * z` does: Dynamo hands
the object to the tensor operation it records. The near misses trace and stay quiet: a method
annotated to return a tensor (`y.value() * z`), a tensor attribute (`y.s * z`), and a float the
method returns (`y.ratio() * z`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

SOURCE = """import torch
from torch import nn


class Op:
    inner: "Op"

    def __init__(self, s: torch.Tensor, inner: "Op | None" = None):
        self.s = s
        if inner is not None:
            self.inner = inner

    def __mul__(self, other):
        return Op(self.s * other)

    def __rmul__(self, other):
        return Op(other * self.s)

    def __add__(self, other):
        return Op(self.s + other)

    def conj(self) -> "Op":
        return Op(-self.s)

    def value(self) -> torch.Tensor:
        return self.s

    def ratio(self) -> float:
        return 0.5


class Model(nn.Module):
    def forward(self, x):
        z = torch.cos(x)
        return self.use(Op(z, Op(z)), z)

    def use(self, y: Op, z):
{body}
"""
CASES = {
    # the method's body, whether Dynamo breaks on its last line
    "annotated_result_on_the_left": ("        return (y.conj() * z).s", True),
    "annotated_result_added": ("        return (y.conj() + z).s", True),
    "annotated_member_on_the_right": ("        return (z * y.inner).s", True),
    "tensor_result": ("        return y.value() * z", False),
    "tensor_attribute": ("        return y.s * z", False),
    "float_result": ("        return y.ratio() * z", False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_operator_on_an_annotated_result(case: str, tmp_path: Path) -> None:
    body, breaks = CASES[case]
    source = SOURCE.replace("{body}", body)
    line = source.splitlines().index(body.splitlines()[-1]) + 1
    measured = {row for row, gb in dynamo_breaks(source, tmp_path) if gb == "GB0055"}
    found = {row for row, code, _ in graphmend_findings(source, tmp_path) if code == "GM623"}
    assert measured == ({line} if breaks else set())
    assert found == measured
