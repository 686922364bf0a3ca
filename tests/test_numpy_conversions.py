"""A NumPy value made a Python one in traced code, against TorchDynamo (torch 2.13). Dynamo runs NumPy
through torch._numpy, so an array is a tensor in the graph: `.item()`, `float()`, `int()`, `bool()` of
one break with "Data dependent operator" (GB0033, not a tensor's GB0124) and `.tolist()` with GB0109,
on a reduction (`a.sum()`) and on an element (`a[i]`, `np.asarray(...)[i]`) alike. Near misses: a 0-d
array or NumPy scalar made from Python constants is folded (`np.array(2.0).item()`,
`np.float64(2.0).item()`, `np.array(2.0)[()]`), shapes and lengths are
Python ints, and `complex()` of an element fails as a builtin (GB0059), which no rule claims."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("numpy")

from sample_modules import dynamo_breaks, graphmend_findings, line_of

SAMPLE = '''import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        a = np.ones(3)
        x = x + 1
        v = a.sum().item()
        x = x + 1
        w = a[0].item()
        x = x + 1
        f = float(a[1])
        x = x + 1
        i = int(a.sum())
        x = x + 1
        b = bool(a[2])
        x = x + 1
        k = np.asarray([1.0, 2.0])[0].item()
        x = x + 1
        q = a[1:].tolist()
        x = x + 1
        r = np.array(2.0).item()
        g = np.float64(2.0).item()
        u = np.array(2.0)[()].item()
        n = int(a.shape[0]) + float(len(a))
        return x * v * w * f * i * b * k * q[0] * r * g * u * n
'''

BREAKING = {
    "v = a.sum().item()": "GB0033", "w = a[0].item()": "GB0033", "f = float(a[1])": "GB0033",
    "i = int(a.sum())": "GB0033", "b = bool(a[2])": "GB0033", "k = np.asarray": "GB0033", "q = a[1:].tolist()": "GB0109",
}


def test_numpy_values_made_python_break_where_and_as_graphmend_says(tmp_path: Path) -> None:
    expected = {(line_of(SAMPLE, text), gb_id) for text, gb_id in BREAKING.items()}
    assert dynamo_breaks(SAMPLE, tmp_path) == expected
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(SAMPLE, tmp_path)} == expected
