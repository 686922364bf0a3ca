"""A branch guarding a value against its degenerate case gets no torch.where (degenerate_guards.py).

The guard is measured, not assumed: on the real shapes the branch's gradient is finite and the
torch.where form's is NaN, so the rewrite is refused and the finding keeps its advice.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import libcst as cst
import pytest
import torch
from fixture_support import FIXTURES
from test_predicate import compiled, findings_with_fixes

from graphmend_bot.rewrite.branches.degenerate_guards import guarded_values

EPSILON_GUARD = FIXTURES / "predicate" / "neg_epsilon_guard.in.py"


@pytest.mark.parametrize(
    ("condition", "guarded"),
    [
        ("d0 < 1e-5 or d1 < 1e-5", {"d0", "d1"}),  # torchdiffeq's initial step
        ("1e-8 >= norm(v)", {"norm", "v"}),
        ("x.sum() == 0", {"x"}),
        ("not torch.isfinite(dt)", {"dt"}),
        ("y.isnan().any()", {"y"}),
        ("x >= 0", set()),  # a sign test, not a tolerance
        ("error_ratio < 1", set()),  # a modelling threshold
        ("t == t0", set()),
    ],
)
def test_guarded_values_are_read_from_the_condition(condition: str, guarded: set[str]) -> None:
    assert set(guarded_values(cst.parse_expression(condition))) == guarded


def _load(path: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("epsilon_guard_fixture", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_epsilon_guard_as_torch_where_really_gives_nan_gradients() -> None:
    """torchdiffeq's initial step from a zero state: finite gradients with the `if`, NaN with the
    torch.where the rewrite would write (sqrt's backward at 0 times the zero gradient)."""
    fixture = _load(EPSILON_GUARD)
    y0 = torch.zeros(3, requires_grad=True)
    f0 = torch.randn(3, generator=torch.Generator().manual_seed(0))
    fixture.initial_step(y0, f0, 1e-3, 1e-4).sum().backward()
    assert y0.grad is not None and torch.isfinite(y0.grad).all()

    where_y0 = torch.zeros(3, requires_grad=True)
    scale = 1e-4 + torch.abs(where_y0) * 1e-3
    d0 = fixture._rms_norm(where_y0 / scale).abs()
    d1 = fixture._rms_norm(f0 / scale).abs()
    h0 = torch.where((d0 < 1e-5) | (d1 < 1e-5), torch.tensor(1e-6), 0.01 * d0 / d1)
    (where_y0 + h0 * f0).sum().backward()
    assert where_y0.grad is not None and torch.isnan(where_y0.grad).any()


def test_the_finiteness_guard_as_torch_where_really_gives_nan_gradients() -> None:
    x = torch.zeros((), requires_grad=True)
    (_load(EPSILON_GUARD).finite_step(1 / x, torch.tensor(0.1)) + x).backward()
    assert x.grad is not None and x.grad == 1  # the branch replaced the infinite step
    y = torch.zeros((), requires_grad=True)
    dt = 1 / y
    (torch.where(torch.isfinite(dt), dt, torch.tensor(0.1)) * 2 + y).backward()
    assert y.grad is not None and torch.isnan(y.grad)


def test_a_nan_guard_over_what_an_arm_multiplies_is_left_alone(tmp_path: Path) -> None:
    """`x * y` unselected because `y` has a NaN: torch.where's gradient for `x` is 0 * NaN."""
    x = torch.ones(2, requires_grad=True)
    y = torch.tensor([1.0, float("nan")])
    torch.where(torch.isnan(y).any(), x + 1, x * y).sum().backward()
    assert x.grad is not None and torch.isnan(x.grad).any()
    body = ("def f(x, y):\n    if (x > 0).any() and not torch.isnan(y).any():\n        out = x * y\n"
            "    else:\n        out = x + y\n    return out")
    findings = findings_with_fixes(compiled(body), tmp_path)
    assert findings
    assert all(f.fix is None or "torch.where" not in f.fix.edits[-1].content for f in findings)


@pytest.mark.parametrize(
    "body",
    [
        "def f(x):\n    y = x.abs().max()\n    return x if y < 1e-6 else x / y",
        "def f(x, m):\n    dt = x.sum() / x.max()\n    if not torch.isfinite(dt):\n        dt = m\n    return dt * 2",
        "def f(x):\n    s = x.abs().max()\n    if s < 1e-8:\n        return x\n    return x / s",
        "def f(t0, t1, y0, y1, t):\n    d = (t1 - t0).abs()\n    if d < 1e-8:\n        return y0\n"
        "    slope = (t - t0) / d\n    return y0 + slope * (y1 - y0)",
    ],
    ids=["ternary", "else-less-update", "early-return", "early-return-tail"],
)
def test_every_torch_where_form_refuses_a_degenerate_guard(body: str, tmp_path: Path) -> None:
    """Each body gets a torch.where without the guard check (checked when it was written)."""
    findings = findings_with_fixes(compiled(body), tmp_path)
    assert findings
    assert all(f.fix is None or "torch.where" not in f.fix.edits[-1].content for f in findings)


def test_a_guard_on_a_value_no_arm_reads_keeps_its_fix(tmp_path: Path) -> None:
    body = "def f(x):\n    e = x.abs().max()\n    if e < 1e-5:\n        y = x + 1\n    else:\n        y = x - 1\n    return y"
    findings = findings_with_fixes(compiled(body), tmp_path)
    assert any(f.fix is not None and "torch.where" in f.fix.edits[-1].content for f in findings)
