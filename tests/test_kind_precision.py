"""Values graphmend must not take for tensor data, and their near misses (kind precision).

Ground truth is Dynamo (torch 2.13): each sample is compiled as `Model()(torch.ones(3))` and the lines
graphmend reports must be the lines Dynamo breaks at (sample_modules.agreed_break_lines).

- A tensor's metadata and the predicates Dynamo specializes on (`y.requires_grad`, `y.is_contiguous()`,
  `y.device == x.device`, `math.prod(y.shape)`, ...) are Python values at trace time: an `if` on them
  traces, so none is a data-dependent branch; the tensor's values in the same `if` break (GB0170).
- Python numbers reaching traced code through a helper's parameter, an `__init__` default, dicts
  holding numbers beside tensors (`[{"j": 1, "w": w}, ...]`: analysis/number_keys.py), or a tuple a helper returns are traced as constants; a tensor in the same
  position breaks and stays reported.
- NumPy values made or held in traced code are not Python numbers: Dynamo traces them as tensors
  (torch._numpy), so a branch on `arr.sum()` and `.item()` of one break (GB0170, GB0033). A precision
  fix must not make NumPy results non-tensors.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from sample_modules import agreed_break_lines, line_of

_HEADER = """
import math

import numpy as np
import torch


"""

_BRANCH = """
class Model(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        if {condition}:
            return y
        return -y
"""

# Predicates Dynamo decides from a tensor's metadata or the global state: each `if` traces.
SPECIALIZED = [
    "y.requires_grad",
    "y.is_floating_point()",
    "torch.is_complex(y)",
    "y.device.type == 'cpu'",
    "y.dtype in (torch.float16, torch.bfloat16)",
    "y.shape == x.shape",
    "y.ndim == 1",
    "y.stride(0) == 1",
    "y.is_contiguous()",
    "y.nelement() > 0",
    "y.element_size() > 2",
    "tuple(y.shape) == (3,)",
    "torch.numel(y) > 0",
    "y.is_leaf",
    "y.grad is None",
    "y.layout == torch.strided",
    "any(s == 0 for s in y.shape)",
    "math.prod(y.shape) > 2",
    "y is x",
    "y.dtype.is_floating_point",
    "torch.finfo(y.dtype).eps > 0",
    "y.device == x.device",
    "max(y.shape) > 2",
    "hasattr(y, 'grad')",
]

# The tensor's values in the same position: each breaks, and is reported.
DATA = ["y.sum() > 0", "y.max() > 2", "(y > 0).any()", "bool(y.mean() > 0)"]


def _source(body: str) -> str:
    return _HEADER + textwrap.dedent(body)


@pytest.mark.parametrize("condition", SPECIALIZED)
def test_a_branch_dynamo_specializes_is_not_reported(condition: str, tmp_path: Path) -> None:
    assert agreed_break_lines(_source(_BRANCH.format(condition=condition)), tmp_path) == set()


@pytest.mark.parametrize("condition", DATA)
def test_a_branch_on_the_values_is_reported(condition: str, tmp_path: Path) -> None:
    source = _source(_BRANCH.format(condition=condition))
    assert agreed_break_lines(source, tmp_path) == {line_of(source, f"if {condition}:")}


HELPER_NUMBER = """
def scale(t, factor):
    if factor > 1:
        return t * factor
    return t


class Model(torch.nn.Module):
    def forward(self, x):
        return scale(x, {argument})
"""

INIT_DEFAULTS = """
class Model(torch.nn.Module):
    def __init__(self, eps=1e-5, gamma=None):
        super().__init__()
        self.eps = eps
        self.gamma = {gamma}

    def forward(self, x):
        if self.gamma is not None and self.gamma > 0:
            x = x * self.gamma
        return x + self.eps
"""

LISTED_SPECS = """
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.specs = [{{"j": 1, "w": torch.ones(3)}}, {{"j": {second}, "w": torch.ones(3)}}]

    def forward(self, x):
        out = x
        for spec in self.specs:
            if spec["j"] > 1:
                out = out * spec["w"]
        return out
"""

TUPLE_HELPER = """
def dims(t):
    return {first}, t


class Model(torch.nn.Module):
    def forward(self, x):
        n, t = dims(x)
        if n > 1:
            return t
        return -t
"""

# (template, the Python value's spelling, a tensor in its place, the line the tensor breaks at)
FLOWS = [
    (HELPER_NUMBER, {"argument": "x.shape[0]"}, {"argument": "x.sum()"}, "if factor > 1:"),
    (INIT_DEFAULTS, {"gamma": "gamma"}, {"gamma": "torch.ones(())"}, "if self.gamma is not None"),
    (LISTED_SPECS, {"second": "2"}, {"second": "torch.tensor(2.0)"}, 'if spec["j"] > 1:'),
    (TUPLE_HELPER, {"first": "t.shape[0]"}, {"first": "t.sum()"}, "if n > 1:"),
]


@pytest.mark.parametrize("template, number, tensor, line", FLOWS, ids=["helper", "init", "listed", "tuple"])
def test_a_python_number_reaching_traced_code_is_not_reported(
    template: str, number: dict[str, str], tensor: dict[str, str], line: str, tmp_path: Path
) -> None:
    quiet, breaking = tmp_path / "number", tmp_path / "tensor"
    quiet.mkdir()
    breaking.mkdir()
    assert agreed_break_lines(_source(template.format(**number)), quiet) == set()
    source = _source(template.format(**tensor))
    assert agreed_break_lines(source, breaking) == {line_of(source, line)}


NUMPY = [
    # a branch on an array's reduction: torch._numpy traces it as a tensor
    """
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = np.ones(3)

        def forward(self, x):
            if self.w.sum() > 1:  # breaks
                return x
            return -x
    """,
    """
    class Model(torch.nn.Module):
        def forward(self, x):
            s = np.ones(3).sum().item()  # breaks
            return x * s
    """,
]


@pytest.mark.parametrize("body", NUMPY, ids=["branch", "item"])
def test_numpy_values_in_traced_code_break_as_tensors(body: str, tmp_path: Path) -> None:
    source = _source(body)
    assert agreed_break_lines(source, tmp_path) == {line_of(source, "# breaks")}
