"""Calls through a local holding a callable (analysis/held_callables.py, call_spellings.py; spellW,
issue 27): a `functools.partial` of a torch function, of `torch.Tensor.item` or of a builtin, and a
bound method of torch.Tensor's API held in a local, each read as the plain call it makes. Measured
with Dynamo (torch 2.13): graphmend must agree line for line, on the spellings and on their near
misses (partials of functions that trace or of the tree's own, bound methods of Python objects or
that trace, a local rebound before the call, a receiver rebound between binding and call)."""

from __future__ import annotations

from pathlib import Path

from sample_modules import agreed_break_lines, line_of

HEADER = """\
import functools
from functools import partial

import torch
from torch import nn

"""

SPELLED = HEADER + """
class Model(nn.Module):
    def forward(self, x):
        f = functools.partial(torch.nonzero, as_tuple=False)
        a = f(x)
        g = functools.partial(torch.Tensor.item)
        b = g(x.sum())
        get = x.sum().item
        c = get()
        tl = partial(torch.Tensor.tolist)
        d = tl(x)
        to_int = functools.partial(int)
        e = to_int(x.max())
        s = x.mean()
        held = s.item
        h = held()
        return x + a.sum() + b + c + d[0] + e + h
"""

NEAR = HEADER + """
def mine(t):
    return t * 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = {"k": 1}

    def forward(self, x):
        h = functools.partial(torch.add, alpha=2)
        a = h(x, x)
        k = functools.partial(mine)
        b = k(x)
        m = x.sum
        c = m()
        lookup = self.cfg.get
        d = lookup("k")
        n = 3
        conv = n.__int__
        e = conv()
        get = x.sum().item
        get = x.sum
        f = get()
        nz = functools.partial(torch.nonzero)
        nz = functools.partial(torch.abs)
        g = nz(x)
        return a + b + c + d + e + f + g
"""

# The receiver is rebound between the binding and the call: the value read at the call would not be
# the one held (graphmend stays silent where it cannot tell; Dynamo breaks on the tensor's item).
REBOUND = HEADER + """
class Box:
    def item(self):
        return 1.0


class Model(nn.Module):
    def forward(self, x):
        t = Box()
        get = t.item
        t = x.sum()
        a = get()
        return x + a + t
"""


def test_held_callables_break_where_the_plain_calls_do(tmp_path: Path) -> None:
    lines = agreed_break_lines(SPELLED, tmp_path)
    wanted = ["a = f(x)", "b = g(x.sum())", "c = get()", "d = tl(x)", "e = to_int(", "h = held()"]
    assert lines == {line_of(SPELLED, text) for text in wanted}


def test_held_callables_that_trace_are_not_reported(tmp_path: Path) -> None:
    assert agreed_break_lines(NEAR, tmp_path) == set()


def test_a_receiver_rebound_before_the_call_is_not_read_at_the_call(tmp_path: Path) -> None:
    assert agreed_break_lines(REBOUND, tmp_path) == set()
