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
