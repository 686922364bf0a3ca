"""Conditions that are not bool tensors (review 14, finding 2; rewrite/bool_facts.py).

`.any()`/`.all()` of a uint8 mask is a uint8 tensor, so `a and mask.any()` may return uint8 where
`torch.logical_and` returns bool; `torch.where` raises on a float or integer condition that `if`
took the truth value of. Each case runs the original and what `graphmend check --fix` (safe fixes
only) makes of it on uint8 and bool masks: same result, dtype included, or the same exception."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from fixture_support import assert_same_calls, break_count, fix_source

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Fix
from graphmend_bot.rewrite import attach_fixes

HEADER = "import torch\n\n\n"
FOOTER = "\n\ncompiled = torch.compile(f)\n"
X = torch.tensor([1.0, -2.0, 3.0])
XS = [X, X.abs()]
MASKS = [
    torch.tensor(values, dtype=dtype)
    for values in ([0, 1, 0], [0, 0, 0], [1, 1, 1])
    for dtype in (torch.uint8, torch.bool)
]

CASES = {
    # review 14's reproduction: `1 - keep` raises on the bool `torch.logical_and` gives
    "and-mask-any": "def f(x, mask):\n    keep = (x > 0).all() and mask.any()\n    return x * (1 - keep)\n",
    "or-mask-all": "def f(x, mask):\n    keep = (x > 5).any() or mask.all()\n    return keep + 0\n",
    "torch-any-mask": "def f(x, mask):\n    keep = torch.any(x > 0) and torch.any(mask)\n    return keep * 2\n",
    # torch.where(mask.sum(), ...) raises "where expected condition to be a boolean tensor"
    "if-sum": "def f(x, mask):\n    if mask.sum():\n        y = x * 2\n    else:\n        y = x * 3\n    return y\n",
    "if-not-sum": "def f(x, mask):\n    if not mask.sum():\n        y = x * 2\n    else:\n        y = x * 3\n    return y\n",
    "ternary-sum": "def f(x, mask):\n    return x * 2 if mask.sum() else x * 3\n",
    "return-float-sum": "def f(x, mask) -> torch.Tensor:\n    if (x * mask).sum():\n        return x * 2\n    return x * 3\n",
    # torch 2.13's torch.where takes the uint8 of `mask.any()` as its truth value
    "if-mask-any": "def f(x, mask):\n    if mask.any():\n        y = x * 2\n    else:\n        y = x * 3\n    return y\n",
}


def _fixes(source: str, tmp_path: Path) -> list[Fix | None]:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    return [f.fix for f in attach_fixes(check([str(path)]), Config()).findings if f.code.startswith("GM1")]


@pytest.mark.parametrize("name", sorted(CASES))
def test_safe_fixes_keep_results_on_uint8_and_bool_masks(name: str, tmp_path: Path) -> None:
    source = HEADER + CASES[name] + FOOTER
    assert_same_calls(source, fix_source(source, tmp_path), [(x, mask) for x in XS for mask in MASKS])


def test_a_mask_of_unknown_dtype_makes_the_logical_and_fix_unsafe(tmp_path: Path) -> None:
    (fix,) = _fixes(HEADER + CASES["and-mask-any"] + FOOTER, tmp_path)
    assert fix is not None and fix.applicability == "unsafe"
    assert any("`mask.any()` is a bool tensor" in note and "uint8" in note for note in fix.assumptions)


@pytest.mark.parametrize(
    "mask",
    [
        "b = mask > 0\n    keep = (x > 0).all() and b.any()",
        "keep = (x > 0).all() and mask.bool().any()",
        "b = mask.to(torch.bool)\n    keep = (x > 0).all() and b.any()",
        "keep = (x > 0).all() and ((mask != 0) & ~torch.isnan(mask)).any()",
        "h = x.float()\n    keep = (x > 0).all() and h.any()",
    ],
    ids=["comparison-name", "bool-call", "to-bool", "operators", "floating"],
)
def test_a_proven_bool_or_floating_receiver_keeps_the_fix_safe(mask: str, tmp_path: Path) -> None:
    # `mask: torch.Tensor`: the operand `and` skipped reads it, so it must be one (test_skipped_operands.py)
    source = HEADER + f"def f(x, mask: torch.Tensor):\n    {mask}\n    return keep\n" + FOOTER
    (fix,) = _fixes(source, tmp_path)
    assert fix is not None and fix.applicability == "safe", fix


def test_a_bool_tensor_annotation_proves_the_mask(tmp_path: Path) -> None:
    source = (
        HEADER
        + "def f(x, mask: torch.BoolTensor):\n    keep = (x > 0).all() and mask.any()\n    return keep\n"
        + FOOTER
    )
    (fix,) = _fixes(source, tmp_path)
    assert fix is not None and fix.applicability == "safe"


def test_a_float_condition_is_selected_on_its_truth_value_and_the_break_goes(tmp_path: Path) -> None:
    """Dynamo breaks on `if mask.sum():` (a tensor's truth value); the fix selects on `.bool()`."""
    source = HEADER + CASES["if-sum"] + FOOTER
    fixed = fix_source(source, tmp_path)
    assert "torch.where(mask.sum().bool(), x * 2, x * 3)" in fixed
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    exec(compile(source, str(tmp_path / "case.py"), "exec"), before)
    exec(compile(fixed, str(tmp_path / "case.py"), "exec"), after)
    mask = torch.tensor([0.5, 0.0, 0.0])
    assert break_count(before["f"], (X, mask)) >= 1
    assert break_count(after["f"], (X, mask)) == 0
