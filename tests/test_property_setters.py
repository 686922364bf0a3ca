"""`self.NAME = value` on a property with a setter, in traced code, measured with Dynamo.

Dynamo inlines the setter at the store (torch 2.13: a break inside it is logged at the setter's
line, none at the store, and the caller goes on traced), so the setter is traced code and the value
stored is its parameter: a tensor stored reaches a `np.isscalar(value)` there (laplace's
`prior_precision` setter). Near misses: a setter that does not break, and a plain attribute.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))

from sample_modules import dynamo_breaks, graphmend_findings, line_of

SOURCE = '''import numpy as np
import torch


class Base(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._p = torch.ones(1)
        self._q = torch.ones(1)

    @property
    def p(self) -> torch.Tensor:
        return self._p

    @p.setter
    def p(self, value: float | torch.Tensor):
        if np.isscalar(value) and np.isreal(value):
            self._p = torch.as_tensor([value])
        elif isinstance(value, torch.Tensor):
            self._p = value.reshape(-1)

    @property
    def q(self) -> torch.Tensor:
        return self._q

    @q.setter
    def q(self, value):
        self._q = value.reshape(-1)


class Model(Base):
    def forward(self, x):
        y = x * 2
        self.q = y.sum()
        self.plain = y.mean()
        self.p = y.sum().detach()
        return y * self.p + self.q
'''


def test_a_breaking_setter_is_traced_from_the_store(tmp_path: Path) -> None:
    breaks = dynamo_breaks(SOURCE, tmp_path)
    test = line_of(SOURCE, "if np.isscalar(value)")
    assert {line for line, _ in breaks} == {test}  # in the setter, nothing at `self.p = ...`
    assert {line for line, _, _ in graphmend_findings(SOURCE, tmp_path)} == {test}


def test_a_setter_is_no_entry_point_of_its_own(tmp_path: Path) -> None:
    """Only a store runs it: without one, its body is not traced code."""
    source = SOURCE.replace("        self.p = y.sum().detach()\n", "")
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
