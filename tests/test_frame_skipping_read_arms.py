"""GM611 after a property read whose getter breaks, when the read runs on some calls only.

A read in an arm of a conditional expression or after the first operand of `and`/`or`
(`s = self.scale if self.verbose else 2`) is skipped on the calls that do not take it, and then the
comprehension after it is traced in the graph (measured on torch 2.13 with the flag off: no break),
as eager_entries has the rest after such a read: not reported. A read in an `if` arm of a mode (a
flag the class keeps off) skips the frame only in that mode: the comprehension's finding names the
mode, as the findings in the arm do (with the flag off Dynamo breaks at neither; a class that
turns it on breaks at both, and its flag is no mode). A read in a plain `if` arm that runs breaks in every mode, and names none."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sample_modules import dynamo_breaks

from graphmend_bot.config import Config
from graphmend_bot.engine import check

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 inlines comprehensions (PEP 709)")

SOURCE = """import torch


class Model(torch.nn.Module):
    def __init__(self, verbose=False):
        super().__init__()
        self.verbose = {verbose}
        self.path = None

    @property
    def scale(self):
        torch._dynamo.graph_break()
        return 2

    def forward(self, x):
        idx = [0, 1]
        s = 2
        {read}
        ys = [x[i] for i in idx]
        return ys[0] * s
"""
FLAG = " (when `self.verbose` is true)"
CASES = {
    # the read, the flag's value, whether Dynamo breaks at the comprehension, the mode the finding names
    "read_on_every_call": ("s = self.scale", False, True, ""),
    "ternary_arm_not_taken": ("s = self.scale if self.verbose else 2", False, False, None),
    "operand_after_and_not_evaluated": ("s = self.verbose and self.scale", False, False, None),
    "flag_arm_off": ("if self.verbose:\n            s = self.scale", False, False, FLAG),
    "flag_arm_on": ("if self.verbose:\n            s = self.scale", True, True, ""),  # on by default: no mode
    "plain_arm_taken": ("if self.path is None:\n            s = self.scale", False, True, ""),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_comprehension_after_a_read_in_an_arm(case: str, tmp_path: Path) -> None:
    read, verbose, breaks, mode = CASES[case]
    source = SOURCE.format(read=read, verbose=verbose)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if "ys = [" in line)
    assert ((row, "GB4347") in dynamo_breaks(source, tmp_path)) == breaks
    path = tmp_path / "sample.py"
    path.write_text(source)
    found = [f.message for f in check([str(path)], Config(), jobs=1).findings if f.code == "GM611" and f.location.row == row]
    if mode is None:
        assert found == []
    else:
        assert len(found) == 1
        assert found[0].endswith(mode) if mode else not found[0].endswith(")")
