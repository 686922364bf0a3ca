"""`copy.deepcopy` of an nn.Module held outside the compiled region (GM693), measured with Dynamo.

Dynamo inlines `copy.deepcopy` and refuses it on reaching a tensor (GB4198): a module built in
`__init__` or at module level holds its parameters and buffers. A module without tensors
(`nn.ReLU()`) is refused at its `__setstate__` (GB0008). Near misses: a deepcopy of a plain object
of the tree traces, and so does one of a number held in `self`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))

from sample_modules import dynamo_breaks, graphmend_findings, line_of

HEAD = """import copy
from copy import deepcopy

import torch
from torch import nn

SHARED = nn.Linear(3, 3)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return x * self.scale


class Options:
    def __init__(self):
        self.depth = 2


"""


def _model(init: str, statement: str) -> str:
    return HEAD + (
        "class Model(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        f"        {init}\n\n"
        "    def forward(self, x):\n"
        "        x = x * 2\n"
        f"        {statement}\n"
        "        return x + 1\n"
    )


@pytest.mark.parametrize(
    ("init", "statement", "gb_id"),
    [
        ("self.head = nn.Linear(3, 3)", "head = copy.deepcopy(self.head)", "GB4198"),
        ("self.head = torch.nn.Sequential(nn.Linear(3, 3))", "head = deepcopy(self.head)", "GB4198"),
        ("self.norm = nn.BatchNorm1d(3)", "norm = copy.deepcopy(self.norm)", "GB4198"),
        ("self.block = Block()", "block = copy.deepcopy(self.block)", "GB4198"),  # a module class of the tree
        ("self.act = nn.ReLU()", "act = copy.deepcopy(self.act)", "GB0008"),  # no tensor: its __setstate__
        ("pass", "shared = copy.deepcopy(SHARED)", "GB4198"),  # a module global
        # a module in either arm
        ("ema = False; self.head = nn.Linear(3, 3) if ema else nn.ReLU()", "head = copy.deepcopy(self.head)", "GB0008"),
        ("head = None; self.head = head or nn.Linear(3, 3)", "head = copy.deepcopy(self.head)", "GB4198"),
    ],
)
def test_deepcopy_of_held_module_breaks_and_is_reported(init: str, statement: str, gb_id: str, tmp_path: Path) -> None:
    source = _model(init, statement)
    line = line_of(source, statement)
    assert dynamo_breaks(source, tmp_path) == {(line, gb_id)}
    assert {(row, code) for row, code, _ in graphmend_findings(source, tmp_path)} == {(line, "GM693")}


@pytest.mark.parametrize(
    ("init", "statement"),
    [
        ("self.options = Options()", "options = copy.deepcopy(self.options)"),  # plain Python data
        ("self.sizes = [1, 2]", "sizes = copy.deepcopy(self.sizes)"),
        ("self.depth = 2", "depth = copy.deepcopy(self.depth)"),
        # a module in one arm only: the object may be the other's (None here)
        ("ema = False; self.ema = nn.Linear(3, 3) if ema else None", "ema = copy.deepcopy(self.ema)"),
        ("ema = False; self.ema = ema and nn.Linear(3, 3)", "ema = copy.deepcopy(self.ema)"),
    ],
)
def test_deepcopy_of_held_python_data_is_not_reported(init: str, statement: str, tmp_path: Path) -> None:
    source = _model(init, statement)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_deepcopy_of_held_parameter_stays_a_tensor_copy(tmp_path: Path) -> None:
    """A held `nn.Parameter` is a tensor: GM604 reports its deepcopy, GM693 does not."""
    source = _model("self.w = nn.Parameter(torch.ones(3))", "w = copy.deepcopy(self.w)")
    line = line_of(source, "w = copy.deepcopy(self.w)")
    assert dynamo_breaks(source, tmp_path) == {(line, "GB4198")}
    assert {(row, code) for row, code, _ in graphmend_findings(source, tmp_path)} == {(line, "GM604")}
