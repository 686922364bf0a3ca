"""Items of iterated calls that say what their items are (iterated_items.wrapper_items), measured
against Dynamo (torch 2.13): `reversed(xs)`, `list(xs)`, `iter(xs)` yield the items of `xs`, and an
nn.Module's `buffers()` / `parameters()` (`named_*`: beside a name) its tensors, though the module
reaches the helper through `*args` and is known to be nothing."""

from __future__ import annotations

from pathlib import Path

from tests.sample_modules import dynamo_breaks, graphmend_findings, line_of

SAMPLE = '''\
import torch
from torch import nn


def opaque(*args):
    return args[0]


def backwards(history):
    total = 0
    for h in reversed(history):
        total += int(h)  # reversed
    return total


def copied(history):
    return [float(h) for h in list(history)]  # list


def buffers(m):
    n = 0
    for b in m.buffers():
        if b:  # buffers
            n += 1
    return n


def named(m):
    n = 0
    for name, b in m.named_buffers():
        if b:  # named
            n += 1
    return n


def parameters(m):
    total = 0.0
    for p in m.parameters():
        total += float(p)  # parameters
    return total


def near_numbers(sizes, m):
    total = 0
    for s in reversed(sizes):
        total += int(s)
    for name, _ in m.named_modules():
        if name:
            total += 1
    return total


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Module()
        self.inner.register_buffer("b", torch.tensor(1.0))
        self.inner.w = nn.Parameter(torch.tensor(2.0))

    def forward(self, x):
        s = x.sum()
        backwards([s, s + 1])
        copied((s, s))
        buffers(opaque(self.inner))
        named(opaque(self.inner))
        parameters(opaque(self.inner))
        near_numbers([1, 2], opaque(self.inner))
        return x
'''


def test_items_of_wrappers_break_where_dynamo_does(tmp_path: Path) -> None:
    breaks = dynamo_breaks(SAMPLE, tmp_path)
    marks = ("reversed", "list", "buffers", "named", "parameters")
    assert {line for line, _ in breaks} == {line_of(SAMPLE, f"# {mark}") for mark in marks}
    found = graphmend_findings(SAMPLE, tmp_path)
    assert {(line, gb) for line, _, gb in found} == breaks
