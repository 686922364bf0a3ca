"""GM623 on an object the frame reads from where it is held: `self.NAME`, a module global, `self`.

Measured on torch 2.13 (below, with the census's explain + graph_breaks log): `z * self.op`,
`self.op * z`, `z + self.op` and `z *= self.op`, where `__init__` built `self.op` from a class of the
tree answering the operator, break with GB0055 as a local object does: Dynamo hands the object to
the tensor operation it records ("Failed to convert args/kwargs to proxy"). So do an object a module
builds at import time (`SCALE = Op(...)`), one a plain class holds from an annotated `__init__`
parameter, and `z * self` in a method of such a class. The near misses trace and stay quiet: the
tensor the object holds (`self.op.t * z`), a held `float` subclass with `__rmul__` (a float to
Dynamo), a held tensor subclass, a held object whose class has `__torch_function__`, a held number,
a parameter, and an attribute the frame tests for None first and that is None.
"""

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

    def __radd__(self, other):
        return other + self.s

    def scaled(self, z):
        return z * self


class Half(float):
    def __rmul__(self, other):
        return other * 0.5


class Sub(torch.Tensor):
    pass


class Like:
    def __init__(self, s):
        self.s = s

    def __rmul__(self, other):
        return other * self.s

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        args = [a.s if isinstance(a, Like) else a for a in args]
        return func(*args, **(kwargs or {}))


class Holder:
    def __init__(self, op: Op):
        self.op = op

    def run(self, z):
        return z * self.op


SCALE = Op(torch.ones(3))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.op = Op(torch.ones(3))
        self.holder = Holder(Op(torch.ones(3)))
        self.half = Half(2.0)
        self.sub = torch.ones(3).as_subclass(Sub)
        self.like = Like(torch.ones(3))
        self.scale = 0.5
        self.weight = nn.Parameter(torch.ones(3))
        self.maybe = None

    def forward(self, x):
        z = torch.cos(x)
{body}
"""
CASES = {
    # the forward's body (after `z = torch.cos(x)`), the line Dynamo breaks at (its last text in SOURCE) or None
    "held_on_the_right": ("        return z * self.op", "return z * self.op"),
    "held_on_the_left": ("        return self.op * z", "return self.op * z"),
    "held_reflected_add": ("        return z + self.op", "return z + self.op"),
    "held_augmented": ("        z *= self.op\n        return z", "z *= self.op"),
    "module_global": ("        return z * SCALE", "return z * SCALE"),
    "held_from_annotated_parameter": ("        return self.holder.run(z)", "return z * self.op\n\n\nSCALE"),
    "self_in_its_own_method": ("        return self.op.scaled(z)", "return z * self\n"),
    "tensor_it_holds": ("        return self.op.s * z", None),
    "float_subclass": ("        return z * self.half", None),
    "tensor_subclass": ("        return z * self.sub", None),
    "torch_function_class": ("        return z * self.like", None),
    "number": ("        return z * self.scale", None),
    "parameter": ("        return z * self.weight", None),
    "none_tested_first": ("        return z if self.maybe is None else z * self.maybe", None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_operator_on_a_held_object(case: str, tmp_path: Path) -> None:
    body, breaking = CASES[case]
    source = SOURCE.replace("{body}", body)
    expected = set() if breaking is None else {source[: source.rindex(breaking)].count("\n") + 1}
    measured = {row for row, gb in dynamo_breaks(source, tmp_path) if gb == "GB0055"}
    found = {row for row, code, _ in graphmend_findings(source, tmp_path) if code == "GM623"}
    assert measured == expected
    assert found == measured
