"""What calling an object `self` holds from outside the tree returns, against TorchDynamo (torch 2.13):
`self.subnet(x)` on `self.subnet = subnet_constructor(c_in, c_out)` (FrEIA's coupling blocks) or
`self.func(t, z)` on `self.func = func` (torchcde's vector field) is a tensor when it is given one
(analysis/outside_callables.py), so a conversion of it (or of an element of it) is the break it is on
any tensor. Near misses: such a callable given only Python values, a held object the tree's own class
builds (the solver resolves its forward, whatever it returns) and the methods of nn.Module stay quiet."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from sample_modules import dynamo_breaks, graphmend_findings, line_of

BREAKING = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, subnet_constructor, func, dims=3):
        super().__init__()
        self.subnet = subnet_constructor(dims, dims)
        self.func = func

    def forward(self, x):
        a = self.subnet(x)
        n = int(a[0])
        if a[0] > 0:
            x = x + 1
        s, t = self.subnet(x), self.func(x)
        if t[0] > 0:
            x = x + s
        b = self.func(x)
        if b.max() > 0:
            x = x * 2
        return x * n


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(nn.Linear, torch.sin)

    def forward(self, x):
        return self.block(x)
'''

NEAR_MISSES = '''import math

import torch
from torch import nn


class Meta(nn.Module):
    def forward(self, x):
        return x.shape[0]


class Block(nn.Module):
    def __init__(self, scale_fn, count, dims=3):
        super().__init__()
        self.scale_fn = scale_fn
        self.count = count
        self.meta = Meta()

    def forward(self, x):
        s = self.scale_fn(4.0)
        if s > 1:
            x = x * 2
        k = self.count(x.shape)
        if k > 0:
            x = x - 1
        m = self.meta(x)
        if m > 1:
            x = x + 1
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(math.sqrt, len)

    def forward(self, x):
        return self.block(x)
'''


def test_a_held_callable_from_outside_the_tree_given_a_tensor_returns_one(tmp_path: Path) -> None:
    breaks = dynamo_breaks(BREAKING, tmp_path)
    found = {(line, gb) for line, _, gb in graphmend_findings(BREAKING, tmp_path)}
    expected = {
        (line_of(BREAKING, "n = int(a[0])"), "GB0124"),  # an element of the subnet's output
        (line_of(BREAKING, "if a[0] > 0:"), "GB0170"),
        (line_of(BREAKING, "if t[0] > 0:"), "GB0170"),  # the function given (torch.sin) returns one too
        (line_of(BREAKING, "if b.max() > 0:"), "GB0170"),
    }
    assert breaks == expected
    assert found == expected


def test_held_callables_given_python_values_or_built_in_the_tree_stay_quiet(tmp_path: Path) -> None:
    assert dynamo_breaks(NEAR_MISSES, tmp_path) == set()
    assert graphmend_findings(NEAR_MISSES, tmp_path) == set()
