"""Calls from traced code to a function compiled by numba (`@numba.jit`, `@njit`), measured with Dynamo.

The decorated name is a numba dispatcher: Dynamo cannot call into it ("Unsupported method call" of
`CPUDispatcher.__call__`, GB0156; GB6890 when an argument is a NumPy array it traces, which it cannot
hash for the dispatch) and never traces the function's body, so the break is at the call (GM651,
compiled code) and nothing in the body is reported (pysdtw's soft-DTW kernels). graphmend only reads
the source: the static half runs without numba; the measured half needs it (the `test` extra).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))

from sample_modules import dynamo_breaks, graphmend_findings, line_of

SOURCE = '''import numba
import numpy as np
import torch
from numba import jit


@jit(nopython=True)
def kernel(a, n):
    out = np.zeros(n)
    for i in range(n):
        if a[i] > 0:
            out[i] = a[i]
    return out


@numba.njit(cache=False)
def doubled(n):
    return n * 2


kernel(np.ones(3), 3)  # compiled before the traced call, as a library's first call does
doubled(3)


class Model(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        y = y + 1
        k = doubled(3)
        y = y * k
        r = torch.as_tensor(kernel(y.detach().numpy(), 3))
        return y + r
'''


def test_graphmend_reports_the_calls_and_nothing_in_the_compiled_bodies(tmp_path: Path) -> None:
    found = graphmend_findings(SOURCE, tmp_path)
    assert found == {(line_of(SOURCE, "k = doubled(3)"), "GM651", "GB0156"),
                     (line_of(SOURCE, "r = torch.as_tensor(kernel("), "GM651", "GB0156")}


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is in the test extra")
def test_dynamo_breaks_at_the_calls_only(tmp_path: Path) -> None:
    assert dynamo_breaks(SOURCE, tmp_path) == {
        (line_of(SOURCE, "k = doubled(3)"), "GB0156"),
        (line_of(SOURCE, "r = torch.as_tensor(kernel("), "GB6890"),
    }
