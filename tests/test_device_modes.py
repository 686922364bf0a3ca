"""A test on the device names a mode, as a dtype test does (precD, issue 27): `x.is_cuda`,
`x.device.type == "cuda"` and `torch.cuda.is_available()` are constants to Dynamo, so on CPU it
never reads the tensor such a test guards, and the finding there says `(on CUDA)`. Measured with
Dynamo (torch 2.13, CPU): the guarded check does not break, the same check unguarded or guarded by
the CPU's own device test breaks, and graphmend reports those without the mode."""

from __future__ import annotations

from pathlib import Path

from sample_modules import dynamo_breaks, graphmend_findings, line_of

from graphmend_bot.analysis.modes import arm_modes, modes_named
from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.vocabulary.mode_names import ON_CUDA

HEADER = """\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
"""
CUDA_GUARDS = ("x.is_cuda", 'x.device.type == "cuda"', "torch.cuda.is_available()", 'x.device.type in ("cuda",)')


def _sample(guard: str) -> str:
    return HEADER + f"        if {guard} and (x < 0).any():\n            raise ValueError('negative')\n        return x * 2\n"


def _messages(source: str, tmp_path: Path) -> list[str]:
    path = tmp_path / "sample.py"
    path.write_text(source)
    return [finding.message for finding in check([str(path)], Config(), jobs=1).findings]


def test_a_check_behind_a_cuda_test_is_not_read_on_cpu_and_names_the_mode(tmp_path: Path) -> None:
    for guard in CUDA_GUARDS:
        source = _sample(guard)
        assert dynamo_breaks(source, tmp_path) == set(), guard
        line = line_of(source, "(x < 0)")
        assert {row for row, _, _ in graphmend_findings(source, tmp_path)} == {line}, guard
        assert [modes_named(message) for message in _messages(source, tmp_path)] == [[ON_CUDA]], guard


def test_the_cpu_arm_is_read_and_names_no_mode(tmp_path: Path) -> None:
    for guard in ("True", 'x.device.type == "cpu"', "not x.is_cuda", 'x.device.type != "cuda"'):
        source = _sample(guard)
        line = line_of(source, "(x < 0)")
        assert {row for row, _ in dynamo_breaks(source, tmp_path)} == {line}, guard
        assert {row for row, _, _ in graphmend_findings(source, tmp_path)} == {line}, guard
        assert [modes_named(message) for message in _messages(source, tmp_path)] == [[]], guard


def test_arm_modes_of_device_tests() -> None:
    import ast

    def arms(text: str) -> tuple[str | None, str | None]:
        return arm_modes(ast.parse(text, mode="eval").body)

    assert arms("self.weight.is_cuda") == (ON_CUDA, None)
    assert arms('"cuda" != x.device.type') == (None, ON_CUDA)
    assert arms('x.device.type == "mps"') == (None, None)
    assert arms("torch.cuda.is_available(0)") == (None, None)
