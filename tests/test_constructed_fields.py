"""A local built by a call of a class with keywords (`state = LIFState(z=..., v=...)`) holds, in the
field of each keyword, what was passed there: `state.v` is the tensor given as `v`, whichever module
defines the class (norse builds its neuron states from NamedTuples of `norse.torch.functional`, then
sets `state.v.requires_grad = True`, which breaks: GB0206). Measured here with Dynamo (torch 2.13)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from graphmend_bot.config import Config
from graphmend_bot.engine import check

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from ground_truth import Tree, dynamo_breaks  # noqa: E402

STATES = '''\
from typing import NamedTuple

import torch


class LIFState(NamedTuple):
    z: torch.Tensor
    v: torch.Tensor
'''
CELLS = '''\
import torch
from torch import nn

from .states import LIFState


class Cell(nn.Module):
    def forward(self, x):
        state = LIFState(z=torch.zeros_like(x), v=torch.zeros_like(x))
        state.v.requires_grad = True
        shape = LIFState(z=x.shape[0], v=x.shape[-1])
        if shape.v > 2:
            x = x * 2
        return x + state.v
'''
REQUIRES_GRAD = 10


def test_a_field_holds_what_its_keyword_was_given(tmp_path: Path) -> None:
    root = tmp_path / "neurons"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "states.py").write_text(STATES)
    (root / "cells.py").write_text(CELLS)
    sys.path.insert(0, str(tmp_path))
    try:
        cell = importlib.import_module("neurons.cells").Cell()
        explained = dynamo_breaks(cell, (torch.ones(3),), {}, Tree([str(root)]))  # type: ignore[arg-type]
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "neurons" or n.startswith("neurons.")]:
            del sys.modules[name]
    assert {line for file, line in explained.lines if file.endswith("cells.py")} == {REQUIRES_GRAD}
    result = check([str(root)], Config(), jobs=1)
    assert not result.errors, result.errors
    # the field given a tensor is one; the one given a size is a Python int (no GM101 at `shape.v > 2`)
    assert {(f.location.row, f.code) for f in result.findings} == {(REQUIRES_GRAD, "GM701")}
