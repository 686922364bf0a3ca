"""GM656: arithmetic and ordering on a tensor's `data_ptr()`, measured with Dynamo (torch 2.13).

Dynamo holds the pointer as a stand-in that is no int: each spelling below raises inside Dynamo
("Observed exception", GB0088) at its line; the near misses trace and are not reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

TEMPLATE = '''import torch

TABLE = {{}}


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        x = torch.sin(x)
        {statement}
        return torch.cos(y)
'''

BREAKING = {
    "modulo": "y = x * (x.data_ptr() % 16 == 0)",
    "add": "y = x + (x.data_ptr() + 1) * 0",
    "reflected": "y = x + (1 + x.data_ptr()) * 0",
    "subtract": "y = x + (x.data_ptr() - 8) * 0",
    "floor_divide": "y = x + (x.data_ptr() // 64) * 0",
    "bit_and": "y = x + (x.data_ptr() & 63)",
    "shift": "y = x + (x.data_ptr() >> 4) * 0",
    "less": "y = x * (2 if x.data_ptr() < 4096 else 1)",
    "greater_equal": "y = x * (2 if 0 >= x.data_ptr() else 1)",
    "two_pointers": "y = x * (2 if x.data_ptr() > x.data_ptr() else 1)",
    "const_data_ptr": "y = x + (x.const_data_ptr() % 16)",
    "parameter": "y = x + (self.w.data_ptr() % 16)",
}

# Builtins of the pointer, each breaking where it is called with an id of its own (BUILTIN_IDS);
# the value is then an eager int. `hash()` of it breaks only where its result is used: not reported.
BUILTINS = {
    "hex": ("v = hex(x.data_ptr())", "GB0059"),
    "oct": ("v = oct(x.const_data_ptr())", "GB0059"),
    "bin": ("v = bin(x.data_ptr())", "GB0059"),
    "abs": ("v = abs(x.data_ptr())", "GB9548"),
    "divmod": ("v = divmod(x.data_ptr(), 16)", "GB0088"),
}

NEAR_MISSES = {
    "alone": "y = x * 2 + 0 * len([x.data_ptr()])",
    "same_tensor_equal": "y = x * (2 if x.data_ptr() == x.detach().data_ptr() else 1)",
    "dict_lookup": "y = x * TABLE.get(x.data_ptr(), 1)",
    "membership": "y = x * (2 if x.data_ptr() in TABLE else 1)",
    "dict_built": "y = x * len({x.data_ptr(): 1})",
    "truth": "y = x * (2 if x.data_ptr() else 1)",
    "other_method": "y = x + (x.numel() % 16)",
    "const_truth": "y = x * (2 if x.const_data_ptr() else 1)",  # a static method, as data_ptr: no tensor
    "builtin_of_other": "y = x + len(hex(x.numel())) + abs(x.numel()) + divmod(x.numel(), 2)[0]",
}


@pytest.mark.parametrize("statement", BREAKING.values(), ids=BREAKING.keys())
def test_pointer_arithmetic_breaks_where_reported(statement: str, tmp_path: Path) -> None:
    source = TEMPLATE.format(statement=statement)
    row = line_of(source, statement)
    assert dynamo_breaks(source, tmp_path) == {(row, "GB0088")}
    assert graphmend_findings(source, tmp_path) == {(row, "GM656", "GB0088")}


@pytest.mark.parametrize(("statement", "gb_id"), BUILTINS.values(), ids=BUILTINS.keys())
def test_builtins_of_the_pointer_break_where_reported(statement: str, gb_id: str, tmp_path: Path) -> None:
    source = TEMPLATE.format(statement=f"{statement}\n        y = x + len(str(v))")
    row = line_of(source, statement)
    assert dynamo_breaks(source, tmp_path) == {(row, gb_id)}
    assert graphmend_findings(source, tmp_path) == {(row, "GM656", gb_id)}


@pytest.mark.parametrize("statement", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_pointer_uses_that_trace_are_not_reported(statement: str, tmp_path: Path) -> None:
    source = TEMPLATE.format(statement=statement)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
