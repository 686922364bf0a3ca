"""Values graphmend knows are tensors through what built them (analysis/iterated_items.py,
vocabulary/known_names.PASSED_THROUGH): an optimizer's parameters iterated from its param groups,
and einops' results. Each sample is measured with Dynamo on torch 2.13 against what
`graphmend check` reports; the near misses (a dict that is no param group, a `rearrange` of
another library returning a number) hold no tensor, do not break and are not reported."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest
import torch
from sample_modules import dynamo_breaks, graphmend_findings, line_of

from graphmend_bot.census.dynamo import Tree, explain_breaks

OPTIMIZER = """
import torch
from torch.optim import Optimizer


class Clipped(Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params, {{"lr": lr}})
        self.limits = [{{"params": [0.5, 2.0]}}]

    @torch.no_grad()
    def step(self, closure=None):
{body}
"""

# Each body breaks once, at the line marked `# breaks` (a tensor compared in an `if`: GB0170).
BREAKING = {
    "nested loops": """
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is not None and g > 1.0:  # breaks
                    p.add_(g, alpha=-group["lr"])
""",
    "enumerate, single quotes": """
        for i, group in enumerate(self.param_groups):
            for p in group['params']:
                if p > 0.5:  # breaks
                    p.mul_(0.5)
""",
    "comprehension": """
        params = [p for group in self.param_groups for p in group["params"]]
        for p in params:
            if p > 0.5:  # breaks
                p.mul_(0.5)
""",
    "zip": """
        for group in self.param_groups:
            for p, lr in zip(group["params"], [group["lr"]]):
                if p > 0.5:  # breaks
                    p.mul_(lr)
""",
    "first group by index": """
        for p in self.param_groups[0]["params"]:
            if p > 0.5:  # breaks
                p.mul_(0.5)
""",
}

# A list of dicts with a "params" entry that is no optimizer's: its items are Python floats.
NEAR_MISS = """
        for limit in self.limits:
            for bound in limit["params"]:
                if bound > 1.0:
                    self.param_groups[0]["lr"] = bound
"""


def _optimizer_breaks(source: str, tmp_path, monkeypatch) -> set[tuple[int, str]]:
    """(line, graph-break id) of every break of `Clipped([w]).step()` in the sample."""
    (tmp_path / "optsample.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("optsample", None)
    module = importlib.import_module("optsample")
    weight = torch.nn.Parameter(torch.ones(1))
    weight.grad = torch.full((1,), 2.0)
    explained = explain_breaks(module.Clipped([weight]).step, (), {}, Tree([str(tmp_path)]))
    sys.modules.pop("optsample", None)
    return {(b.location[1], b.gb_id) for b in explained.breaks if b.location is not None}


@pytest.mark.parametrize("spelling", sorted(BREAKING))
def test_a_param_groups_params_are_tensors(spelling, tmp_path, monkeypatch):
    source = OPTIMIZER.format(body=textwrap.indent(textwrap.dedent(BREAKING[spelling]), " " * 8))
    line = line_of(source, "# breaks")
    assert _optimizer_breaks(source, tmp_path, monkeypatch) == {(line, "GB0170")}
    assert graphmend_findings(source, tmp_path) == {(line, "GM101", "GB0170")}


def test_params_of_a_dict_that_is_no_param_group_are_not(tmp_path, monkeypatch):
    source = OPTIMIZER.format(body=textwrap.indent(textwrap.dedent(NEAR_MISS), " " * 8))
    assert _optimizer_breaks(source, tmp_path, monkeypatch) == set()
    assert graphmend_findings(source, tmp_path) == set()


# A stand-in for einops with its contract (an array of the type given: a tensor in, a tensor out),
# so the test imports no library of the corpus; `shapes.rearrange` is another library's function
# of the same name, returning a Python number.
EINOPS = """
def rearrange(tensor, pattern, **axes):
    return tensor.reshape(-1)


def reduce(tensor, pattern, reduction, **axes):
    return tensor.amax() if reduction == "max" else tensor.sum()


def repeat(tensor, pattern, **axes):
    return tensor.unsqueeze(-1).expand(-1, axes.get("k", 1))
"""
SHAPES = """
def rearrange(values, pattern):
    return len(pattern)
"""

EINOPS_SAMPLE = """
import torch
import einops
from einops import rearrange, repeat
from shapes import rearrange as count


