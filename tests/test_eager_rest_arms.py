"""A read Dynamo cannot resume after (a `functools.cached_property`'s first read enters an RLock:
GB0142) makes the rest of its frame eager only when it runs: in an arm of a conditional expression
or after the first operand of `and`, with the flag off, Dynamo traces on and breaks at the print
after it (measured on torch 2.13; eager_entries._in_an_arm). The read on its own still ends it."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

SOURCE = '''import functools
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.verbose = False

    @functools.cached_property
    def scale(self):
        return 2

    def forward(self, x):
        x = x * 2
        x = x + 1
        s = {read}
        print("later")
        return x * 2
'''


@pytest.mark.parametrize(("read", "later_breaks"), [
    ("self.scale if self.verbose else 2", True),
    ("self.verbose and self.scale", True),
    ("self.scale", False),  # the read runs: the rest is eager
])
def test_read_in_an_arm_leaves_the_rest_traced(read: str, later_breaks: bool, tmp_path: Path) -> None:
    source = SOURCE.format(read=read)
    later = next(n for n, line in enumerate(source.splitlines(), 1) if 'print("later")' in line)
    assert ((later, "GB0059") in dynamo_breaks(source, tmp_path)) is later_breaks
    assert ((later, "GM401", "GB0059") in graphmend_findings(source, tmp_path)) is later_breaks



LOOP_IN_AN_ARM = '''import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 1
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        total = 0.0
{arm}
        y = self.lin(x)
        later = (y * 3).sum().item()
        return y * (total + later)
'''
LOOP = "for t in x:\n{i}    total += (t * t).sum().item()"


@pytest.mark.parametrize("arm", [
    # dadaptation's first step: `if k == 0:` around a loop of `.item()` calls
    "        if self.k == 0:\n            " + LOOP.format(i="            "),
    "        if self.k == 1:\n            total = 1.0\n        else:\n            " + LOOP.format(i="            "),
    "        match self.k:\n            case 0:\n                " + LOOP.format(i="                "),
])
def test_a_loop_break_in_an_arm_not_taken_leaves_the_rest_traced(arm: str, tmp_path: Path) -> None:
    """Dynamo skips the frame on a call taking the arm, and traces on to the break after the `if` on
    the others: both breaks are reported, the one inside the arm and the one after it."""
    source = LOOP_IN_AN_ARM.format(arm=arm)
    lines = source.splitlines()
    inner = next(n for n, line in enumerate(lines, 1) if "(t * t).sum().item()" in line)
    later = next(n for n, line in enumerate(lines, 1) if "later = " in line)
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} == {later}
    assert {line for line, _, _ in graphmend_findings(source, tmp_path)} == {inner, later}

def test_a_break_in_an_arm_inside_a_loop_still_skips_the_frame(tmp_path: Path) -> None:
    """Inside a loop body, a break in an arm skips the whole frame (loop_calls.py): what follows in
    the loop and after it is not reported (dadaptation's `if group_lr > 0.0:` in its parameter loop)."""
    source = '''import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lr = 1.0

    def forward(self, x):
        total = 0.0
        for t in x:
            if self.lr > 0.0:
                total += (t * t).sum().item()
                total += (t * 2).sum().item()
        later = (x * 3).sum().item()
        return x * (total + later)
'''
    lines = source.splitlines()
    first = next(n for n, line in enumerate(lines, 1) if "(t * t).sum().item()" in line)
    truth = {line for line, _ in dynamo_breaks(source, tmp_path)}
    found = {line for line, _, _ in graphmend_findings(source, tmp_path)}
    assert truth == {first}
    assert found == {first}
