"""`Cfg().to("cpu")`: a method called on an object built in place runs that class's own method,
as on `cfg = Cfg()` then `cfg.to("cpu")`, whatever a tensor method of that name does. Measured with
Dynamo on torch 2.13 against what `graphmend check` reports: a config class whose `to`/`half`
return `self` traces (testing the object in an `if` is a Python truth test), while a class whose `to`
returns a tensor computed from the input still breaks at the `if` (GB0170), and a tensor built in
place by torch (`torch.ones(3).to(...)`) stays a tensor. A torch.Tensor subclass of the tree built in place
(`Boxed(x.sum()).item()`) is a tensor still: the solver says what the call built
(tests/test_opaque_sources.py::test_item_on_a_tensor_subclass_of_the_tree_breaks)."""

from __future__ import annotations

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

CONFIG = """
import torch
from torch import nn


class Cfg:
    def __init__(self):
        self.device = "cpu"

    def to(self, device):
        self.device = device
        return self

    def half(self):
        return self


class Model(nn.Module):
    def forward(self, x):
        cfg = Cfg().{call}
        if cfg:
            x = x + 1
        return x
"""

RETURNS_TENSOR = """
import torch
from torch import nn


class Wrap:
    def to(self, x):
        return x.sum() > 0


class Model(nn.Module):
    def forward(self, x):
        if Wrap().to(x):
            x = x + 1
        if torch.ones(3, device=x.device).to(x.dtype).sum() > x.sum():
            x = x * 2
        return x
"""


@pytest.mark.parametrize("call", ['to("cpu")', "half()"])
def test_method_of_an_object_built_in_place_is_its_own(tmp_path, call):
    source = CONFIG.format(call=call)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_built_in_place_returning_a_tensor_still_breaks(tmp_path):
    breaks = dynamo_breaks(RETURNS_TENSOR, tmp_path)
    assert {line for line, _ in breaks} == {line_of(RETURNS_TENSOR, "if Wrap()"), line_of(RETURNS_TENSOR, "if torch.ones")}
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(RETURNS_TENSOR, tmp_path)} == breaks
