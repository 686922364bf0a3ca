"""Calls of values `torch.compiler.disable(f)` returned (GM620, analysis/disabled_values.py), across
modules: a package whose `linalg.py` wraps torch functions once, at module level (heavyball's
`no_compile_eigh = torch.compiler.disable(torch.linalg.eigh)`), and whose model imports them by name
or through the module. Dynamo's breaks are measured here and must be exactly graphmend's findings;
the near misses (a `torch.compile`d value, a disabled value called only from eager code) break
nowhere and are not reported."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from graphmend_bot.analysis.disabled_values import builder_name, disabling
from graphmend_bot.engine import check

torch = pytest.importorskip("torch")

from graphmend_bot.census.dynamo import Tree, explain_breaks  # noqa: E402

LINALG = """\
import torch

no_compile_eigh = torch.compiler.disable(torch.linalg.eigh)
no_compile_qr = torch._dynamo.disable(torch.linalg.qr, recursive=False)


def _scaled(x):
    return x * 2


compiled_scaled = torch.compile(_scaled, backend="eager")


def eager_report(m):
    return no_compile_eigh(m)  # called from eager code only
"""

MODEL = """\
import torch

from . import linalg
from .linalg import compiled_scaled, no_compile_eigh


class Model(torch.nn.Module):
    def forward(self, x):
        m = x @ x.T + torch.eye(3)
        _, vectors = no_compile_eigh(m)
        q, _ = linalg.no_compile_qr(vectors)
        return compiled_scaled(q).sum()
"""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "wrapped"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "linalg.py").write_text(LINALG)
    (root / "model.py").write_text(MODEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [name for name in sys.modules if name == "wrapped" or name.startswith("wrapped.")]:
        del sys.modules[name]


def test_calls_of_disabled_values_are_the_breaks_dynamo_reports(package: Path) -> None:
    from wrapped.model import Model

    explained = explain_breaks(Model(), (torch.randn(3, 3),), {}, Tree([str(package)]))
    dynamo = {(Path(b.location[0]).name, b.location[1], b.gb_id) for b in explained.breaks if b.location}
    assert dynamo == {("model.py", 10, "GB0098"), ("model.py", 11, "GB0099")}
    result = check([str(package)], None, jobs=1)
    assert not result.errors, result.errors
    found = {(Path(f.path).name, f.location.row, f.gb_id) for f in result.findings}
    assert found == dynamo


def test_the_builder_names_how_the_value_is_disabled() -> None:
    import ast

    def named(source: str) -> str:
        call = ast.parse(source, mode="eval").body
        assert isinstance(call, ast.Call)
        return builder_name(call, source.partition("(")[0])

    assert disabling(named("torch.compiler.disable(f)")) == "recursive"
    assert disabling(named("torch._dynamo.disable(f, recursive=False)")) == "frame"
    assert disabling(named("torch.compiler.disable(f, recursive=True)")) == "recursive"
    assert disabling(named("torch.compile(f)")) == ""
    assert named("functools.partial(f, recursive=False)") == "functools.partial"


LOOPED = """\
import torch


@torch.compiler.disable
def eigh(m):
    return torch.linalg.eigh(m)


no_compile_eigh = torch.compiler.disable(torch.linalg.eigh)


def decorated(m):
    for _ in range(2):
        _, m = eigh(m)
    return m


def wrapped(m):
    for _ in range(2):
        _, m = no_compile_eigh(m)
    return m


class Model(torch.nn.Module):
    def forward(self, x):
        m = x @ x.T + torch.eye(3)
        return decorated(m).sum() + wrapped(m).sum()
"""


def test_a_call_in_a_loop_body_is_one_finding(tmp_path: Path) -> None:
    """A loop body is summarised once per pass of the kind solve: its calls repeat in the summary,
    the findings do not (each line Dynamo breaks on is reported once)."""
    path = tmp_path / "looped.py"
    path.write_text(LOOPED)
    module = {"__name__": "looped"}
    exec(compile(LOOPED, str(path), "exec"), module)
    explained = explain_breaks(module["Model"](), (torch.randn(3, 3),), {}, Tree([str(tmp_path)]))
    assert {(b.location[1], b.gb_id) for b in explained.breaks if b.location} == {
        (14, "GB0098"),
        (20, "GB0098"),
    }
    result = check([str(path)], None, jobs=1)
    assert sorted((f.location.row, f.code, f.gb_id) for f in result.findings) == [
        (14, "GM620", "GB0098"),
        (20, "GM620", "GB0098"),
    ]


REBOUND = """\
import torch


def solve(a, b):
    return torch.linalg.solve(a, b)


solve = torch.compiler.disable(solve)


def frame_only(x):
    return x * 2


frame_only = torch._dynamo.disable(frame_only, recursive=False)


def redefined(x):
    return x - 1


redefined = torch.compiler.disable(redefined)


def redefined(x):  # noqa: F811 - the name holds this undisabled function now
    return x + 1


class Model(torch.nn.Module):
    def forward(self, x):
        a = x @ x.T + torch.eye(3)
        y = solve(a, x)
        z = frame_only(y)
        return redefined(z).sum()
"""


def test_a_function_rebound_to_its_disabled_self_breaks_where_it_is_called(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`def solve(...)` then `solve = torch.compiler.disable(solve)`: the decorator spelled as a call.
    main took the call for one of the undisabled def and reported nothing."""
    dynamo, found = _breaks_and_findings(tmp_path, monkeypatch, "rebound_disable", REBOUND)
    assert dynamo == {(32, "GB0098"), (33, "GB0099")}
    assert found == dynamo


def _breaks_and_findings(
    folder: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str
) -> tuple[set[tuple[int, str | None]], set[tuple[int, str | None]]]:
    """(row, gb id) of Dynamo's breaks in module `name` holding `source` (its `Model` run on a 3x3
    input), and of graphmend's findings there."""
    (folder / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(folder))
    try:
        model = importlib.import_module(name).Model()
        explained = explain_breaks(model, (torch.randn(3, 3),), {}, Tree([str(folder)]))
    finally:
        sys.modules.pop(name, None)
    result = check([str(folder / f"{name}.py")], None, jobs=1)
    return (
        {(b.location[1], b.gb_id) for b in explained.breaks if b.location},
        {(f.location.row, f.gb_id) for f in result.findings},
    )


REBOUND_PLAIN = """\
import torch

eigh = torch.compiler.disable(torch.linalg.eigh)
eigh = torch.linalg.eigh  # the plain function again
kept = torch.compiler.disable(torch.linalg.qr)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inv = torch.compiler.disable(torch.linalg.inv)
        self.inv = torch.linalg.inv

    def forward(self, x):
        m = x @ x.T + torch.eye(3)
        _, vectors = eigh(m)
        q, _ = kept(vectors)
        return (self.inv(m) @ q).sum()
"""


def test_a_disabled_value_rebound_to_the_plain_function_is_traced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`eigh = torch.compiler.disable(...)` then `eigh = torch.linalg.eigh` (and the same on
    `self.inv` in `__init__`): the names hold plain functions, which Dynamo traces. main kept the
    disable call as their builder and reported both calls (GM620)."""
    dynamo, found = _breaks_and_findings(tmp_path, monkeypatch, "rebound_plain", REBOUND_PLAIN)
    assert dynamo == {(17, "GB0098")}
    assert found == dynamo
