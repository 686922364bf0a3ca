"""`&`/`|` evaluate the operand `and`/`or` skipped (review15 #2, #7; rewrite/skipped_operands.py).

Each case runs the original and what `graphmend check --fix` (safe fixes only) makes of it, eagerly,
on inputs where Python skipped an operand: the same result (its type, dtype and bits) or the same
exception. On main the safe fixes raised here (`None.sum()`, a size mismatch, an integer tensor to
a negative power) or turned a Python bool into a tensor. Cases the proof covers stay safe."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from fixture_support import assert_same_calls, fix_source, load_module

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Fix
from graphmend_bot.rewrite import attach_fixes

HEADER = "from typing import Optional\n\nimport torch\n\n\n"
FOOTER = "\n\ncompiled = torch.compile(f)\n"
NEGATIVE = torch.tensor([-1.0, 2.0])  # `(x > 0).all()` is false: `and` skips the right operand
POSITIVE = torch.ones(2)  # `(x > 0).all()` is true: `or` skips it
COMPLEX = torch.tensor([1 + 1j, 2j])  # ordering it, or clamping it, raises

RAISING = {
    "optional-or": (
        "def f(x, y: Optional[torch.Tensor] = None):\n    ok = (x > 0).all() or (y.sum() > 0)\n    return x * ok\n",
        [(POSITIVE,), (POSITIVE, None), (NEGATIVE, torch.ones(2))],
    ),
    "broadcast-and": (
        "def f(x, y, z):\n    ok = (x > 0).all() and ((y + z).sum() > 0)\n    return x * ok\n",
        [(NEGATIVE, torch.ones(2), torch.ones(3)), (POSITIVE, torch.ones(2), torch.ones(2))],
    ),
    "negative-power": (
        "def f(x, y: torch.Tensor):\n    ok = (x > 0).all() and ((y ** -1).sum() > 0)\n    return x * ok\n",
        [(NEGATIVE, torch.tensor([1, 2])), (POSITIVE, torch.tensor([1.0, 2.0]))],
    ),
    "if-optional": (
        "def f(x, y: Optional[torch.Tensor] = None):\n    if (x > 0).all() or (y.sum() > 0):\n"
        "        out = x + 1\n    else:\n        out = x * 2\n    return out\n",
        [(POSITIVE,), (NEGATIVE, torch.ones(2))],
    ),
    "ternary-broadcast": (
        "def f(x, y, z):\n    return x + 1 if (x > 0).all() and ((y + z).sum() > 0) else x * 2\n",
        [(NEGATIVE, torch.ones(2), torch.ones(3))],
    ),
    "elif-optional": (
        "def f(x, y: Optional[torch.Tensor] = None):\n    if (x > 0).all():\n        out = x + 1\n"
        "    elif (y.sum() > 0):\n        out = x * 2\n    else:\n        out = x * 3\n    return out\n",
        [(POSITIVE,), (NEGATIVE, torch.ones(2))],
    ),
    "complex-or": (  # review16 #3: `y: torch.Tensor` may be complex, and `y > 2` raises for one
        "def f(x, y: torch.Tensor):\n    if (x > 0).any() or (y > 2).all():\n        out = x * y\n    else:\n"
        "        out = x + y\n    return out\n",
        [(torch.tensor([1.0, -1.0]), COMPLEX), (NEGATIVE, torch.tensor([3.0, 1.0]))],
    ),
    "complex-clamp": (
        "def f(x, y: torch.Tensor):\n    ok = (x > 0).all() and (y.clamp(min=0).sum() > 0)\n    return x * ok\n",
        [(NEGATIVE, COMPLEX), (POSITIVE, torch.ones(2))],
    ),
}
PROVEN = {
    "same-tensor": "def f(x):\n    ok = (x > 0).all() or (x < -5).any()\n    return x * ok\n",
    "local-tensor": "def f(x):\n    h = x.float()\n    ok = (x > 0).all() and (h.sum() > 1)\n    return x * ok\n",
    "declared-tensor": "def f(x, y: torch.Tensor):\n    ok = (x > 0).all() and (y.float() > 0).any()\n    return x * ok\n",
    "ordered-first": "def f(x):\n    ok = (x > 0).all() or (x.clamp(min=1) > 2).any()\n    return x * ok\n",
    "if-same-tensor": "def f(x):\n    if (x > 0).all() or (x * 2 < -1).any():\n        out = x + 1\n    else:\n"
    "        out = x * 2\n    return out\n",
}


def _fixes(source: str, tmp_path: Path) -> list[Fix | None]:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    return [f.fix for f in attach_fixes(check([str(path)]), Config()).findings if f.code.startswith("GM1")]


@pytest.mark.parametrize("name", sorted(RAISING))
def test_a_skipped_operand_that_may_raise_makes_the_fix_unsafe(name: str, tmp_path: Path) -> None:
    body, inputs = RAISING[name]
    source = HEADER + body + FOOTER
    fixes = _fixes(source, tmp_path)
    assert fixes and all(fix is not None and fix.applicability == "unsafe" for fix in fixes), fixes
    assert any("cannot raise there" in note for fix in fixes if fix for note in fix.assumptions)
    assert_same_calls(source, fix_source(source, tmp_path), inputs)


@pytest.mark.parametrize("name", sorted(PROVEN))
def test_a_skipped_operand_proven_unable_to_raise_keeps_the_fix_safe(name: str, tmp_path: Path) -> None:
    source = HEADER + PROVEN[name] + FOOTER
    (fix,) = _fixes(source, tmp_path)
    assert fix is not None and fix.applicability == "safe", fix
    fixed = fix_source(source, tmp_path)
    assert "torch.where" in fixed or "|" in fixed or "&" in fixed
    assert_same_calls(
        source,
        fixed,
        [
            (x,) if "y" not in PROVEN[name].split(":")[0] else (x, x)
            for x in (NEGATIVE, POSITIVE, torch.tensor([-9.0, 0.5]))
        ],
    )


def test_a_nested_not_makes_the_value_a_tensor_so_the_fix_is_unsafe(tmp_path: Path) -> None:
    """`a and not b` is `not b`, a Python bool, wherever `a` is true (review15 #7)."""
    source = HEADER + "def f(x):\n    c = (x > 0).all() and not (x < 1).any()\n    return x, c\n" + FOOTER
    fixes = _fixes(source, tmp_path)
    assert len(fixes) == 2 and all(fix is not None and fix.applicability == "unsafe" for fix in fixes)
    assert all("0-d bool tensor instead of a Python bool" in fix.assumptions[0] for fix in fixes if fix)
    (tmp_path / "original.py").write_text(source, encoding="utf-8")
    (tmp_path / "fixed.py").write_text(fix_source(source, tmp_path), encoding="utf-8")
    original = load_module(tmp_path / "original.py", tmp_path, "skipped_original")
    fixed = load_module(tmp_path / "fixed.py", tmp_path, "skipped_fixed")
    for x in (torch.tensor([2.0]), torch.tensor([0.5]), torch.tensor([-1.0])):
        before, after = original.f(x)[1], fixed.f(x)[1]
        assert type(before) is type(after) and bool(before) == bool(after)
