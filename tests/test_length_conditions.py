"""A condition whose truth is a length (a display, a comprehension, a call returning a tuple of
tensors) converts no tensor: Dynamo does not break there (torch 2.13), and graphmend must not
report it (analysis/sized.py). Found by benchmarks/differential_fuzz.py (`if [y, y]:`).
Near misses: the tensor operand beside such a display, an element of the tuple, and a user class's
own `chunk` that returns one tensor still break, and are still reported."""

from __future__ import annotations

from pathlib import Path

from sample_modules import dynamo_breaks, graphmend_findings

SOURCE = """\
import torch
from torch import nn


class Chunker:
    def chunk(self, t):
        return t.sum()


class Model(nn.Module):
    def forward(self, x):
        y = x * 2
        if [y, y]:
            y = y + 1
        if (y, y):
            y = y + 1
        if {"a": y}:
            y = y + 1
        if [t for t in y]:
            y = y + 1
        if not [y.sum() > 0]:
            y = y + 1
        if y.unbind(0):
            y = y + 1
        if y.chunk(2):
            y = y + 1
        if torch.split(y, 2):
            y = y + 1
        z = y if (y,) else y
        while not y.tensor_split(2):
            y = y + 1
        if [y] and y.sum() > 0:
            y = y + 1
        if y.chunk(2)[0].sum() > 0:
            y = y + 1
        if Chunker().chunk(y):
            y = y + 1
        return y + z
"""

# the three near misses: the `and`'s tensor operand, an element of the tuple, a class's own `chunk`
BREAKS = {32, 34, 36}


def test_length_tests_do_not_break_and_are_not_reported(tmp_path: Path) -> None:
    breaks = dynamo_breaks(SOURCE, tmp_path)
    assert {line for line, _ in breaks} == BREAKS
    assert {gb for _, gb in breaks} == {"GB0170"}
    assert {(line, code) for line, code, _ in graphmend_findings(SOURCE, tmp_path)} == {(line, "GM101") for line in BREAKS}


# Locals every binding of which is such a value test a length too, and so do the calls returning a
# named tuple (values, indices) or a tuple of index tensors. Near misses: a local rebound to a tensor
# in one arm, an element of a bound tuple, `x.max(y)` (elementwise, one tensor), `x.max()` (no dim).
BOUND_SOURCE = """\
import torch
from torch import nn


def pair(t):
    return t, t * 2


class Model(nn.Module):
    def forward(self, x, flag: bool = False):
        both = (x, x * 2)
        if both:
            x = x + 1
        parts = x.chunk(2)
        if parts:
            x = x + 1
        halves = torch.split(x, 1)
        if not halves:
            x = x + 1
        res = pair(x)
        if res:
            x = x + 1
        top = x.max(0)
        if top:
            x = x + 1
        ordered = torch.sort(x)
        if ordered and x.topk(1) and x.median(dim=0) and torch.min(x, -1):
            x = x + 1
        where = torch.where(x > 0)
        if where:
            x = x + 1
        if x.nonzero(as_tuple=True):
            x = x + 1
        mixed = x.chunk(3)
        if flag:
            mixed = x.sum()
        if mixed:
            x = x + 1
        if both[0].sum() > 0:
            x = x + 1
        if x.max(x * 2).sum() > 0:
            x = x + 1
        if x.max() > 0:
            x = x + 1
        return x
"""

# Dynamo's: the three near misses that ran, and the one-argument `where` and `nonzero`'s own break (GB0036,
# GM501's: their output shape depends on the values) at the binding and at the test
BOUND_BREAKS = {(29, "GB0036"), (32, "GB0036"), (39, "GB0170"), (41, "GB0170"), (43, "GB0170")}


def test_bound_length_tests_do_not_break_and_are_not_reported(tmp_path: Path) -> None:
    assert dynamo_breaks(BOUND_SOURCE, tmp_path) == BOUND_BREAKS
    codes = {"GB0036": "GM501", "GB0170": "GM101"}
    expected = {(line, codes[gb]) for line, gb in BOUND_BREAKS} | {(37, "GM101")}  # `mixed` when `flag` is true
    assert {(line, code) for line, code, _ in graphmend_findings(BOUND_SOURCE, tmp_path)} == expected