class Model(torch.nn.Module):
    def forward(self, x):
        y = rearrange(x, "a -> a")
        if y[0] > 0:  # breaks
            x = x + 1
        z = einops.reduce(x, "n -> ()", "max")
        if z > 2:  # breaks
            x = x * 2
        w = repeat(x, "n -> n k", k=2)
        if w[0, 0] > 5:  # breaks
            x = x - 1
        n = count(x, "a b")
        if n > 2:
            x = x / 2
        return x
"""


def test_einops_results_are_tensors(tmp_path, monkeypatch):
    (tmp_path / "einops.py").write_text(EINOPS)
    (tmp_path / "shapes.py").write_text(SHAPES)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("einops", "shapes"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    lines = {i for i, text in enumerate(EINOPS_SAMPLE.splitlines(), 1) if "# breaks" in text}
    assert dynamo_breaks(EINOPS_SAMPLE, tmp_path) == {(line, "GB0170") for line in lines}
    assert graphmend_findings(EINOPS_SAMPLE, tmp_path) == {(line, "GM101", "GB0170") for line in lines}


# `nn.Sequential(*layers)` of a list __init__ builds: a tensor when every layer is a torch.nn layer
# returning one (whichever is last); a layer of the module's own (`Count` returns a Python int)
# leaves it unknown, as does a list any other use of could change (item assignment, a helper).
SEQUENTIAL = """
import torch
from torch import nn


class Count(nn.Module):
    def forward(self, x):
        return x.shape[0]


class Pair(nn.Module):
    def forward(self, x):
        return [x, x]


def add_head(layers):
    layers.append(Pair())


class Model(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        replaced = [nn.Linear(3, 3), nn.Tanh()]
        replaced[-1] = Pair()  # a layer put in by item assignment (review27)
        self.replaced = nn.Sequential(*replaced)
        handed = [nn.Linear(3, 3)]
        add_head(handed)  # or by a helper it is handed to
        self.handed = nn.Sequential(*handed)
        layers = [nn.Linear(3, 4)]
        for _ in range(depth):
            layers.append(nn.Tanh())
            layers += [nn.Linear(4, 4)]
        layers.extend([nn.Linear(4, 1)])
        self.net = nn.Sequential(*layers)
        self.grown = nn.Sequential(*[nn.Linear(3, 3) for _ in range(depth)])
        tail = [nn.Linear(3, 3), Count()]
        self.counted = nn.Sequential(*tail)

    def forward(self, x):
        y = self.net(x)
        if y > 0:  # breaks
            x = x + 1
        z = self.grown(x)
        if z[0] > 0:  # breaks
            x = x + 1
        n = self.counted(x)
        if n > 1:
            x = x * 2
        if self.replaced(x):  # a list: its truth is its length
            x = x * 2
        if self.handed(x):
            x = x * 2
        return x
"""


def test_a_sequential_of_listed_torch_layers_returns_a_tensor(tmp_path):
    lines = {i for i, text in enumerate(SEQUENTIAL.splitlines(), 1) if "# breaks" in text}
    assert dynamo_breaks(SEQUENTIAL, tmp_path) == {(line, "GB0170") for line in lines}
    assert graphmend_findings(SEQUENTIAL, tmp_path) == {(line, "GM101", "GB0170") for line in lines}


# A helper handed the group, the parameter named as torch's own optimizers name it
# (`_init_group(self, group)`; a method of that name Dynamo runs as the optimizer's own, untraced):
# its "params" are the tensors whatever the analysis knows of the caller, and inputs (`p.data = `
# traces). The near miss: a parameter of another name holding a dict with a "params" entry of
# Python floats.
HANDED = """
import torch
from torch.optim import Optimizer


class Clipped(Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params, {"lr": lr})
        self.limits = [{"params": [0.5, 2.0]}]

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            self._step_group(group)
        for limit in self.limits:
            self._bounded(limit)

    def _step_group(self, group):
        for p in group["params"]:
            p.data = p.data.contiguous()  # an input's data: traces (GM630 is for tensors made here)
            if p > 0.5:  # breaks
                p.mul_(0.5)

    def _bounded(self, limit):
        for bound in limit["params"]:
            if bound > 1.0:
                self.param_groups[0]["lr"] = bound
"""


def test_a_group_handed_to_a_helper_holds_tensors(tmp_path, monkeypatch):
    line = line_of(HANDED, "# breaks")
    assert _optimizer_breaks(HANDED, tmp_path, monkeypatch) == {(line, "GB0170")}
    assert graphmend_findings(HANDED, tmp_path) == {(line, "GM101", "GB0170")}
