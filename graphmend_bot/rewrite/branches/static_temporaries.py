"""A static prefix of a branch condition and static temporaries in an arm: what may stay Python
when a branch becomes `torch.where`.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function, is_python_number
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import dotted
from graphmend_bot.rewrite.statements import Chain


def static_temporaries(
    ctx: FixContext, chain: Chain, arms: list[dict[str, cst.BaseExpression]], facts: LocalFacts, row: int
) -> dict[str, cst.BaseExpression]:
    """Arm-local Python numbers (`clamp_value = torch.finfo(h.dtype).max - 1000`) that can be
    computed unconditionally: assigned in one arm only, static, and read nowhere outside the `if`."""
    scalars = facts.python_scalars()
    found: dict[str, cst.BaseExpression] = {}
    for arm in arms:
        for name, value in arm.items():
            if sum(name in other for other in arms) != 1 or not is_python_number(value, scalars):
                continue
            if _read_outside(ctx, chain.top, name):
                continue
            found[name] = value
    return found


def _read_outside(ctx: FixContext, statement: cst.CSTNode, name: str) -> bool:
    function = enclosing_function(ctx, statement)
    scope: cst.CSTNode = function if function is not None else ctx.module
    inside: set[int] = set()

    class Inside(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            inside.add(id(node))

    statement.visit(Inside())
    reads: list[cst.Name] = []

    class Reads(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name and id(node) not in inside:
                reads.append(node)

    scope.visit(Reads())
    return not all(_assigned_earlier_in_block(ctx, read, name, statement) for read in reads)


def _assigned_earlier_in_block(ctx: FixContext, read: cst.Name, name: str, branch: cst.CSTNode) -> bool:
    """Walking back from `read` through its block, an assignment to `name` comes before anything
    holding `branch` (so the read never sees the value the rewrite computes on both paths)."""
    statement = ctx.statement_of(read)
    block = ctx.parent(statement) if statement is not None else None
    body = getattr(block, "body", None)
    if statement is None or not isinstance(body, Sequence):
        return False
    holders = {id(branch), *(id(a) for a in ctx.ancestors(branch))}
    index = next((i for i, item in enumerate(body) if item is statement), None)
    if index is None or id(statement) in holders:
        return False
    for item in reversed(body[:index]):
        if id(item) in holders:
            return False
        if isinstance(item, cst.SimpleStatementLine) and any(
            isinstance(small, cst.Assign) and any(dotted(t.target) == name for t in small.targets) for small in item.body
        ):
            return True
    return False


def info_calls(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if dotted(call.func) in ("torch.finfo", "torch.iinfo"):
                found.append(call)

    node.visit(Visitor())
    return found
