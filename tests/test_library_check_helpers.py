"""A library's own check helper (`check(cond: Any, msg)`, transformers' `torch_compilable_check`)
that hands a tensor condition to `torch._check_tensor_all`: Dynamo inlines the helper and breaks
inside it (GB0124, `Tensor.item()`), at the helper's line, whichever caller passed the tensor. So the
finding belongs there, also when other callers pass Python bools, and also inside the library whose
helper a module-function hook describes for its users."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from graphmend_bot.engine import check

torch = pytest.importorskip("torch")

HELPER = """
from typing import Any

import torch


def compilable_check(cond: Any, msg: str) -> None:
    if torch.compiler.is_compiling():
        if isinstance(cond, torch.Tensor):
            torch._check_tensor_all(cond)
        else:
            torch._check(cond)
        return
    if not cond:
        raise ValueError(msg)
"""

CALLERS = """
import torch
from torch import nn

from .utils import compilable_check


def pad_check(hidden):
    compilable_check(hidden.shape[0] != 0, "empty")  # a Python bool: traces
    return hidden


class Model(nn.Module):
    def forward(self, x):
        x = pad_check(x)
        compilable_check((x > -100).all(), "out of range")
        return x + 1
"""


def _package(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("")
    for file, source in files.items():
        (root / file).write_text(textwrap.dedent(source))
    return root


def _gm201_lines(root: Path) -> list[tuple[str, str]]:
    result = check([str(root)], jobs=1)
    assert not result.errors, result.errors
    return sorted(
        (Path(f.path).name, Path(f.path).read_text().splitlines()[f.location.row - 1].strip())
        for f in result.findings
        if f.code == "GM201"
    )


def test_dynamo_breaks_inside_the_helper_on_the_tensor_condition_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "helper_module.py"
    path.write_text(textwrap.dedent(HELPER))
    spec = importlib.util.spec_from_file_location("helper_module", path)
    assert spec is not None and spec.loader is not None
    helper = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "helper_module", helper)  # Dynamo looks its globals up there
    spec.loader.exec_module(helper)

    def forward(x):
        helper.compilable_check(x.shape[0] != 0, "empty")
        helper.compilable_check((x > -100).all(), "out of range")
        return x + 1

    torch._dynamo.reset()
    explained = torch._dynamo.explain(forward)(torch.randn(2, 3))
    assert explained.graph_break_count == 1
    (reason,) = explained.break_reasons
    assert "Tensor.item()" in reason.reason
    frame = reason.user_stack[-1]
    assert frame.name == "compilable_check" and frame.line == "torch._check_tensor_all(cond)"


def test_the_finding_is_in_the_helper_although_another_caller_passes_a_bool(tmp_path: Path) -> None:
    root = _package(tmp_path, "lib", {"utils.py": HELPER, "model.py": CALLERS})
    assert _gm201_lines(root) == [("utils.py", "torch._check_tensor_all(cond)")]


def test_only_python_conditions_leave_the_helper_silent(tmp_path: Path) -> None:
    callers = CALLERS.replace("(x > -100).all()", "x.shape[-1] == 3")  # traces
    root = _package(tmp_path, "lib", {"utils.py": HELPER, "model.py": callers})
    assert _gm201_lines(root) == []


def test_inside_transformers_its_helper_is_read_not_its_hook(tmp_path: Path) -> None:
    # transformers' own modules: the call resolves to `transformers.utils.torch_compilable_check`,
    # which GM201's hook reports at the call for code outside transformers
    helper = HELPER.replace("compilable_check", "torch_compilable_check")
    callers = CALLERS.replace("compilable_check", "torch_compilable_check")
    root = _package(tmp_path, "transformers", {"utils.py": helper, "model.py": callers})
    assert _gm201_lines(root) == [("utils.py", "torch._check_tensor_all(cond)")]
