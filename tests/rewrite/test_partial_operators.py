"""Arms whose operators raise for some dtypes (rewrite/partial_operators.py).

torch.where evaluates both arms, so `x - 1` in the arm the branch skipped raises for a bool `x`.
The tables are measured here on torch 2.13, and each verdict is checked against the program it
claims to keep: a fix offered as safe runs on bool and integer inputs as the branch did.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from fixture_support import FIXTURES

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import attach_fixes, fix_paths
from graphmend_bot.rewrite.partial_operators import RAISE_ON_BOOL, RAISE_ON_INTEGER

BOOL = torch.tensor([True, False])
INTEGER = torch.tensor([1, 2])
FLOAT = torch.tensor([1.0, 2.0])


def _apply(name: str, tensor: torch.Tensor) -> object:
    if name == "-":
        return tensor - tensor
    if name in ("sub", "subtract"):
        return getattr(torch, name)(tensor, tensor)
    if name == "lerp":
        return torch.lerp(tensor, tensor, 0.5)
    function = getattr(torch, name, None) or getattr(F, name)
    return function(tensor)


def _raises(name: str, tensor: torch.Tensor) -> bool:
    try:
        _apply(name, tensor)
    except (RuntimeError, NotImplementedError):
        return True
    return False


@pytest.mark.parametrize("name", sorted(RAISE_ON_BOOL))
def test_bool_table_is_measured(name: str) -> None:
    assert _raises(name, BOOL) and not _raises(name, FLOAT)


@pytest.mark.parametrize("name", sorted(RAISE_ON_INTEGER))
def test_integer_table_is_measured(name: str) -> None:
    assert _raises(name, BOOL) and _raises(name, INTEGER) and not _raises(name, FLOAT)


def test_minus_raises_on_either_bool_operand() -> None:
    for left, right in ((BOOL, FLOAT), (FLOAT, BOOL), (BOOL, 1)):
        with pytest.raises(RuntimeError):
            left - right
    with pytest.raises(RuntimeError):
        -BOOL  # noqa: B018


# `if x.sum() > 0: y = x * 2 + 1 else: y = x - 1`, `x` a parameter
SUBTRACTING_ARM = (FIXTURES / "predicate" / "if_else_assign.in.py").read_text(encoding="utf-8")


def _fixed(source: str, tmp_path: Path, unsafe: bool) -> str:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    changes = fix_paths([str(path)], Config(), unsafe=unsafe)
    return changes[0].after if changes else source


def test_an_arm_that_raises_on_bool_makes_the_selection_unsafe(tmp_path: Path) -> None:
    """On main this was a safe fix; for a bool `x` the rewrite raised where the branch returned."""
    assert _fixed(SUBTRACTING_ARM, tmp_path, unsafe=False) == SUBTRACTING_ARM
    rewritten = _fixed(SUBTRACTING_ARM, tmp_path, unsafe=True)
    assert "torch.where(x.sum() > 0, x * 2 + 1, x - 1)" in rewritten
    namespace: dict[str, object] = {}
    exec(compile(SUBTRACTING_ARM, "original", "exec"), namespace)
    assert torch.equal(namespace["scale"](BOOL), torch.tensor([3, 0]))  # type: ignore[operator]
    exec(compile(rewritten, "rewritten", "exec"), namespace)
    with pytest.raises(RuntimeError, match="Subtraction"):
        namespace["scale"](BOOL)  # type: ignore[operator]


@pytest.mark.parametrize(
    "arms",
    [
        ("x * 2.0 - 1", "x * 3.0 - 1"),  # a float scalar first: never bool
        ("x - 1", "x - 2"),  # both arms raise on bool: the branch raised on every path
        ("(x * 2) - 1", "x * 3"),  # `x * 2` is at least an integer tensor
    ],
)
def test_arms_that_cannot_raise_apart_stay_safe(arms: tuple[str, str], tmp_path: Path) -> None:
    then, other = arms
    source = SUBTRACTING_ARM.replace("x * 2 + 1", then).replace("x - 1\n", f"{other}\n")
    assert "torch.where" in _fixed(source, tmp_path, unsafe=False)


TWO_OPERANDS = """\
import torch


def scale(x, y):
    if x.sum() > 0:
        z = x.abs() + y
    else:
        z = x + y.abs()
    return z


compiled = torch.compile(scale)
"""


def test_arms_raising_for_one_dtype_on_different_tensors_are_unsafe(tmp_path: Path) -> None:
    """review11 #1: both arms raise on bool, but on different tensors: a bool `y` with a float `x`
    ran `x.abs() + y` alone in the branch and raises in both arms of the selection."""
    assert _fixed(TWO_OPERANDS, tmp_path, unsafe=False) == TWO_OPERANDS
    rewritten = _fixed(TWO_OPERANDS, tmp_path, unsafe=True)
    assert "torch.where(x.sum() > 0, x.abs() + y, x + y.abs())" in rewritten
    namespace: dict[str, object] = {}
    exec(compile(TWO_OPERANDS, "original", "exec"), namespace)
    assert torch.equal(namespace["scale"](FLOAT, BOOL), torch.tensor([2.0, 2.0]))  # type: ignore[operator]
    exec(compile(rewritten, "rewritten", "exec"), namespace)
    with pytest.raises((RuntimeError, NotImplementedError)):
        namespace["scale"](FLOAT, BOOL)  # type: ignore[operator]


def test_an_activation_on_an_unproven_tensor_is_unsafe(tmp_path: Path) -> None:
    """`F.gelu` raises on integer tensors; the other arm does not."""
    source = SUBTRACTING_ARM.replace("import torch\n", "import torch\nimport torch.nn.functional as F\n")
    source = source.replace("x * 2 + 1", "F.gelu(x) * 2.0").replace("x - 1\n", "x * 0.5\n")
    assert _fixed(source, tmp_path, unsafe=False) == source
    for dtype_input in (BOOL, INTEGER):
        with pytest.raises(RuntimeError):
            F.gelu(dtype_input)


SKIPPED_OPERANDS = {
    "value": ("def f(x):\n    return (x > 0).any() and ((x - 1) > 0).all()\n", "`-`"),
    "branch": (
        "def f(x, y):\n    if (x > 0).any() and (y.abs() > 1).all():\n        z = x + y\n"
        "    else:\n        z = x * y\n    return z\n",
        "`abs`",
    ),
}


@pytest.mark.parametrize("case", sorted(SKIPPED_OPERANDS))
def test_an_operand_the_short_circuit_skipped_may_not_raise_on_bool(case: str, tmp_path: Path) -> None:
    """`&` evaluates `x - 1` where `and` stopped at a False `(x > 0).any()`: for a bool `x` that raises."""
    body, operator = SKIPPED_OPERANDS[case]
    source = f"import torch\n\n\n{body}\n\ncompiled = torch.compile(f)\n"
    assert _fixed(source, tmp_path, unsafe=False) == source
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.fix is not None]
    assert findings and all(operator in f.fix.message for f in findings if f.fix)
    with pytest.raises(RuntimeError):
        (torch.tensor([False]) > 0).any() & ((torch.tensor([False]) - 1) > 0).all()
