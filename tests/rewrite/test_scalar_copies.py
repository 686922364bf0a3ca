"""`.item()` kept a tensor must still do what `.item()` did: detach the value and copy it.

Each case runs the original and the safely fixed function eagerly and compares the outputs and the
gradients the input receives (review4 findings 2 and 3).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from fixture_support import assert_identical, module_output_and_gradient

from graphmend_bot.config import Config
from graphmend_bot.rewrite import fix_paths


def _module(body: str) -> str:
    body = body.replace("\n", "\n    ")
    return f"import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        {body}\n"


def _fixed(tmp_path: Path, body: str) -> str:
    """The rewrite (unsafe ones too: `int(t)`/`float(t)` state a dtype assumption, never a gradient one)."""
    source = _module(body)
    path = tmp_path / "scalar_copy.py"
    path.write_text(source, encoding="utf-8")
    changes = fix_paths([str(path)], Config(), unsafe=True)
    assert changes, "the rewrite should apply to this pattern"
    return changes[0].after


@pytest.mark.parametrize("body", [
    "v = x.max().item()\n    return x / v",
    "v = x.abs().max().item()\n    return x * v - x",
    "v = float(x.mean())\n    return x - v",
    "v = int(x.max())\n    return x * v",
])
def test_the_kept_value_is_detached_like_item(tmp_path: Path, body: str) -> None:
    fixed = _fixed(tmp_path, body)
    x = torch.tensor([[0.5, -1.5, 2.25], [3.0, 0.75, -0.25]])
    before_out, before_grad = module_output_and_gradient(_module(body), x)
    after_out, after_grad = module_output_and_gradient(fixed, x)
    assert_identical(before_out, after_out)
    assert_identical(before_grad, after_grad, "gradient")


@pytest.mark.parametrize("body", [
    "v = x[0, 0].item()\n    x.mul_(2)\n    return x / v",
    "v = x.flatten()[0].item()\n    x.add_(1)\n    return x - v",
    "v = x[1].view(-1)[2].item()\n    x[1, 2] = 5.0\n    return x * v",
    "v = x.detach()[0, 1].item()\n    torch.nn.functional.relu(x, inplace=True)\n    return x + v",
])
def test_a_view_kept_is_copied_before_an_in_place_update(tmp_path: Path, body: str) -> None:
    fixed = _fixed(tmp_path, body)
    x = torch.tensor([[2.0, -4.0, 1.0], [6.0, 8.0, 3.0]])
    before_out, before_grad = module_output_and_gradient(_module(body), x)
    after_out, after_grad = module_output_and_gradient(fixed, x)
    assert_identical(before_out, after_out)
    assert_identical(before_grad, after_grad, "gradient")
    assert ".item()" not in fixed and ".detach().clone()" in fixed


@pytest.mark.parametrize(("body", "kept"), [
    ("v = x.max().item()\n    return x / v", "v = x.max().detach()\n"),  # a reduction is a new tensor
    ("v = x.abs()[0].item()\n    x.mul_(2)\n    return x / v", "v = x.abs()[0].detach()\n"),  # a view of a new one
    ("v = x.clone()[0].item()\n    return x / v", "v = x.clone()[0].detach()\n"),
    ("v = int(x[0])\n    return x * v", "v = x[0].detach().trunc()\n"),  # trunc makes a new tensor
])
def test_only_views_of_the_root_are_copied(tmp_path: Path, body: str, kept: str) -> None:
    assert kept in _fixed(tmp_path, body)
