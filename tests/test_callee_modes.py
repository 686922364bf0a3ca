"""A call on a local object whose callee breaks in a mode only names that mode (callee_modes.py).

torchio's `Transform.__call__` calls `data_parser.get_subject()` on a `DataParser` it builds, and
what that reaches breaks only at `if self.check_nans and torch.isnan(tensor).any():`, a flag off
by default. Measured here on the installed torch: with the flag off Dynamo inlines the call whole
and breaks nowhere; with it on it breaks inside and at the call (GM605's "cannot resume"). A break
the callee reaches in every mode (the near miss) breaks at the call with the flag off too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from graphmend_bot.analysis.modes import modes_named
from graphmend_bot.config import Config
from graphmend_bot.engine import check

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_modules import dynamo_breaks

SOURCE = """\
import torch
from torch import nn


class Reader:
    def __init__(self, tensor, check_nans={default}):
        self.tensor = tensor
        self.check_nans = check_nans

    def parse(self):
        if self.check_nans and torch.isnan(self.tensor).any():
            return self.tensor.nan_to_num()
        {every_mode}
        return self.tensor


class Model(nn.Module):
    def forward(self, x):
        reader = Reader(x)
        y = reader.parse()
        return y + 1
"""
FLAG, EVERY_MODE, CALL = 11, 13, 21  # the flag's test, the near miss's break, the call
# two lines, as `pass` twice: the rows stay those above
NEAR_MISS = "if self.tensor.sum() > 0:\n            return self.tensor - 1"
NEITHER = "pass\n        pass"


def sample(default: bool = False, every_mode: bool = False) -> str:
    return SOURCE.format(default=default, every_mode=NEAR_MISS if every_mode else NEITHER)


def modes_by_row(source: str, tmp_path: Path) -> dict[tuple[int, str], list[str]]:
    path = tmp_path / "sample.py"
    path.write_text(source)
    result = check([str(path)], Config(), jobs=1)
    assert not result.errors, result.errors
    return {(f.location.row, f.code): modes_named(f.message) for f in result.findings}


def test_dynamo_breaks_at_the_call_only_with_the_flag_on(tmp_path: Path) -> None:
    assert dynamo_breaks(sample(), tmp_path) == set()
    assert dynamo_breaks(sample(default=True), tmp_path) == {(FLAG, "GB0170"), (CALL, "GB0092")}


def test_the_call_names_the_mode_its_callee_breaks_in(tmp_path: Path) -> None:
    flag = ["when `self.check_nans` is true"]
    assert modes_by_row(sample(), tmp_path) == {(FLAG, "GM101"): flag, (CALL, "GM605"): flag}
    # on by default: no mode, and Dynamo breaks at both with the defaults (above)
    assert modes_by_row(sample(default=True), tmp_path) == {(FLAG, "GM101"): [], (CALL, "GM605"): []}


def test_a_callee_breaking_in_every_mode_names_none_and_breaks_at_the_call(tmp_path: Path) -> None:
    source = sample(every_mode=True)
    assert dynamo_breaks(source, tmp_path) == {(EVERY_MODE, "GB0170"), (CALL, "GB0092")}
    assert modes_by_row(source, tmp_path) == {
        (FLAG, "GM101"): ["when `self.check_nans` is true"], (EVERY_MODE, "GM101"): [], (CALL, "GM605"): []}


READER = '''\
import torch


class Reader:
    def __init__(self, tensor, check_nans=False):
        self.tensor = tensor
        self.check_nans = check_nans

    def parse(self):
        if self.check_nans and torch.isnan(self.tensor).any():
            return self.tensor.nan_to_num()
        return self.tensor
'''
MODEL = '''\
from torch import nn

from .reader import Reader


class Model(nn.Module):
    def forward(self, x):
        reader = Reader(x)
        y = reader.parse()
        return y + 1
'''
PRINT = "        return self.tensor\n", "        print('parsed')\n        return self.tensor\n"


@pytest.mark.parametrize("printed_first", [False, True], ids=["a print added", "a print removed"])
def test_a_warm_check_after_an_edit_inside_the_callee_names_the_modes_a_cold_one_does(
    tmp_path: Path, printed_first: bool
) -> None:
    """The edit is in another file than the call's finding, and leaves which functions break as it
    was: the finding at the call still gains or loses its mode. (Here the solve read the callee's
    file, so the warm check solves again; redraft.py keeps the modes when it does not.)"""
    from graphmend_bot.analysis.summary_cache import SummaryCache
    from graphmend_bot.engine import Workspace

    package = tmp_path / "project" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(MODEL)
    reader = package / "reader.py"
    printed = READER.replace(*PRINT)
    reader.write_text(printed if printed_first else READER)
    cache = SummaryCache(tmp_path / "cache")

    def warm() -> list[tuple[str, int, str]]:
        result = Workspace([str(package.parent)], Config(), jobs=1, cache=cache, whole_result=True).cached_check()
        return sorted((f.code, f.location.row, f.message) for f in result.findings)

    before = warm()
    reader.write_text(READER if printed_first else printed)
    after = warm()
    cold = sorted((f.code, f.location.row, f.message) for f in check([str(package.parent)], Config(), jobs=1).findings)
    assert after == cold
    gm605 = [modes_named(message) for code, _, message in after if code == "GM605"]
    assert gm605 == ([["when `self.check_nans` is true"]] if printed_first else [[]]), (before, after)


HELD = """\
import torch
from torch import nn


class Stepper:
    def __init__(self):
        self.step = self.step_plain

    def step_plain(self, t):
        return t + 1


class Checker:
    def __init__(self, check_nans={default}):
        self.check_nans = check_nans

    def check(self, t):
        if self.check_nans and torch.isnan(t).any():
            return t.nan_to_num()
        return t


CHECKER = Checker()


def checked(t):
    return CHECKER.check(t)


class Model(nn.Module):
    def forward(self, x):
        stepper = Stepper()
        y = checked(x)
        return stepper.step(y)
"""
HELD_FLAG, HELD_CALL = 18, 33


def test_a_call_made_while_a_held_object_is_alive_names_the_mode_too(tmp_path: Path) -> None:
    """GM605's other spelling (held_objects.py): a breaking call while an object holding its own
    bound methods is alive. With the flag off Dynamo traces it whole; on, it breaks at the call."""
    assert dynamo_breaks(HELD.format(default=False), tmp_path) == set()
    assert dynamo_breaks(HELD.format(default=True), tmp_path) == {(HELD_FLAG, "GB0170"), (HELD_CALL, "GB0092")}
    flag = ["when `self.check_nans` is true"]
    assert modes_by_row(HELD.format(default=False), tmp_path) == {(HELD_FLAG, "GM101"): flag, (HELD_CALL, "GM605"): flag}
    assert modes_by_row(HELD.format(default=True), tmp_path) == {(HELD_FLAG, "GM101"): [], (HELD_CALL, "GM605"): []}
