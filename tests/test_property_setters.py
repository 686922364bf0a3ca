"""A property with a setter or deleter (`@systime.setter`, pypose's `System.systime`): a read of
`self.NAME` in traced code runs the getter, and Dynamo traces it there (measured here with
torch._dynamo.explain on torch 2.13). The setter, a def of the same name after it, no longer hides
the getter (property_reads.accessor_of_property). Near miss: a setter that breaks, the property
only read, is never run, so nothing there is reported."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from sample_modules import agreed_break_lines, line_of

SOURCE = '''
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._t = torch.zeros(1)
        self._scale = 2.0

    @property
    def systime(self):
        print("getter")
        return self._t

    @systime.setter
    def systime(self, t):
        self._t = t

    @property
    def scale(self):
        return self._scale

    @scale.setter
    def scale(self, value):
        print("setter")
        self._scale = value

    @scale.deleter
    def scale(self):
        print("deleter")

    def forward(self, x):
        return (x + self.systime) * self.scale
'''


def test_a_property_read_runs_its_getter_not_its_setter(tmp_path) -> None:
    assert agreed_break_lines(SOURCE, tmp_path) == {line_of(SOURCE, 'print("getter")')}
