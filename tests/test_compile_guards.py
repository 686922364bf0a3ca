"""Compile guards judged by what they are worth under torch.compile (analysis/guards.py).

Dynamo is the ground truth for torch's own predicates; a project's helpers are judged by their
bodies, found in the same module or in the module of the package they are imported from."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from graphmend_bot.engine import check

torch = pytest.importorskip("torch")


def _while_under(guard):
    def step(x):
        y = x * 2
        if guard():
            return y + 1
        while (y > 0).any():
            y = y - 1
        return y

    return step


@pytest.mark.parametrize(("guard", "else_traced"), [
    (torch.compiler.is_exporting, True),  # False under torch.compile from torch 2.12 on
    (torch.compiler.is_compiling, False),
])
def test_dynamo_traces_the_else_of_an_export_guard(guard, else_traced: bool) -> None:
    torch._dynamo.reset()
    # Positive input, so the loop runs and its resumed frame holds a graph: explain counts a break
    # only then (a random input all <= 0 read as "no break", 1 run in 8, by whatever seed ran last).
    explained = torch._dynamo.explain(_while_under(guard))(torch.ones(3))
    assert (explained.graph_break_count > 0) is else_traced


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    for name, source in files.items():
        (root / name).write_text(textwrap.dedent(source))
    return root


HELPERS = """
    import torch

    try:
        from torch.compiler import is_exporting as _torch_is_exporting
    except ImportError:
        _torch_is_exporting = None


    def is_compiling():
        return torch.compiler.is_compiling()


    def is_exporting():
        '''Export-only, like kornia's: false inside torch.compile on torch >= 2.12.'''
        if torch.jit.is_scripting():
            return False
        return bool(torch.compiler.is_exporting())


    def is_tracing_dynamo():
        if torch.compiler.is_compiling():
            return True
        return False


    def is_murky_exporting():
        if _torch_is_exporting is not None:
            return bool(_torch_is_exporting())
        return is_compiling()
"""
ONNX = """
    import torch


    def is_compiling():
        return torch.onnx.is_in_onnx_export()
"""
MODEL = """
    import torch
    from torch import nn

    from . import onnx_helpers
    from .utils import is_compiling, is_exporting, is_murky_exporting
    from .utils import is_tracing_dynamo as is_dynamo_compiling


    def is_torchdynamo_compiling():
        return torch.compiler.is_compiling()


    class Model(nn.Module):
        def forward(self, x):
            if is_compiling():
                pass
            else:
                print(x.sum().item())  # eager only: not reported
            if is_torchdynamo_compiling():
                pass
            else:
                print(x.mean().item())  # eager only: not reported
            if is_exporting():
                pass
            else:
                y = x.max().item()  # traced by torch.compile: reported
            if torch.compiler.is_exporting():
                pass
            else:
                z = x.min().item()  # traced: reported
            if not is_dynamo_compiling():
                print(x.prod().item())  # eager only (early return under compile): not reported
            if not is_murky_exporting():
                w = x.std().item()  # the body cannot be judged: analysed, reported
            if onnx_helpers.is_compiling():
                pass
            else:
                v = x.var().item()  # named is_compiling, but an ONNX-export check: reported
            return x
"""


def test_helpers_are_judged_by_their_bodies(tmp_path: Path) -> None:
    root = _package(tmp_path, {"utils.py": HELPERS, "onnx_helpers.py": ONNX, "model.py": MODEL})
    result = check([str(root)], jobs=1)
    assert not result.errors, result.errors
    lines = (root / "model.py").read_text().splitlines()
    reported = sorted(lines[f.location.row - 1].split("=")[0].strip() for f in result.findings if f.code == "GM301")
    assert reported == ["v", "w", "y", "z"]


# A condition a compile guard decides still evaluates, under compile, what comes before the guard.
# (test, whether Dynamo breaks on it): each is the test of `if <test>: y = y + 1` in a forward.
ORDERED_GUARDS = [
    ("x.min() < -1 and not torch.compiler.is_compiling()", True),
    ("not torch.compiler.is_compiling() and x.min() < -1", False),
    ("x.sum() > 0 or torch.compiler.is_compiling()", True),
    ("torch.compiler.is_compiling() or x.sum() > 0", False),
    ("not (x.mean() > 0 and not torch.compiler.is_compiling())", True),
    ("x.shape[0] > 1 and (x.max() > 0 and not torch.compiler.is_compiling())", True),
    ("(not torch.compiler.is_compiling() and x.max() > 0) and x.min() < 0", False),
]


@pytest.mark.parametrize(("test", "breaks"), ORDERED_GUARDS)
def test_operands_before_the_compile_guard_are_traced(tmp_path: Path, test: str, breaks: bool) -> None:
    source = textwrap.dedent(f"""\
        import torch


        def step(x):
            y = x * 2
            if {test}:
                y = y + 1
            return y - 1


        compiled = torch.compile(step)
        """)
    path = tmp_path / "ordered.py"
    path.write_text(source)
    namespace: dict[str, object] = {}
    exec(compile(source, str(path), "exec"), namespace)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(namespace["step"])(torch.ones(2, 3))
    torch._dynamo.reset()
    assert (explained.graph_break_count > 0) is breaks
    findings = check([str(path)], jobs=1).findings
    assert [(f.code, f.location.row) for f in findings] == ([("GM101", 6)] if breaks else [])


# transformers' `is_tracing(tensor=None)` (utils/import_utils.py, 5.x), as it is written there:
# True under torch.compile, whatever tensor it is asked about.
TRACING = """\
import torch


def is_torchdynamo_compiling():
    return torch.compiler.is_compiling()


def is_tracing(tensor=None) -> bool:
    _is_tracing = is_torchdynamo_compiling() or torch.jit.is_tracing()
    if tensor is not None:
        _is_tracing |= isinstance(tensor, torch.fx.Proxy)
    return _is_tracing


class Tracer:
    def is_tracing(self) -> bool:
        return False


def step(x, ids, tracer):
    y = x * 2
    if not is_tracing(ids) and (ids < 0).any():
        raise ValueError("negative ids")
    if not is_tracing() and (y > 100).any():
        raise ValueError("too large")
    if not tracer.is_tracing() and (y < -100).any():
        raise ValueError("too small")
    return y + 1


compiled = torch.compile(step)
"""


def test_is_tracing_is_a_compile_guard_and_a_tracers_method_is_not(tmp_path: Path) -> None:
    path = tmp_path / "tracing.py"
    path.write_text(TRACING)
    namespace: dict[str, object] = {}
    exec(compile(TRACING, str(path), "exec"), namespace)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(namespace["step"])(torch.ones(3), torch.tensor([1, 2]), namespace["Tracer"]())
    torch._dynamo.reset()
    broken = {frame.lineno for reason in explained.break_reasons for frame in reason.user_stack or []}
    method_guard = TRACING.splitlines().index("    if not tracer.is_tracing() and (y < -100).any():") + 1
    assert broken == {method_guard}  # only the test after the tracer object's method
    findings = check([str(path)], config=None, jobs=1).findings
    assert [(f.code, f.location.row) for f in findings] == [("GM201", method_guard)]
