"""`super().requires_grad_(mode)` in a torch.Tensor subclass (pina's LabelTensor), measured with
Dynamo on torch 2.13: torch's own method on the instance, GB0125 at the `super()` call when the
instance is a graph input (here a module-level tensor Dynamo reads from its global) whose flag it
changes (GM701). Near misses: a false constant flag, and a base class of the tree that defines
`requires_grad_` itself (Dynamo inlines it, and what it does decides)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sample_modules import dynamo_breaks, graphmend_findings, line_of

LABELLED = '''
import torch
from torch import Tensor


class Labelled(Tensor):
    def requires_grad_(self, mode=True):
        lt = super().requires_grad_({flag})
        return lt


POINTS = Labelled(torch.ones(3))


class Model(torch.nn.Module):
    def forward(self, x):
        POINTS.requires_grad_(True)
        return x * 2
'''

OWN_BASE = '''
import torch


class Base(torch.Tensor):
    def requires_grad_(self, mode=True):
        return self


class Labelled(Base):
    def requires_grad_(self, mode=True):
        return super().requires_grad_(mode)


POINTS = Labelled(torch.ones(3))


class Model(torch.nn.Module):
    def forward(self, x):
        POINTS.requires_grad_(True)
        return x * 2
'''


@pytest.mark.parametrize("flag", ["mode", "True"])
def test_flag_that_may_be_true_breaks_and_is_reported(flag: str, tmp_path: Path) -> None:
    source = LABELLED.format(flag=flag)
    line = line_of(source, "super().requires_grad_(")
    assert (line, "GB0125") in dynamo_breaks(source, tmp_path)
    assert (line, "GM701", "GB0125") in graphmend_findings(source, tmp_path)


def test_false_constant_traces_and_is_not_reported(tmp_path: Path) -> None:
    source = LABELLED.format(flag="False")
    line = line_of(source, "super().requires_grad_(")
    assert line not in {found for found, _ in dynamo_breaks(source, tmp_path)}
    assert line not in {found for found, _, _ in graphmend_findings(source, tmp_path)}


def test_base_of_the_tree_defining_it_is_not_reported(tmp_path: Path) -> None:
    line = line_of(OWN_BASE, "super().requires_grad_(")
    assert line not in {found for found, _ in dynamo_breaks(OWN_BASE, tmp_path)}
    assert line not in {found for found, _, _ in graphmend_findings(OWN_BASE, tmp_path)}
