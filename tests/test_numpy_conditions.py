"""A condition on a NumPy value breaks under Dynamo even when the value is made of Python numbers:
with `trace_numpy` (the default) every `numpy.*` call runs through `torch._numpy` and returns an
array backed by a tensor in the graph, so `if np.prod(x.shape) > 1:` is data-dependent branching
(GB0170, torch 2.13). graphmend reports it (function_expressions._bool_context, numpy_values.py).
Found by benchmarks/differential_fuzz.py. Near misses: `math.prod` of the shape, `np.pi` and the
folded `np.finfo` are Python values and do not break; an array's `.item()` breaks as the tensor's
does (GM301 there already)."""

from __future__ import annotations

from pathlib import Path

from sample_modules import dynamo_breaks, graphmend_findings

SOURCE = """\
import math

import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        y = x.reshape(1, 3) * 2
        if np.prod(y.shape) > 1:
            y = y + 1
        if math.prod(y.shape) > 1:
            y = y + 1
        if np.sum(y.shape) > 1:
            y = y + 1
        if y.shape[-1] > np.sqrt(4):
            y = y + 1
        if y.shape[-1] > np.pi:
            y = y + 1
        if np.finfo(np.float32).eps < 1e-3:
            y = y + 1
        arr = np.array([1, 2])
        z = y * 2 if arr.sum() > 2 else y
        if arr.max().item() > 1:
            y = y + 1
        if y.dim() > 1 and not np.any(arr > 5):
            y = y + 1
        return y + z
"""

BREAKS = {11: "GM101", 15: "GM101", 17: "GM101", 24: "GM102", 25: "GM301", 27: "GM101"}


def test_conditions_on_numpy_values_are_reported_as_dynamo_breaks(tmp_path: Path) -> None:
    breaks = dynamo_breaks(SOURCE, tmp_path)
    assert {line for line, _ in breaks} == set(BREAKS)
    assert {gb for line, gb in breaks if line != 25} == {"GB0170"}
    assert {(line, code) for line, code, _ in graphmend_findings(SOURCE, tmp_path)} == set(BREAKS.items())
