"""Calls spelled through indirection (analysis/call_spellings.py; spellV, issue 27): each is read
as the plain call it makes, so the rules that know the plain call report it. Measured with Dynamo
(torch 2.13): graphmend must agree line for line, on the spellings and on their near misses (the
same spellings of calls that trace)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import agreed_break_lines, dynamo_breaks, graphmend_findings, line_of

HEADER = """\
import builtins
import functools
import operator
import torch
from torch import nn

"""

SPELLED = HEADER + """
class Model(nn.Module):
    def forward(self, x):
        x = x + 1
        a = getattr(x.sum(), "item")()
        b = torch.Tensor.item(x.sum())
        c = x.max().__int__()
        d = x.mean().__float__()
        e = operator.index(x.argmax())
        f = getattr(torch, "nonzero")(x)
        nz = torch.nonzero
        g = nz(x)
        s2 = sorted
        h = s2([x.sum(), x.mean()])
        i = builtins.sorted([x.sum(), x.mean()])
        if x.sum().__bool__():
            x = x + 1
        if operator.truth(x.sum() > 0):
            x = x + 1
        if operator.gt(x.sum(), 0):
            x = x + 1
        if torch.Tensor.any(x > 0):
            x = x + 1
        return x + a + b + c + d + e + f.sum() + g.sum() + h[0] + i[0]
"""

NEAR = HEADER + """
class Model(nn.Module):
    def forward(self, x):
        a = getattr(x, "dim")()
        b = torch.Tensor.size(x, -1)
        c = (3).__int__()
        d = operator.index(x.shape[0])
        wh = torch.where
        e = wh(x > 0, x, -x)
        s2 = sorted
        f = s2([x.shape[0], 1])
        if operator.gt(x.shape[0], 0):
            x = x + 1
        if (x.dim() > 0).__bool__():
            x = x + 1
        if operator.truth(x.shape[0]):
            x = x + 1
        return x + e * a * b * c * d * f[0]
"""

# A local bound twice, or to a function of the tree, keeps its own handling (the scope solver's).
REBOUND = HEADER + """
def mine(t):
    return t * 2


class Model(nn.Module):
    def forward(self, x):
        fn = torch.nonzero
        fn = mine
        y = fn(x)
        g = mine
        return y + g(x)
"""


def test_spelled_calls_break_where_the_plain_calls_do(tmp_path: Path) -> None:
    lines = agreed_break_lines(SPELLED, tmp_path)
    wanted = ['getattr(x.sum(), "item")()', "torch.Tensor.item(", "__int__", "__float__", "operator.index",
              'getattr(torch, "nonzero")', "g = nz(x)", "h = s2(", "builtins.sorted", "__bool__",
              "operator.truth", "operator.gt", "torch.Tensor.any"]
    assert lines == {line_of(SPELLED, text) for text in wanted}


def test_spelled_calls_that_trace_are_not_reported(tmp_path: Path) -> None:
    assert agreed_break_lines(NEAR, tmp_path) == set()


def test_rebound_and_tree_aliases_are_left_to_the_solver(tmp_path: Path) -> None:
    assert agreed_break_lines(REBOUND, tmp_path) == set()


LOCAL_HEADS = HEADER + """
class Ops:
    def gt(self, a, b):
        return True

    def index(self, a):
        return 1


class Model(nn.Module):
    def forward(self, x):
        operator = Ops()
        if operator.gt(x.sum(), 0):
            x = x + 1
        return x * operator.index(x.argmax())
"""


def test_a_local_named_like_the_module_is_not_respelled(tmp_path: Path) -> None:
    # `operator` bound in the function is the local object, not the module the import names: its
    # `gt` returns a Python bool, and Dynamo traces it all (review 26: lead reported GM101 here)
    assert agreed_break_lines(LOCAL_HEADS, tmp_path) == set()


# `map(F, xs)` consumed where it is built is the generator `(F(v) for v in xs)` (spellW): Dynamo
# breaks on `F(v)` at the consuming call; a map of Python numbers, or of a function that traces, does not.
MAPPED = HEADER + """
class Model(nn.Module):
    def forward(self, x):
        a = sum(map(float, x))
        b = list(map(torch.Tensor.item, x))
        c = tuple(map(int, x))
        d = max(map(bool, x))
        return x + a + b[0] + c[0] + d
"""

MAPPED_NEAR = HEADER + """
class Model(nn.Module):
    def forward(self, x):
        a = list(map(int, x.shape))
        b = list(map(torch.sigmoid, [x, x]))
        c = list(map(float, [1, 2]))
        d = sorted(map(abs, [1, -2]))
        e = tuple(map(torch.Tensor.size, [x]))
        return x * a[0] + b[0] + c[0] + d[0] + e[0][0]
"""


def test_a_map_consumed_where_it_is_built_breaks_on_its_function(tmp_path: Path) -> None:
    lines = agreed_break_lines(MAPPED, tmp_path)
    assert lines == {line_of(MAPPED, text) for text in ("a = sum(", "b = list(", "c = tuple(", "d = max(")}


def test_a_map_of_python_values_or_traced_functions_is_not_reported(tmp_path: Path) -> None:
    assert agreed_break_lines(MAPPED_NEAR, tmp_path) == set()


CONVERSION = HEADER + """
class Model(nn.Module):
    def forward(self, x):
        n = x.long().sum()
        y = {spelling}
        return x + 1, y
"""


@pytest.mark.parametrize("spelling", [
    "bool(x.sum())", "x.sum().__bool__()", "int(x.sum())", "x.sum().__int__()", "float(x.sum())",
    "x.sum().__float__()", "n.__index__()", "operator.index(n)", "operator.truth(x.sum())",
])
def test_conversion_dunders_break_with_dynamos_id(tmp_path: Path, spelling: str) -> None:
    # Dynamo runs `t.__bool__()` and `t.__index__()` as tensor methods, reading the value back with
    # `aten._local_scalar_dense` (GB0033); the builtins, `__int__`, `__float__` and `operator`'s
    # conversions break as the builtin does (GB0124). graphmend gives the same line and id.
    source = CONVERSION.format(spelling=spelling)
    breaks = dynamo_breaks(source, tmp_path)
    assert {line for line, _ in breaks} == {line_of(source, "y = ")}
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(source, tmp_path)} == breaks
