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
