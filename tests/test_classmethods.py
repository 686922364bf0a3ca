"""Classmethods in traced code, measured with Dynamo: `cls(...)` builds the class, so its `__init__`
runs and the object's properties are the class's; and `Cls.make(x)` binds x to the parameter after
`cls`, as a call through an instance does (cheetah's `ParticleBeam.from_xyz_pxpypz`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))

from sample_modules import dynamo_breaks, graphmend_findings, line_of

SOURCE = '''import torch


class Beam:
    def __init__(self, energy):
        print("built")
        self.energy = energy

    @property
    def beta(self):
        b = torch.ones_like(self.energy)
        b[self.energy.abs() > 0] = self.energy[self.energy.abs() > 0] * 2
        return b

    @classmethod
    def build(cls, x):
        x = x * 2
        x = x + 1
        beam = cls(x)
        p0 = (beam.beta
              * 3.0)
        return p0 + 1


class Model(torch.nn.Module):
    def forward(self, x):
        return Beam.build(x)
'''


def test_the_argument_reaches_the_parameter_after_cls_and_the_read_goes_back_to_its_statement(tmp_path: Path) -> None:
    source = SOURCE.replace('        print("built")\n', "")
    expected = {line_of(source, "b[self.energy.abs() > 0]"), line_of(source, "p0 = (beam.beta")}
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} == expected
    found = graphmend_findings(source, tmp_path)
    assert {line for line, _, _ in found} == expected
    assert (line_of(source, "p0 = (beam.beta"), "GM657", "") in found  # two operations on x, a tensor


def test_cls_builds_the_class_whose_init_runs(tmp_path: Path) -> None:
    """The break in `__init__` resumes after `cls(x)`: too few operations since for the read to go back to."""
    expected = {line_of(SOURCE, 'print("built")'), line_of(SOURCE, "b[self.energy.abs() > 0]")}
    assert {line for line, _ in dynamo_breaks(SOURCE, tmp_path)} == expected
    assert {line for line, _, _ in graphmend_findings(SOURCE, tmp_path)} == expected
