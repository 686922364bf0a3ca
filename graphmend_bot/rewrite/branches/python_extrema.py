"""Python's two-argument `max(a, b)` / `min(a, b)` on tensors, written as the `torch.where` it is.

In an arm that a predicate rewrite evaluates on every path, a builtin `max` on two tensors is a
graph break of its own: it takes the Python truth of `b > a`. `torch.maximum` is not a drop-in
replacement: Python's `max(a, b)` returns `a` unless `b > a` is true, so a NaN in `a` wins and a NaN
in `b` loses, where `torch.maximum` propagates both. `torch.where(b > a, b, a)` is that definition
in tensor operations, ties and NaN included (`min(a, b)` is `torch.where(b < a, b, a)`).

Preconditions (otherwise the call is left as written, and the arm analysis refuses the arm):
- the builtin is not shadowed (no local, parameter, import or module-level definition of the name);
- exactly two positional arguments, no `key=` or `default=`;
- both are names or attribute reads that the branch condition itself compares as tensors: the
  rewrite of the condition already relies on them being tensors, so writing `torch.where` on them
  adds no new assumption about their type. What it does assume is stated: `max` returned one of
  them unchanged, `torch.where` broadcasts and promotes, so they must share shape and dtype.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from graphmend_bot.rewrite.branching import LocalFacts, is_python_number
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import dotted
from graphmend_bot.rewrite.static_conditions import split_static_prefix

# builtin -> the comparison under which Python picks the second argument
PICKS_SECOND = {"max": ">", "min": "<"}


def compared_tensors(tests: Iterable[cst.BaseExpression], facts: LocalFacts) -> set[str]:
    """Names and attribute chains that the condition compares by value (`d1 <= 1e-15`), other
    than Python numbers: the condition's rewrite evaluates them as tensors. A leading Python part
    (`n > 3 and d1 < 1e-3`, `x is not None and ...`) stays an `if`, so it shows nothing."""
    scalars = facts.python_scalars()
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Comparison(self, node: cst.Comparison) -> None:
            if any(isinstance(t.operator, cst.Is | cst.IsNot | cst.In | cst.NotIn) for t in node.comparisons):
                return
            for part in (node.left, *(target.comparator for target in node.comparisons)):
                name = dotted(part)
                if name is not None and not is_python_number(part, scalars):
                    found.add(name)

    for test in tests:
        for part in split_static_prefix(test, facts)[1]:
            part.visit(Visitor())
    return found


def shadowed_builtins(ctx: FixContext, facts: LocalFacts) -> set[str]:
    """Which of `max`/`min` this function or module binds to something else."""
    imported = {text.rpartition(" import ")[2].partition(" as ")[2] or text.rpartition(" import ")[2]
                for text in ctx.top_level_imports()}
    module_level = set(ctx.top_level_functions) | set(ctx.top_level_classes)
    return {
        name for name in PICKS_SECOND
        if name in facts.params or facts.values(name) or name in imported or name in module_level
    }


def lower_extrema(
    node: cst.BaseExpression, tensors: set[str], shadowed: set[str] | frozenset[str]
) -> tuple[cst.BaseExpression, list[str]]:
    """`node` with each `max(a, b)`/`min(a, b)` on `tensors` written as `torch.where`, and the
    assumptions that makes (empty when nothing was rewritten)."""
    assumptions: list[str] = []

    class Lowering(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
            func = updated.func
            if not isinstance(func, cst.Name) or func.value not in PICKS_SECOND or func.value in shadowed:
                return updated
            if len(updated.args) != 2 or any(arg.keyword is not None or arg.star for arg in updated.args):
                return updated
            first, second = (dotted(arg.value) for arg in updated.args)
            if first is None or second is None or first not in tensors or second not in tensors:
                return updated
            compare = PICKS_SECOND[func.value]
            selected = cst.parse_expression(f"torch.where({second} {compare} {first}, {second}, {first})")
            assumptions.append(
                f"`{func.value}({first}, {second})` becomes `torch.where({second} {compare} {first}, "
                f"{second}, {first})` (Python's own rule, NaN included); assumes `{first}` and `{second}` "
                "are 0-d tensors of one dtype"
            )
            return selected.with_changes(lpar=updated.lpar, rpar=updated.rpar)

    lowered = node.visit(Lowering())
    assert isinstance(lowered, cst.BaseExpression)
    return lowered, assumptions
