"""GM672 data-pointer-comparison: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb5976_*): `a.data_ptr() == b.data_ptr()` (and `!=`,
and a `data_ptr()` compared with anything else: an int, a storage's `data_ptr()`) breaks with GB5976
where the comparison runs, unless Dynamo proves both sides the same pointer: the same tensor, or a
`detach()` of it (`x.data_ptr() == x.data_ptr()` traces, so operands spelled alike after dropping
`.detach()` are left alone). `data_ptr()` alone traces. A pointer first bound to a local and
compared later breaks too, but its origin is not followed: a known miss.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind

DATA_POINTER_COMPARISON = "GB5976"  # "Data pointer comparison"
POINTER_METHODS = ("data_ptr", "const_data_ptr")


def _pointer_of(node: ast.expr) -> str | None:
    """The receiver of `R.data_ptr()`, spelled without `.detach()` calls; None for any other operand."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in POINTER_METHODS
            and not node.args and not node.keywords):
        return None
    receiver = node.func.value
    while (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute)
           and receiver.func.attr == "detach" and not receiver.args):
        receiver = receiver.func.value
    return ast.dump(receiver)


def _comparison(rule: Rule, checker: Checker, node: ast.Compare, operands: list[Kind]) -> None:
    sides = [node.left, *node.comparators]
    for op, left, right in zip(node.ops, sides, sides[1:], strict=False):
        if not isinstance(op, (ast.Eq, ast.NotEq)):
            continue
        pointers = (_pointer_of(left), _pointer_of(right))
        if pointers != (None, None) and pointers[0] != pointers[1]:
            # `data_ptr()` is torch's alone (tensors, storages): the comparison is traced code's.
            checker.report(rule, node, "comparing `data_ptr()` values breaks the graph", TENSOR,
                           gb_id=DATA_POINTER_COMPARISON)
            return


RULE = Rule(
    code="GM672",
    name="data-pointer-comparison",
    family="not traceable",
    gb_id=DATA_POINTER_COMPARISON,
    summary="Flags `a.data_ptr() == b.data_ptr()` (or `!=`, or against any other value) in traced code.",
    why=(
        "Under Dynamo a tensor's memory address is unknown until the graph runs, so it can answer a "
        "comparison of two `data_ptr()` values only when they are provably the same tensor; any other "
        "comparison ends the graph and runs eagerly (measured on torch 2.13: GB5976). Attention code "
        "uses it to tell self-attention (`query is key`) from cross-attention."
    ),
    example="same = query.data_ptr() == key.data_ptr()",
    use_instead="same = query is key  # or pass the choice as a flag",
    fix_safety=(
        "No automatic fix: `a is b` is the traceable identity test, but two different tensor objects "
        "can share memory (views), which only the pointers tell. Compare the objects with `is`, or "
        "decide outside the compiled function and pass a flag."
    ),
    detection=Detection(comparison=_comparison),
    advice=("Dynamo cannot compare the memory addresses in `{code}`: compare the tensors with `is`, or decide "
            "outside the compiled function and pass a flag"),
)
