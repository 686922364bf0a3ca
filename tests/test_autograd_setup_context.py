"""`Fn.apply(...)` on an autograd.Function with a static `setup_context(ctx, inputs, output)` runs
that too, and Dynamo traces it when an input requires grad: a break there is reported at its line
(measured on torch 2.13 below). Under inference (no input requires grad) Dynamo runs it untraced,
so graphmend names the mode (modes.py) rather than leave the line out; a `setup_context` whose
class no traced code applies is not reached (scope.Program._autograd_forward)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from tests.sample_modules import dynamo_breaks, line_of

pytest.importorskip("torch")

SOURCE = '''import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(x, factor):
        return x * factor

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, factor = inputs
        if x.sum() > 0:
            ctx.sign = 1
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class Unused(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        if x.sum() > 1:
            ctx.sign = 1

    @staticmethod
    def backward(ctx, grad):
        return grad


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        return Scale.apply(INPUT, 2.0)
'''

MODE = "(when an input requires grad)"


def _findings(source: str, tmp_path: Path) -> dict[int, str]:
    path = tmp_path / "sample.py"
    path.write_text(source)
    result = check([str(path)], Config(), jobs=1)
    assert not result.errors, result.errors
    return {f.location.row: f.message for f in result.findings}


def test_break_in_setup_context_is_found_when_an_input_requires_grad(tmp_path: Path) -> None:
    source = SOURCE.replace("INPUT", "x * self.w")
    branch = line_of(source, "if x.sum() > 0")
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} == {branch}
    found = _findings(source, tmp_path)
    assert set(found) == {branch}, found  # Unused.setup_context: no traced code applies it
    assert found[branch].endswith(MODE)


def test_setup_context_under_inference_names_the_mode(tmp_path: Path) -> None:
    """No input requires grad: Dynamo breaks nowhere, and the finding says the mode it needs."""
    source = SOURCE.replace("INPUT", "x")
    assert dynamo_breaks(source, tmp_path) == set()
    found = _findings(source, tmp_path)
    assert set(found) == {line_of(source, "if x.sum() > 0")}, found
    assert all(message.endswith(MODE) for message in found.values())
