"""`typing.cast(T, v)` is `v` at run time and under Dynamo: the loop variable over a cast 1-d tensor
(flowtorch's `for idx in cast(torch.LongTensor, permutation)`) is 0-d, and indexing with it reads it
back as an int (GB0033), as without the cast. Measured with Dynamo on torch 2.13 against what
`graphmend check` reports; the near misses (the rows of a cast 2-d buffer, a cast list of ints)
trace and are not reported."""

from __future__ import annotations

from sample_modules import dynamo_breaks, graphmend_findings

BREAKING = """
from typing import cast

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("permutation", torch.randperm(3))

    def forward(self, x):
        return self.held(x) + self.local(x)

    def held(self, x):
        y = torch.zeros_like(x)
        for idx in cast(torch.LongTensor, self.permutation):
            y[..., idx] = x[..., idx] * 2
        return y

    def local(self, x):
        y = torch.zeros_like(x)
        perm = torch.randperm(3)
        for idx in cast(torch.Tensor, perm):
            y[..., idx] = x[..., idx] * 3
        return y
"""

TRACING = """
from typing import List, cast

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("pairs", torch.tensor([[0, 1], [1, 2]]))

    def forward(self, x):
        y = torch.zeros_like(x)
        for pair in cast(torch.Tensor, self.pairs):
            y = y + x[pair].sum()
        for k in cast(List[int], [0, 2]):
            y = y + x[k]
        return y
"""


def rows_of(source: str, text: str) -> set[int]:
    return {row for row, line in enumerate(source.splitlines(), 1) if text in line}


def test_the_loop_variable_over_a_cast_one_dimensional_tensor_is_zero_d(tmp_path):
    breaking = rows_of(BREAKING, "y[..., idx] = x[..., idx]")
    assert {row for row, _ in dynamo_breaks(BREAKING, tmp_path)} == breaking
    assert {row for row, code, _ in graphmend_findings(BREAKING, tmp_path) if code == "GM302"} == breaking


def test_cast_rows_and_cast_ints_trace_and_are_not_reported(tmp_path):
    assert dynamo_breaks(TRACING, tmp_path) == set()
    assert graphmend_findings(TRACING, tmp_path) == set()
