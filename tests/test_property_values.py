"""A property read on a value of a known class gives what the getter returns, measured with Dynamo:
`beam.gamma[beam.gamma != 0]` indexes a tensor by a mask when `gamma` returns a tensor (cheetah's
`SpaceChargeKick._E_plus_vB_field` on `beam: ParticleBeam`); a property returning text compares
without a break, and a plain attribute of such a value is no tensor for it."""

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
        self.energy = energy
        self.name = "beam"

    @property
    def gamma(self) -> torch.Tensor:
        return self.energy * 2

    @property
    def label(self):
        return "beam"


class Kick:
    def field(self, beam: Beam, x):
        igamma2 = torch.zeros_like(beam.gamma)
        igamma2[beam.gamma != 0] = beam.gamma[beam.gamma != 0].square().reciprocal()
        if beam.label == "beam" and beam.name:
            x = x + 1
        return x * igamma2


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.kick = Kick()

    def forward(self, x):
        return self.kick.field(Beam(x), x)
'''


def test_a_property_gives_what_its_getter_returns(tmp_path: Path) -> None:
    masked = line_of(SOURCE, "igamma2[beam.gamma != 0] =")
    assert {line for line, _ in dynamo_breaks(SOURCE, tmp_path)} == {masked}
    assert graphmend_findings(SOURCE, tmp_path) == {(masked, "GM502", "GB0036")}
