"""`%` formatting of a tensor in traced code (GM622; skipF, issue 27): each spelling measured with
Dynamo (torch 2.13), whose id depends on it, and graphmend must agree line for line. Near misses:
what is known while tracing (a shape, a size, a dtype, a number) formats without a break, and a
message built for a `raise` that does not run is never traced."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

HEADER = """\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
"""
FOOTER = "        return y + 1\n"

BREAKING = [
    ('text = "%s" % y', "GB0208"),  # alone: a torch op that gives no tensor
    ('text = "a %s b %s" % (1, y)', "GB0059"),  # in a tuple: `str` of the tensor
    ('text = "%r" % (y,)', "GB0569"),  # `repr` of the tensor
    ('text = "%.2f" % y.sum()', "GB0033"),  # as a number: its value read back
    ('text = "%d of %d" % (y.sum(), 3)', "GB0088"),  # a number conversion in a tuple: Dynamo raises
    ('text = "%s and %d" % (y, 3)', "GB0088"),
    ('text = "%(v)s" % {"v": y}', "GB0088"),  # by name: Dynamo raises inside
]
TRACED = [
    'text = "%s" % (y.shape,)',
    'text = "%d" % y.size(0)',
    'text = "%s" % y.dtype',
    'text = "%d items" % 3',
    'text = "%s" % [d for d in y.shape]',
    'text = y % 2',  # a tensor on the left is arithmetic
    'if y.shape[0] > 8:\n            raise ValueError("bad %s" % y)',
]


@pytest.mark.parametrize(("statement", "gb_id"), BREAKING)
def test_formatting_a_tensor_breaks_where_graphmend_reports_it(statement: str, gb_id: str, tmp_path: Path) -> None:
    source = HEADER + f"        {statement}\n" + FOOTER
    row = line_of(source, statement)
    assert dynamo_breaks(source, tmp_path) == {(row, gb_id)}
    assert graphmend_findings(source, tmp_path) == {(row, "GM622", gb_id)}


@pytest.mark.parametrize("statement", TRACED)
def test_formatting_what_is_known_while_tracing_is_not_reported(statement: str, tmp_path: Path) -> None:
    source = HEADER + f"        {statement}\n" + FOOTER
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_a_parameter_only_assumed_to_be_a_tensor_is_left_out(tmp_path: Path) -> None:
    """As for `str(mode)`: an entry point's unannotated parameter is a Python value in practice."""
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
        "    def forward(self, x, mode='a'):\n"
        '        text = "%s: %s" % (mode, "b")\n'
        "        return x + len(text)\n"
    )
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_a_number_from_an_entry_points_unannotated_parameter_is_left_out(tmp_path: Path) -> None:
    """`"%d" % (step + 1)` in a `forward` whose `step` is not annotated: a Python number in practice."""
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
        "    def forward(self, x, step=0):\n"
        '        text = "step %d" % (step + 1)\n'
        "        return x + len(text)\n"
    )
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_a_tensor_handed_to_a_helper_is_formatted_there(tmp_path: Path) -> None:
    """The helper's parameter is a tensor by its traced caller: reported in the helper."""
    source = (
        "import torch\nfrom torch import nn\n\n\ndef label(t):\n"
        '    return "%s" % (t * 2)\n\n\n'
        "class Model(nn.Module):\n"
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
        "        y = x * 2\n"
        "        return y + len(label(y))\n"
    )
    row = line_of(source, 'return "%s"')
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} == {row}
    assert {(line, code) for line, code, _ in graphmend_findings(source, tmp_path)} == {(row, "GM622")}


def test_what_self_holds_is_no_assumed_parameter_at_an_entry_point(tmp_path: Path) -> None:
    """review30: an unannotated `forward`'s leniency is for its Python parameters (`step`); a buffer
    `self` holds is a tensor (quiet on lead), a number it holds formats while tracing."""
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        '        self.register_buffer("b", torch.ones(3))\n        self.scale = 0.5\n\n'
        "    def forward(self, x, step=0):\n"
        '        text = "%s" % self.b\n'
        '        text = text + "%.2f at %d" % (self.scale, step + 1)\n'
        "        return x + len(text)\n"
    )
    row = line_of(source, '"%s" % self.b')
    assert dynamo_breaks(source, tmp_path) == {(row, "GB0208")}
    assert graphmend_findings(source, tmp_path) == {(row, "GM622", "GB0208")}
