"""A local bound to `None` decides `x is None` where Dynamo does: `mask = None` then
`if mask is not None and mask.any():` never converts `mask` (Dynamo knows it is None at trace time
and does not break, torch 2.13), so graphmend reports nothing there (function_statements._bind
keeps such a local narrowing.NONE_VALUE). Found by benchmarks/differential_fuzz.py. Near misses
that still break and are still reported: a local that an `if` may have bound to a mask, a
`while` test whose body binds the tensor (`k = None` before, a tensor on the next test), and a
loop's `prev` that is None on the first iteration only."""

from __future__ import annotations

from pathlib import Path

from sample_modules import dynamo_breaks, graphmend_findings

SOURCE = """\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        y = x * 2
        mask = None
        if mask is not None and mask.any():
            y = y + 1
        if mask is not None:
            if mask.any():
                y = y + 1
        if mask is None or mask.all():
            y = y + 1
        z = y if mask is None else y * mask.any()
        m = None
        if y.shape[0] > 1:
            m = y > 0
        if m is not None and m.any():
            y = y + 1
        k = None
        while k is None or k.sum() < 0:
            k = y * 1
        prev = None
        for t in y.unbind(0):
            if prev is not None and (t - prev).abs().max() > 0:
                y = y + 1
            prev = t
        return y + z
"""

BREAKS = {20: "GM101", 23: "GM104", 27: "GM101"}


def test_a_local_known_none_decides_its_none_tests(tmp_path: Path) -> None:
    breaks = dynamo_breaks(SOURCE, tmp_path)
    assert breaks == {(line, "GB0170") for line in BREAKS}
    assert {(line, code) for line, code, _ in graphmend_findings(SOURCE, tmp_path)} == set(BREAKS.items())
