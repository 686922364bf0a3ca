"""A forward's `p=None` whose truth it tests bare (`if in_buffers:`, `if not cache:`, `y if flag
else z`) is no tensor by assumption: a tensor's truth raises unless it has one element, so the
author passes a list, a flag or None there (pytorch-tcn's `TCN.forward(x, ..., in_buffers=None)`
tests it and slices it per layer). A caller that passes a tensor still makes it one, and a
parameter rebound before its test is judged by what it holds. Each sample is measured with
Dynamo (`Model()(torch.ones(3))`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_modules import dynamo_breaks, graphmend_findings  # noqa: E402

UNBROKEN = '''import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x, in_buffers=None):
        if in_buffers:
            first, second = in_buffers
            x = x + first + second
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])

    def forward(self, x, embeddings=None, in_buffers=None, cache=None, flag=None):
        for index, block in enumerate(self.blocks):
            if in_buffers:
                layer_buffers = in_buffers[2 * index:]
            else:
                layer_buffers = None
            x = block(x, in_buffers=layer_buffers)
        if not cache:
            x = x * 2
        while flag and x.shape[0] > 5:
            x = x[1:]
        return x + 1 if embeddings else x
'''

BROKEN = '''import torch
from torch import nn


class Scale(nn.Module):
    def forward(self, x, scale=None):
        if scale:
            x = x * scale
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = Scale()

    def forward(self, x, mask=None):
        mask = x.sum() if mask is None else mask
        if mask:
            x = x + 1
        return self.scale(x, scale=x.sum())
'''


def _lines(source: str, text: str) -> int:
    return source.splitlines().index(text) + 1


def test_truth_tested_optional_parameters_of_a_forward_are_not_assumed_tensors(tmp_path: Path) -> None:
    assert dynamo_breaks(UNBROKEN, tmp_path) == set()
    assert graphmend_findings(UNBROKEN, tmp_path) == set()


def test_a_tensor_passed_or_bound_before_the_test_is_still_reported(tmp_path: Path) -> None:
    callee, rebound = _lines(BROKEN, "        if scale:"), _lines(BROKEN, "        if mask:")
    assert dynamo_breaks(BROKEN, tmp_path) == {(callee, "GB0170"), (rebound, "GB0170")}
    assert graphmend_findings(BROKEN, tmp_path) == {(callee, "GM101", "GB0170"), (rebound, "GM101", "GB0170")}


# Submodules named like tensor methods (`self.add`, `self.norm`): the call is the submodule's, so
# the tensor it is given reaches the truth-tested parameter (review 23: missed when `self.add(...)`
# was read as `Tensor.add` and recorded no call site).
NAMED_LIKE_TENSOR_METHODS = '''import torch
from torch import nn


class Gate(nn.Module):
    def forward(self, x, mask=None):
        if mask:
            return x + 1
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.add = Gate()
        self.norm = Gate()

    def forward(self, x):
        y = self.add(x, x.sum() > 0)
        return self.norm(y, mask=None)
'''


def test_a_tensor_passed_to_a_submodule_named_like_a_tensor_method_is_reported(tmp_path: Path) -> None:
    gate = _lines(NAMED_LIKE_TENSOR_METHODS, "        if mask:")
    assert dynamo_breaks(NAMED_LIKE_TENSOR_METHODS, tmp_path) == {(gate, "GB0170")}
    assert graphmend_findings(NAMED_LIKE_TENSOR_METHODS, tmp_path) == {(gate, "GM101", "GB0170")}


# `and`/`or` as a value tests its operands before the last for truth as an `if` does, and so does
# `not p`: `past = past or [None] * n` (tested, then rebound to what it held or the default),
# `s = scale or 1.0`, `use = cache and cache.get("k")` (measured: no break with the defaults;
# main reported GM103 on each).
BOOL_OPERATOR_VALUES = '''import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x, past=None, scale=None, cache=None, empty=None):
        past = past or [None] * 2
        s = scale or 1.0
        use = cache and cache.get("k")
        if use is not None:
            x = x + 1
        flag = not empty
        return x * s, past, flag
'''

# Near misses that break: a caller passes the parameter a tensor (`scale=x.sum()`), and a
# parameter rebound to a tensor by its own `or` (`mask = mask or x.sum()`) is judged by that.
BOOL_OPERATOR_TENSORS = '''import torch
from torch import nn


class Scale(nn.Module):
    def forward(self, x, scale=None):
        s = scale or 1.0
        return x * s


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = Scale()

    def forward(self, x, mask=None, past=None):
        past = past or [None] * 2
        mask = mask or x.sum()
        if mask:
            x = x + 1
        return self.scale(x, scale=x.sum())
'''


def test_and_or_not_values_test_an_optional_parameters_truth(tmp_path: Path) -> None:
    assert dynamo_breaks(BOOL_OPERATOR_VALUES, tmp_path) == set()
    assert graphmend_findings(BOOL_OPERATOR_VALUES, tmp_path) == set()


def test_a_tensor_reaching_an_and_or_value_is_still_reported(tmp_path: Path) -> None:
    passed, rebound = _lines(BOOL_OPERATOR_TENSORS, "        s = scale or 1.0"), _lines(BOOL_OPERATOR_TENSORS, "        if mask:")
    assert dynamo_breaks(BOOL_OPERATOR_TENSORS, tmp_path) == {(passed, "GB0170"), (rebound, "GB0170")}
    assert graphmend_findings(BOOL_OPERATOR_TENSORS, tmp_path) == {
        (passed, "GM103", "GB0170"), (rebound, "GM101", "GB0170")
    }
