"""A `torch.where` selection returns a new tensor where the branch handed on an arm itself.

When the function then updates a tensor in place, the original saw the update through both names
and the rewrite through one: such a selection is offered only as unsafe (rewrite/aliasing.py).
Each case applies the safe fixes and runs both versions eagerly, comparing outputs and gradients.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from fixture_support import assert_identical, module_output_and_gradient

from graphmend_bot.config import Config
from graphmend_bot.rewrite import fix_paths
from graphmend_bot.rewrite.aliasing import FUNCTIONAL_WRITE_FLAGS


def _module(body: str) -> str:
    body = body.strip("\n").replace("\n", "\n        ")
    return f"import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        {body}\n"


def _safely_fixed(tmp_path: Path, source: str) -> str:
    path = tmp_path / "selection.py"
    path.write_text(source, encoding="utf-8")
    changes = fix_paths([str(path)], Config())
    return changes[0].after if changes else source


UPDATED_AFTER = [
    "x = x.float()\nif x.sum() > 0:\n    y = x\nelse:\n    y = x * 2.0\ny.add_(1)\nreturn x",
    "x = x.float()\ny = x if x.sum() > 0 else x * 2.0\ny[0] = 0.0\nreturn x",
    "x = x.float()\nif x.sum() > 0:\n    y = x[0]\nelse:\n    y = x[1] * 2.0\ny.mul_(3)\nreturn x",
    "x = x.float()\ny = x if x.sum() > 0 else x * 2.0\nx += 1\nreturn y",
]


@pytest.mark.parametrize("body", UPDATED_AFTER)
def test_a_selection_of_a_tensor_updated_in_place_later_is_not_safe(tmp_path: Path, body: str) -> None:
    source = _module(body)
    fixed = _safely_fixed(tmp_path, source)
    for x in (torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[-1.0, -2.0], [-3.0, 4.0]])):
        before_out, before_grad = module_output_and_gradient(source, x)
        after_out, after_grad = module_output_and_gradient(fixed, x)
        assert_identical(before_out, after_out)
        assert_identical(before_grad, after_grad, "gradient")
    assert fixed == source


@pytest.mark.parametrize("body", [
    "x = x.float()\nx.add_(1)\ny = x if x.sum() > 0 else x * 2.0\nreturn y * 3",  # updated before, not after
    "x = x.float()\ny = x if x.sum() > 0 else x * 2.0\nreturn y + 1",  # never updated
    "x = x.float()\ny = x * 1.5 if x.sum() > 0 else x * 2.0\ny.add_(1)\nreturn y",  # both arms new tensors
])
def test_selections_no_update_can_tell_apart_stay_safe(tmp_path: Path, body: str) -> None:
    source = _module(body)
    fixed = _safely_fixed(tmp_path, source)
    assert "torch.where(" in fixed
    for x in (torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[-1.0, -2.0], [-3.0, 4.0]])):
        before_out, before_grad = module_output_and_gradient(source, x)
        after_out, after_grad = module_output_and_gradient(fixed, x)
        assert_identical(before_out, after_out)
        assert_identical(before_grad, after_grad, "gradient")


def test_a_growing_tuple_is_no_in_place_update(tmp_path: Path) -> None:
    body = "x = x.float()\nouts = ()\ny = x if x.sum() > 0 else x * 2.0\nouts += (y,)\nreturn outs[0] * 3"
    fixed = _safely_fixed(tmp_path, _module(body))
    assert "torch.where(" in fixed
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    before, after = module_output_and_gradient(_module(body), x), module_output_and_gradient(fixed, x)
    assert_identical(before[0], after[0])
    assert_identical(before[1], after[1], "gradient")


def _module_with(init: str, body: str, helpers: str = "") -> str:
    """A module whose `__init__` builds submodules and whose file defines `helpers` before it."""
    init = init.strip("\n").replace("\n", "\n        ")
    body = body.strip("\n").replace("\n", "\n        ")
    return (f"import torch\nfrom torch import nn\nimport torch.nn.functional as F\n\n{helpers}\n\n"
            f"class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        {init}\n\n"
            f"    def forward(self, x):\n        {body}\n")


def _same_results(source: str, fixed: str) -> None:
    for x in (torch.tensor([1.0, -0.5, 0.5]), torch.tensor([-1.0, -2.0, 0.5])):
        torch.manual_seed(0)  # the same nn.Linear weights in both
        before_out, before_grad = module_output_and_gradient(source, x)
        torch.manual_seed(0)
        after_out, after_grad = module_output_and_gradient(fixed, x)
        assert_identical(before_out, after_out)
        assert_identical(before_grad, after_grad, "gradient")


BUMP = "def bump(t):\n    t.add_(1)\n    return t\n"
SELECTED = "x = x.float()\ny = x if x.sum() > 0 else x * 2.0\n"


@pytest.mark.parametrize(("init", "body", "helpers"), [
    # review5 finding 1 (probe j2): the submodule writes into the selection, and through it into `x`
    ("self.act = nn.ReLU(inplace=True)", SELECTED + "z = self.act(y)\nreturn x + z", ""),
    ("self.act = nn.ReLU(True)", SELECTED + "z = self.act(y)\nreturn x + z", ""),
    ("self.act = nn.ReLU()", SELECTED + "bump(y)\nreturn x + y", BUMP),  # a user function updating its parameter
    ("self.act = nn.ReLU()", SELECTED + "z = bump(y[0:2])\nreturn x * 1", BUMP),  # through a view
    ("self.act = nn.ReLU()", SELECTED + "zs = [bump(t) for t in [y]]\nreturn x * 1", BUMP),
    ("self.act = nn.ReLU(inplace=True)", "x = x.float()\nz = self.act(x if x.sum() > 0 else x * 2.0)\nreturn x + z", ""),
    # review6 (probes p1, p3, p4): a torch function told to write into its argument, by keyword or
    # by position, on the selection itself or on its result later
    ("", "x = x.float()\nz = F.relu(x if x.sum() > 0 else x * 2.0, inplace=True)\nreturn x + z", ""),
    ("", "x = x.float()\nz = F.hardtanh(x if x.sum() > 0 else x * 2.0, -1.0, 1.0, True)\nreturn x + z", ""),
    ("", SELECTED + "z = F.relu(y, True)\nreturn x + z", ""),
    ("", SELECTED + "z = F.threshold(y, 0.0, 0.0, True)\nreturn x + z", ""),
    # in-place torch functions whose name starts with `_` or ends in an overload
    ("", SELECTED + "torch._foreach_add_([y], 1.0)\nreturn x + y", ""),
    ("", SELECTED + "torch.ops.aten.add_.Tensor(y, 1.0)\nreturn x + y", ""),
    # the selection handed on inside a dict, a set, a `**` dict, a walrus
    ("", SELECTED + "bump_entry({'h': y})\nreturn x + y", "def bump_entry(d):\n    d['h'].add_(1)\n"),
    ("", SELECTED + "bump_each({y})\nreturn x + 0", "def bump_each(s):\n    for t in s:\n        t.add_(1)\n"),
    ("", SELECTED + "bump(**{'t': y})\nreturn x + 0", BUMP),
    ("", SELECTED + "bump(w := y)\nreturn x + 0", BUMP),
])
def test_a_selection_handed_to_a_call_that_may_update_it_is_not_safe(tmp_path: Path, init: str, body: str,
                                                                      helpers: str) -> None:
    source = _module_with(init, body, helpers)
    fixed = _safely_fixed(tmp_path, source)
    _same_results(source, fixed)
    assert fixed == source


@pytest.mark.parametrize("body", [
    SELECTED + "z = self.act(y)\nreturn x + z",  # nn.ReLU() without inplace
    SELECTED + "z = F.relu(y) + torch.cat([y, y]).sum()\nreturn x + z",  # torch functions
    # the in-place flag plainly off, by keyword or by position
    SELECTED + "z = F.relu(y, inplace=False) + F.relu(y, False) + F.threshold(y, 0.0, 0.0, False)\nreturn x + z",
    SELECTED + "z = y.add(1) + x.mul(y)\nreturn x + z + len(y)",  # tensor methods, a reading builtin
    SELECTED + "z = self.proj(y)\nreturn x + z",  # an nn.Linear
])
def test_a_selection_handed_to_calls_that_leave_it_alone_stays_safe(tmp_path: Path, body: str) -> None:
    source = _module_with("self.act = nn.ReLU()\nself.proj = nn.Linear(3, 3)", body)
    fixed = _safely_fixed(tmp_path, source)
    assert "torch.where(" in fixed
    _same_results(source, fixed)


def test_the_functional_write_flags_match_torch() -> None:
    # Every torch.nn.functional parameter `inplace`/`out` is in the table, at its position.
    found = {}
    for name in dir(F):
        function = getattr(F, name)
        if name.startswith("_") or not inspect.isfunction(function):
            continue
        parameters = list(inspect.signature(function).parameters)
        for flag in ("inplace", "out"):
            if flag in parameters:
                found[name] = (flag, parameters.index(flag))
    assert found == FUNCTIONAL_WRITE_FLAGS
