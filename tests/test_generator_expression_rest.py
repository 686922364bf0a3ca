"""A break of `all()`/`any()` taking each element's truth inside a generator expression leaves the
rest of the frame eager, as one in a loop body does: Dynamo cannot resume inside the generator, so it
gives up on the frame, reports no break after it, and (Python 3.11) runs each later comprehension over a list as a frame of its own, which breaks
("Missing tp_iternext", GM611). A list comprehension's break, or `all()` over a list or a tensor,
is resumed after. Measured with Dynamo (torch 2.13, CPU); found on torchdyn's `_fixed_odeint`,
`assert all(torch.isclose(t, save_at).sum() == 1 for t in save_at)` before two tensor branches. A
break in a generator's own element (`sum(int(t) for t in ts)`) does it too (measured), but a lazy
generator's never runs and a `map` consumed in place is resumed after: those are left to the frame's
other rules (left: tests/test_try_lazy_generators.py, tests/test_call_spellings.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

TEMPLATE = """\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        save_at = torch.arange(3.0) + x
        {statement}
        y = x * 0 + save_at
        if torch.isclose(y, save_at).sum():
            y = y + 1
        return y
"""
STATEMENT, BRANCH = 8, 10
GENERATORS = {
    "ok = all(torch.isclose(t, save_at).sum() == 1 for t in save_at)": "GM106",
    "assert any(t > 0 for t in save_at)": "GM106",
}
RESUMED = {
    "ok = all([t.sum() > 0 for t in save_at])": "GM106",
    "ok = all(save_at > 0)": "GM106",
    "ok = [t.item() for t in save_at]": "GM301",
}


@pytest.mark.parametrize("statement", sorted(GENERATORS))
def test_a_break_inside_a_generator_expression_leaves_the_rest_eager(statement: str, tmp_path: Path) -> None:
    source = TEMPLATE.format(statement=statement)
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} == {STATEMENT}
    assert {(line, code) for line, code, _ in graphmend_findings(source, tmp_path)} == {(STATEMENT, GENERATORS[statement])}


@pytest.mark.parametrize("statement", sorted(RESUMED))
def test_a_break_in_a_list_comprehension_or_over_a_list_is_resumed_after(statement: str, tmp_path: Path) -> None:
    source = TEMPLATE.format(statement=statement)
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} == {STATEMENT, BRANCH}
    assert {(line, code) for line, code, _ in graphmend_findings(source, tmp_path)} == {
        (STATEMENT, RESUMED[statement]), (BRANCH, "GM101")}


COMPREHENSION_AFTER = """\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        save_at = torch.arange(3.0) + x
        order = [1, 0]
        ok = any(t > 5 for t in save_at)
        parts = [save_at[i] for i in order]
        return parts[0] + x
"""


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 inlines comprehensions (PEP 709)")
def test_a_comprehension_over_a_list_after_it_runs_as_a_frame_and_breaks(tmp_path: Path) -> None:
    assert dynamo_breaks(COMPREHENSION_AFTER, tmp_path) == {(9, "GB0170"), (10, "GB4347")}
    assert {(line, code) for line, code, _ in graphmend_findings(COMPREHENSION_AFTER, tmp_path)} == {(9, "GM106"), (10, "GM611")}
