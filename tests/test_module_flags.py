"""A module's own switch kept off (`DEBUG = False` at module level, bound nowhere else in the module)
names a mode: Dynamo reads the global as a constant, so with it off the tensor operand after
`DEBUG and` and the body of `if DEBUG:` are never traced, and the findings there say
`(when `DEBUG` is true)` (analysis/off_flags.module_flags). Measured on torch 2.13 with
`Model()(torch.ones(3))`: no break with the switch off; with it on, or with a function's own local
of that name, the same lines break and the findings name no mode."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_modules import dynamo_breaks  # noqa: E402

from graphmend_bot.analysis.modes import modes_named  # noqa: E402
from graphmend_bot.config import Config  # noqa: E402
from graphmend_bot.engine import check  # noqa: E402

SWITCHED = '''import torch
from torch import nn

DEBUG = {value}
CHECKS: bool = False


class Model(nn.Module):
    def forward(self, x):
        if DEBUG and torch.isnan(x).any():
            x = x + 1
        if DEBUG:
            if x.sum() > 0:
                x = x + 2
        if not CHECKS:
            return x
        if x.max() > 1:
            x = x + 3
        return x
'''

# `DEBUG` bound in the function is its local (True here): read by Dynamo, not the switch.
SHADOWED = '''import torch
from torch import nn

DEBUG = False


class Model(nn.Module):
    def forward(self, x):
        DEBUG = x.shape[0] > 1
        if DEBUG and torch.isnan(x).any():
            x = x + 1
        return x
'''


def _modes(source: str, tmp_path: Path) -> dict[int, list[str]]:
    path = tmp_path / "sample.py"
    path.write_text(source)
    return {f.location.row: modes_named(f.message) for f in check([str(path)], Config(), jobs=1).findings}


def test_findings_behind_a_module_switch_kept_off_name_it(tmp_path: Path) -> None:
    source = SWITCHED.format(value="False")
    assert dynamo_breaks(source, tmp_path) == set()
    assert _modes(source, tmp_path) == {
        10: ["when `DEBUG` is true"], 13: ["when `DEBUG` is true"], 17: ["when `CHECKS` is true"],
    }


def test_a_switch_turned_on_or_a_local_of_its_name_names_no_mode(tmp_path: Path) -> None:
    source = SWITCHED.format(value="True")
    assert {row for row, _ in dynamo_breaks(source, tmp_path)} == {10, 13}
    assert _modes(source, tmp_path) == {10: [], 13: [], 17: ["when `CHECKS` is true"]}
    assert {row for row, _ in dynamo_breaks(SHADOWED, tmp_path)} == {10}
    assert _modes(SHADOWED, tmp_path) == {10: []}


# The switch turned on at import in spellings that bind it without a plain `DEBUG = ...` statement
# (review24): Dynamo reads True and breaks at the `if`, so the findings name no mode.
TURNED_ON = {
    "globals": 'globals()["DEBUG"] = True',
    "setattr": 'setattr(sys.modules[__name__], "DEBUG", True)',
    "walrus": "_ = (DEBUG := True)",
    "match": "match 1:\n    case 1:\n        DEBUG = True",
    "enable": "def enable():\n    globals()['DEBUG'] = True\n\n\nenable()",
    "try-import": "try:\n    from sys import flags as DEBUG\nexcept ImportError:\n    pass",
}

TURNED_ON_SOURCE = '''import sys

import torch
from torch import nn

DEBUG = False
{turn_on}


class Model(nn.Module):
    def forward(self, x):
        if DEBUG and torch.isnan(x).any():
            x = x + 1
        return x
'''


@pytest.mark.parametrize("spelling", sorted(TURNED_ON))
def test_a_switch_turned_on_without_a_plain_store_names_no_mode(spelling: str, tmp_path: Path) -> None:
    source = TURNED_ON_SOURCE.format(turn_on=TURNED_ON[spelling])
    row = source.splitlines().index("        if DEBUG and torch.isnan(x).any():") + 1
    assert {r for r, _ in dynamo_breaks(source, tmp_path)} == {row}
    assert _modes(source, tmp_path) == {row: []}


# A function's own parameter defaulting to False is one too (torchdyn's `odeint(..., verbose=False)`):
# Dynamo specialises on the bool it is called with; one the function binds again is its local.
PARAMETER_FLAG = '''import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x, verbose=False, strict=False):
        if verbose and torch.isnan(x).any():
            x = x + 1
        strict = strict or x.shape[0] > 1
        if strict and x.sum() > 0:
            x = x + 2
        return x
'''


def test_a_parameter_defaulting_to_false_names_the_mode_and_one_rebound_does_not(tmp_path: Path) -> None:
    assert dynamo_breaks(PARAMETER_FLAG, tmp_path) == {(10, "GB0170")}
    assert dynamo_breaks(PARAMETER_FLAG, tmp_path, (torch.ones(3), True)) == {(7, "GB0170"), (10, "GB0170")}
    assert _modes(PARAMETER_FLAG, tmp_path) == {7: ["when `verbose` is true"], 10: []}
