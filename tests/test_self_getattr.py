"""`getattr(self, "name"[, default])` with a literal name reads `self.name` (analysis/value_sources.py):
over a registered 0-d buffer `bool(...)` breaks (GB0124) and so does a condition on it (GB0170),
as the attribute spelling does (torch 2.13). Near misses, measured to trace: the same call over a
Python float, over a name the object lacks (the default), and over `training` (static)."""

from __future__ import annotations

from pathlib import Path

from sample_modules import dynamo_breaks, graphmend_findings

DEFAULTED = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("flag", torch.tensor(True))
        self.scale = 2.0

    def composed(self):
        return bool(getattr(self, "flag", False))

    def forward(self, x):
        if getattr(self, "scale", 1.0) > 1.0:
            x = x * 2
        if getattr(self, "missing", False):
            x = x - 1
        if getattr(self, "training"):
            x = x + 3
        if self.composed():
            x = x + 1
        return x
"""

PLAIN = """\
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("flag", torch.tensor(True))

    def forward(self, x):
        if getattr(self, "flag"):
            x = x + 1
        return x
"""


def test_getattr_with_a_default_over_a_buffer_breaks_and_near_misses_trace(tmp_path: Path) -> None:
    breaks = dynamo_breaks(DEFAULTED, tmp_path)
    assert breaks == {(12, "GB0124")}
    assert {(line, gb) for line, _, gb in graphmend_findings(DEFAULTED, tmp_path)} == breaks


def test_getattr_without_a_default_is_the_attribute(tmp_path: Path) -> None:
    breaks = dynamo_breaks(PLAIN, tmp_path)
    assert breaks == {(11, "GB0170")}
    assert graphmend_findings(PLAIN, tmp_path) == {(11, "GM101", "GB0170")}
