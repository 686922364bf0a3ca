"""An early return on a zero tensor whose tail rebinds the tested name, in a function without
gradients (rewrite/branches/zero_guard_return.py): the test is kept in a name, the final return selects.

The fixture pair tests/fixtures/rewrite/zero_guard_return/step_size is run by test_fixture_pairs.py
(the exact rewrite, together with the tail's own `if` fix; bit-identical eager outputs for a zero,
small, large and float64-tiny ratio; fewer breaks). Here: the rewritten controller compiles whole
and matches the original, and the cases that must get no fix.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
import torch
from fixture_support import FIXTURES, load_module

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.rewrite import attach_fixes
from graphmend_bot.rewrite.branches.zero_guard_return import _zero_guard_fix
from graphmend_bot.rewrite.context import FixContext, Rejected

CASE = FIXTURES / "zero_guard_return" / "step_size.in.py"


def test_the_rewritten_controller_compiles_whole_and_matches(tmp_path: Path) -> None:
    before = load_module(CASE, tmp_path, "zero_guard_before")
    after = load_module(CASE.with_name("step_size.out.py"), tmp_path, "zero_guard_after")
    torch._dynamo.reset()
    compiled = torch.compile(after.next_step, backend="eager", fullgraph=True)
    for seed in range(8):
        inputs = before.make_inputs(seed)
        expected = before.next_step(*inputs)
        got = compiled(*inputs)
        assert got.dtype == expected.dtype and torch.equal(got, expected), seed
    with pytest.raises(torch._dynamo.exc.Unsupported):
        torch._dynamo.reset()
        torch.compile(before.next_step, backend="eager", fullgraph=True)(*before.make_inputs(0))


TAIL = "    exponent = torch.tensor(order, dtype=last_step.dtype).reciprocal()\n"
TEMPLATE = f'''import torch


@torch.no_grad()
def optimal_step_size(last_step, error_ratio, ifactor, order):
    if error_ratio == 0:
        return last_step * ifactor
    error_ratio = error_ratio.type_as(last_step)
{TAIL}    factor = torch.min(ifactor, 0.9 / error_ratio ** exponent)
    return last_step * factor


def step(dt, error):
    return optimal_step_size(dt, error.abs().max(), torch.tensor(10.0), 5)


compiled = torch.compile(step)
'''
REFUSED = {
    "gradients recorded": ("@torch.no_grad()\n", ""),
    # An argument may turn gradients back on: the tail's NaN would reach them (step.grad 10 -> nan).
    "inference mode turned off": ("@torch.no_grad()\n", "@torch.inference_mode(False)\n"),
    "inference mode turned off by keyword": ("@torch.no_grad()\n", "@torch.inference_mode(mode=False)\n"),
    "inference mode set by a variable": ("@torch.no_grad()\n", "@torch.inference_mode(mode=ENABLED)\n"),
    "no_grad given an argument": ("@torch.no_grad()\n", "@torch.no_grad(ENABLED)\n"),
    "a one-line guard": ("    if error_ratio == 0:\n        return last_step * ifactor\n",
                         "    if error_ratio == 0: return last_step * ifactor\n"),
    "integer floor division in the tail": (TAIL, TAIL + "    steps = order // 2\n"),
    "an unknown call in the tail": (TAIL, TAIL + "    log_step(exponent)\n"),
    # Tail calls are matched by receiver, not by method name alone.
    "math.log in the tail (raises on zero)": (TAIL, TAIL + "    scale = math.log(error_ratio)\n"),
    "a user's object's exp in the tail": (TAIL, TAIL + "    scale = helper.exp(error_ratio)\n"),
    "a listed method on an unproven receiver": (TAIL, TAIL + "    scale = last_step.exp()\n"),
    "a listed method on a name that is a tensor on one path only": (
        TAIL, TAIL + "    if order > 1:\n        scale = exponent.exp()\n    else:\n        scale = helper\n"
        "    scale = scale.log()\n"),
    "an index in the tail": (TAIL, TAIL + "    first = last_step[0]\n"),
    "the early value rebound": (TAIL, TAIL + "    ifactor = ifactor * 2\n"),
    "another constant": ("if error_ratio == 0:", "if error_ratio == 1:"),
    "the flag name taken": ("def optimal_step_size(last_step, error_ratio, ifactor, order):",
                            "def optimal_step_size(last_step, error_ratio, ifactor, order, error_ratio_is_zero=None):"),
    "the tested name not rebound": ("    error_ratio = error_ratio.type_as(last_step)\n",
                                    "    ratio = error_ratio.type_as(last_step)\n"),
}


def guard_findings(source: str, tmp_path: Path) -> list[Finding]:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    found = attach_fixes(check([str(path)]), Config()).findings
    return [f for f in found if f.code == "GM101" and "error_ratio == " in source.splitlines()[f.location.row - 1]]


def test_the_template_gets_the_unsafe_fix(tmp_path: Path) -> None:
    (finding,) = guard_findings(TEMPLATE, tmp_path)
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    contents = [edit.content for edit in finding.fix.edits]
    assert "error_ratio_is_zero = error_ratio == 0" in contents
    assert "return torch.where(error_ratio_is_zero, last_step * ifactor, last_step * factor)" in contents
    assert any("`order` is a Python number" in note for note in finding.fix.assumptions)


@pytest.mark.parametrize("why", sorted(REFUSED))
def test_no_fix_where_the_tail_or_the_guard_is_not_the_safe_shape(why: str, tmp_path: Path) -> None:
    old, new = REFUSED[why]
    source = TEMPLATE.replace(old, new)
    assert source != TEMPLATE
    findings = guard_findings(source, tmp_path)
    assert findings, "the guard must still be reported"
    assert all(f.fix is None or "is_zero" not in str(f.fix.edits) for f in findings), [f.fix for f in findings]


@pytest.mark.parametrize("decorator", [
    "@torch.no_grad", "@torch.no_grad()", "@torch.inference_mode", "@torch.inference_mode()",
    "@torch.inference_mode(True)", "@torch.inference_mode(mode=True)",
])
def test_the_decorators_that_disable_gradients_get_the_fix(decorator: str, tmp_path: Path) -> None:
    (finding,) = guard_findings(TEMPLATE.replace("@torch.no_grad()", decorator), tmp_path)
    assert finding.fix is not None and "is_zero" in str(finding.fix.edits)


def test_python_number_returns_get_no_fix(tmp_path: Path) -> None:
    """`return hi` / `return lo` with `hi: float`: torch.where would return a tensor instead."""
    source = TEMPLATE.replace(
        "def optimal_step_size(last_step, error_ratio, ifactor, order):",
        "def optimal_step_size(last_step, error_ratio, ifactor, order, lo: float, hi: float):",
    ).replace("return last_step * ifactor", "return hi").replace("return last_step * factor", "return lo")
    findings = guard_findings(source, tmp_path)
    assert findings and all(f.fix is None or "is_zero" not in str(f.fix.edits) for f in findings)


def rejection(source: str) -> str:
    ctx = FixContext(source)
    found: list[cst.If] = []

    class Visitor(cst.CSTVisitor):
        def visit_If(self, node: cst.If) -> None:
            if "error_ratio == 0" in ctx.code_for(node.test):
                found.append(node)

    ctx.module.visit(Visitor())
    with pytest.raises(Rejected) as refused:
        _zero_guard_fix(ctx, found[0])
    return str(refused.value)


def test_a_one_line_guard_is_refused_as_one_line() -> None:
    old, new = REFUSED["a one-line guard"]
    reason = rejection(TEMPLATE.replace(old, new))
    assert "one line" in reason and "else" not in reason


def test_a_name_that_is_a_tensor_on_every_path_may_call_a_listed_method(tmp_path: Path) -> None:
    tail = TAIL + "    if order > 1:\n        scale = exponent.exp()\n    else:\n        scale = exponent.log()\n    scale = scale.log()\n"
    (finding,) = guard_findings(TEMPLATE.replace(TAIL, tail), tmp_path)
    assert finding.fix is not None and "is_zero" in str(finding.fix.edits)
