"""`@torch._disable_dynamo` (GM620; skipF, issue 27): torch's own decorator puts its wrapper on
Dynamo's skip list, so a call from traced code breaks as a skipped function: GB0007 for a plain
function or a staticmethod, GB0008 for a method through `self` (with `recursive=False` too), and
nothing inside it is traced. Each sample is measured with Dynamo (torch 2.13) and graphmend must
agree line for line; near misses (`@torch.jit.ignore`, which Dynamo traces through, and a decorated
function called from eager code only) break nowhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

PLAIN = """\
import torch
from torch import nn


@torch._disable_dynamo
def helper(x):
    print("eager")  # never traced: not reported
    return x + 1


class Model(nn.Module):
    def forward(self, x):
        y = x * 2
        y = helper(y)
        return y + 1
"""

FRAME_ONLY = PLAIN.replace("@torch._disable_dynamo", "@torch._disable_dynamo(recursive=False)")

IMPORTED = PLAIN.replace("import torch\n", "import torch\nfrom torch import _disable_dynamo\n", 1).replace(
    "@torch._disable_dynamo", "@_disable_dynamo"
)

METHOD = """\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        y = x * 2
        y = self.helper(y)
        return y + 1

    @torch._disable_dynamo
    def helper(self, x):
        return x + 1
"""

STATIC = """\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        y = x * 2
        y = self.helper(y)
        return y + 1

    @staticmethod
    @torch._disable_dynamo
    def helper(x):
        return x + 1
"""


@pytest.mark.parametrize(
    ("source", "gb_id"),
    [(PLAIN, "GB0007"), (FRAME_ONLY, "GB0007"), (IMPORTED, "GB0007"), (METHOD, "GB0008"), (STATIC, "GB0007")],
    ids=["plain", "recursive-false", "imported", "method", "staticmethod"],
)
def test_a_call_of_a_skipped_function_breaks_where_graphmend_reports_it(source: str, gb_id: str, tmp_path: Path) -> None:
    row = line_of(source, "y = helper(y)" if "y = helper(y)" in source else "y = self.helper(y)")
    assert dynamo_breaks(source, tmp_path) == {(row, gb_id)}
    assert graphmend_findings(source, tmp_path) == {(row, "GM620", gb_id)}


def test_jit_ignore_is_traced_through(tmp_path: Path) -> None:
    source = PLAIN.replace("@torch._disable_dynamo", "@torch.jit.ignore").replace('    print("eager")  # never traced: not reported\n', "")
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_a_skipped_function_called_from_eager_code_only_is_not_reported(tmp_path: Path) -> None:
    source = PLAIN.replace("        y = helper(y)\n", "") + "\n\ndef eager(x):\n    return helper(x)\n"
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
