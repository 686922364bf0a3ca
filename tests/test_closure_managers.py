"""`with lock:` in a nested function on a free name the enclosing function bound once by a call
(captum's `forward_hook` entering the `lock = threading.Lock()` of `_forward_layer_distributed_eval`):
judged by what built it, as a global is (GM612, held_contexts.py). Measured with Dynamo on torch
2.13 against `graphmend check`: a lock, an RLock, a Condition and a `contextlib.suppress(...)` built
outside the frame break (GB0142); a `contextlib.nullcontext()` traces, and is not reported. And a
skipped callee a `with` builds breaks there as GB0142, whatever id its bare call has (GM640)."""

from __future__ import annotations

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

SOURCE = """
import contextlib
import threading

import torch
from torch import nn


def make():
    manager = {built}

    def hook(x):
        with manager:
            return x * 2

    return hook


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.hook = make()

    def forward(self, x):
        y = self.hook(x)
        return y + 1
"""


def line_of(source: str, text: str) -> int:
    return next(row for row, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize(
    ("built", "breaks"),
    [
        ("threading.Lock()", True),
        ("threading.RLock()", True),
        ("threading.Condition()", True),
        ("contextlib.nullcontext()", False),
        ("contextlib.suppress(KeyError)", True),  # held from outside: Dynamo cannot enter it
    ],
)
def test_a_closure_manager_is_judged_by_its_builder(tmp_path, built, breaks):
    source = SOURCE.format(built=built)
    row = line_of(source, "with manager:")
    expected = {(row, "GB0142")} if breaks else set()
    assert {b for b in dynamo_breaks(source, tmp_path) if b[0] == row} == expected
    found = {(r, gb_id) for r, code, gb_id in graphmend_findings(source, tmp_path) if r == row}
    assert found == expected
    if breaks:
        assert (row, "GM612", "GB0142") in graphmend_findings(source, tmp_path)


ENTERED = """
import os
import threading

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        y = x * 2
        with {built}:
            y = y + 1
        return y + 1
"""


@pytest.mark.parametrize("built", ["threading.Lock()", "threading.RLock()", "os.scandir('.')"])
def test_a_skipped_callee_a_with_enters_breaks_at_the_with(tmp_path, built):
    """GM640's callees built by the `with` itself: Dynamo cannot enter them (GB0142), whatever id
    the bare call is refused with (`threading.RLock()`: GB0156)."""
    source = ENTERED.format(built=built)
    row = line_of(source, "with ")
    assert {b for b in dynamo_breaks(source, tmp_path) if b[0] == row} == {(row, "GB0142")}
    assert (row, "GM640", "GB0142") in graphmend_findings(source, tmp_path)
