"""GM655: `self.NAME.step()` on a torch optimizer held by the object breaks (torch's optimizers call
`torch._dynamo.graph_break()` around the update), measured with Dynamo on torch 2.13 against what
`graphmend check` reports; the near miss (an optimizer class of the module whose step is
`@torch.no_grad()`) traces and is not reported."""

from __future__ import annotations

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

HEADER = """
import torch
from torch import nn
from torch.optim import Optimizer
"""

BUILT = HEADER + """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))
        self.w.grad = torch.ones(3)
        self.opt = torch.optim.{cls}([self.w], lr=0.1)

    def forward(self, x):
        y = x * 2
        self.opt.step()
        return y + 1
"""

WRAPPED = HEADER + """
class Wrapper:
    def __init__(self, optimizer: Optimizer):
        self.original_optimizer = optimizer

    def step(self):
        return self.original_optimizer.step()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))
        self.w.grad = torch.ones(3)
        self.wrapper = Wrapper(torch.optim.SGD([self.w], lr=0.1))

    def forward(self, x):
        y = x * 2
        self.wrapper.step()
        return y + 1
"""

BREAK = "GB0025"


def line_of(source: str, text: str) -> int:
    return next(row for row, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_a_held_torch_optimizers_step_breaks_and_is_found(tmp_path, cls):
    source = BUILT.replace("{cls}", cls)
    row = line_of(source, "self.opt.step()")
    assert (row, BREAK) in dynamo_breaks(source, tmp_path)
    assert (row, "GM655", BREAK) in graphmend_findings(source, tmp_path)


def test_a_wrapped_optimizer_annotated_optimizer_is_found(tmp_path):
    """opacus' DPOptimizer: `self.original_optimizer = optimizer` with `optimizer: Optimizer`."""
    row = line_of(WRAPPED, "return self.original_optimizer.step()")
    assert (row, BREAK) in dynamo_breaks(WRAPPED, tmp_path)
    assert (row, "GM655", BREAK) in graphmend_findings(WRAPPED, tmp_path)


NEAR_MISSES = HEADER + """
class Plain(Optimizer):
    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                p.add_(p.grad, alpha=-group["lr"])


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))
        self.w.grad = torch.ones(3)
        self.plain = Plain([self.w], {"lr": 0.1})

    def forward(self, x):
        y = x * 2
        self.plain.step()
        return y + 1
"""


def test_near_misses_trace_and_are_not_reported(tmp_path):
    """A module's own optimizer class with a `@torch.no_grad()` step traces: not GM655's."""
    assert dynamo_breaks(NEAR_MISSES, tmp_path) == set()
    assert not {code for _, code, _ in graphmend_findings(NEAR_MISSES, tmp_path) if code == "GM655"}
