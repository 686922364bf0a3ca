"""Issue 24, item 4: an unsafe fix never makes a call raise, never changes a result's dtype and never
changes a declared return type. Each case is code a rewrite used to take: the original and what
`--fix --unsafe-fixes` makes of it run eagerly on the same inputs, and must give the same result
(bit for bit, with its type) or raise the same exception type."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from fixture_support import assert_same_calls, fix_source

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.rewrite import attach_fixes
from graphmend_bot.rewrite.branches.cond import cond_fix
from graphmend_bot.rewrite.context import FixContext, Rejected

HEADER = "# fixture: unsafe-fixes\nimport torch\n\n\n"
FOOTER = "\n\ncompiled = torch.compile(f)\n"

# name: (function `f`, inputs to call it with)
CASES: dict[str, tuple[str, list[tuple[Any, ...]]]] = {
    # torch.cond over an int64 early return and a float division: "expected same dtype" on every call
    "cond-int-early-return": (
        "def f(x):\n    if x.sum() == 0:\n        return torch.tensor(0, device=x.device)\n"
        "    return x.sum() / x.numel()\n",
        [(torch.zeros(3),), (torch.arange(3.0),)],
    ),
    # torch.cond keeping an integer sum on one path and a float mean on the other
    "cond-kept-int-value": (
        "def f(x, n):\n    y = n.sum()\n    if x.sum() > 0:\n        y = x.mean()\n    return y\n",
        [(torch.ones(3), torch.arange(3)), (-torch.ones(3), torch.arange(3))],
    ),
    # torch.where over `t * 0.5` and an integer `t`: the int path came back float
    "where-float-arm-of-int": (
        "def f(x):\n    t = torch.arange(3)\n    if x.sum() > 0:\n        t = t * 0.5\n    return t\n",
        [(torch.ones(3),), (-torch.ones(3),)],
    ),
    # torch.where over an int64 constant and a float value
    "where-int-constant-arm": (
        "def f(x):\n    if x.sum() > 0:\n        y = torch.tensor(0)\n    else:\n        y = x.sum() / 2\n    return y\n",
        [(torch.ones(3),), (-torch.ones(3),)],
    ),
    # `-> bool`: `not t` gave a Python bool, `torch.logical_not` a tensor
    "declared-bool": (
        "def f(x) -> bool:\n    return not (x > 0).any()\n",
        [(torch.ones(3),), (-torch.ones(3),)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unsafe_fixes_keep_each_call_result_and_type(name: str, tmp_path: Path) -> None:
    body, inputs = CASES[name]
    source = HEADER + body + FOOTER
    assert_same_calls(source, fix_source(source, tmp_path), inputs)


def _findings(source: str, tmp_path: Path) -> list[Finding]:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    return [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code.startswith("GM1")]


@pytest.mark.parametrize(
    "function",
    [
        "def f(x) -> bool:\n    return not (x > 0).any()\n",
        "def f(x) -> bool:\n    return (x > 0).any() and (x < 9).all()\n",
        "def f(x) -> float:\n    if x.sum() > 0:\n        return x.max()\n    return x.min()\n",
        "def f(x) -> 'float':\n    if x.sum() > 0:\n        return x * 2\n    return x * 3\n",
        "def f(x) -> tuple[torch.Tensor, torch.Tensor]:\n    return x * 2 if x.sum() > 0 else x * 3\n",
    ],
    ids=["not", "and", "cond-returns", "where-returns", "ternary"],
)
def test_a_declared_non_tensor_return_type_gets_no_fix(function: str, tmp_path: Path) -> None:
    findings = _findings(HEADER + function + FOOTER, tmp_path)
    assert findings and all(f.fix is None for f in findings), [f.fix for f in findings]


def test_a_declared_tensor_return_type_keeps_its_fix(tmp_path: Path) -> None:
    """The control: the same early returns declared `-> torch.Tensor` (or `Optional[Tensor]`) are fixed."""
    for annotation in ("torch.Tensor", "Optional[torch.Tensor]", "torch.Tensor | None", '"Tensor"'):
        function = f"def f(x) -> {annotation}:\n    if x.sum() > 0:\n        return x * 2\n    return x * 3\n"
        source = HEADER.replace("import torch", "from typing import Optional\n\nimport torch\nfrom torch import Tensor")
        (finding,) = _findings(source + function + FOOTER, tmp_path)
        assert finding.fix is not None and "torch.where" in finding.fix.edits[-1].content, annotation


def _cond_refusal(source: str, tmp_path: Path) -> str:
    """Why the torch.cond rewrite refuses the only GM101 finding of `source`."""
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    (finding,) = [f for f in check([str(path)]).findings if f.code == "GM101"]
    ctx = FixContext(source, Config(), str(path))
    with pytest.raises(Rejected) as refused:
        cond_fix(ctx, finding)
    return str(refused.value)


def test_torch_cond_refusal_says_why(tmp_path: Path) -> None:
    reason = _cond_refusal(HEADER + CASES["cond-int-early-return"][0] + FOOTER, tmp_path)
    assert "cannot prove both branches return the same dtype, shape and device" in reason
    assert "`torch.tensor(0, device=x.device)` and `x.sum() / x.numel()`" in reason


def test_no_torch_cond_where_the_arms_have_a_branch_free_form(tmp_path: Path) -> None:
    """`h * 3` / `h / 3` on a value that may be an integer tensor: torch.where is refused (the dtype),
    and torch.cond, which would cost every eager call a trace of both arms, is not offered instead."""
    function = "def f(x):\n    h = x\n    if h.sum() > 0:\n        h = h * 3\n    else:\n        h = h / 3\n    return h\n"
    assert "branch-free form is `torch.where`" in _cond_refusal(HEADER + function + FOOTER, tmp_path)
    assert [f.fix for f in _findings(HEADER + function + FOOTER, tmp_path)] == [None]
