"""The dunders Python runs for an operator, an unpacking or a `for` on an object of a known class,
recorded as call sites (`instance:REF>__neg__`) so that a break inside them is found (GM658).

Measured on torch 2.13 (tests/test_breaking_dunders.py): Dynamo inlines the dunder on the
instruction of the syntax: BINARY_OP for `box + 1`, UNARY_NEGATIVE / UNARY_POSITIVE for `-box` /
`+box`, `k + box` (`__radd__`), UNPACK_SEQUENCE for `a, b = box` (`__iter__`), LIST_EXTEND for
`[*box]`, GET_ITER for `for v in box`, BINARY_OP for
`box += 1` (`__iadd__`, else `__add__`), POP_JUMP_IF / UNARY_NOT for `if box:`, `not box`, `box and
x` (`__bool__`, else `__len__`: Python's fallbacks, `FALLBACKS`, applied by the solver). None of those
is one Dynamo resumes after (`break_graph_if_unsupported` wraps calls, comparisons, subscripts and
stores only), so a break inside the dunder makes it go back to the start of the statement
("step_unsupported" there) and run the rest of the frame eagerly, as for a property read
(breaking_reads.py). `box[0]`, `len(box)` and `box(x)` are a subscript and calls: resumed after.
The receiver is `self.NAME` (what __init__ builds there), a local of a known class or one built in
place (function_objects `_receiver_class`). A tensor operand is GM640's (object_operands.py): the
object is handed to the tensor's operation first.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.analysis import value_class
from graphmend_bot.vocabulary.known_names import STATIC_ATTRS

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_objects import ObjectTracker
    from graphmend_bot.analysis.function_state import Env
    from graphmend_bot.vocabulary.kind import Kind

UNARY_METHODS: dict[type[ast.unaryop], str] = {ast.USub: "__neg__", ast.UAdd: "__pos__"}
# Python's second choice when the class lacks the dunder: truth by length, `box += 1` by `__add__`
FALLBACKS: dict[str, str] = {"__bool__": "__len__", **{f"__i{d[2:]}": d for d in value_class.OPERATOR_METHODS.values()}}
# the operand and unpacked-value nodes that can be an object of a known class: asked before calling, on the hot path
OPERANDS = (ast.Name, ast.Attribute)


def unary(visitor: ObjectTracker, node: ast.UnaryOp, env: Env) -> None:
    """`-box`, `+box`: the class's `__neg__` / `__pos__` (`~box` Dynamo cannot run at all: GM640)."""
    dunder = UNARY_METHODS.get(type(node.op))
    if dunder is not None and (ref := visitor._receiver_class(node.operand, env)) is not None:
        visitor._class_site(node, f"instance:{ref}>{dunder}", [])


def binary(visitor: ObjectTracker, node: ast.BinOp, left: Kind, right: Kind, env: Env) -> None:
    """`box + 1` on a local of a known class (whatever the other operand), or `self.box + other`
    with neither a tensor nor a number written out on the right: the left operand's `__add__`.
    `self.head_dim ** -0.5`, `self.scale * 2` are a config number's nearly always, and a site per
    one costs every summary (summary_instructions.py). Otherwise, with no tensor on the left, the
    right operand's reflected `__radd__` the same way (`k + box`, `k + self.box`; `1 - self.alpha`
    not: a number written out)."""
    dunder = value_class.OPERATOR_METHODS.get(type(node.op))
    if dunder is None:
        return
    ref = _operand(visitor, node.left, node.right, right, env)
    if ref is not None:
        visitor._class_site(node, f"instance:{ref}>{dunder}", [right])
    elif not left.is_tensor and (ref := _operand(visitor, node.right, node.left, left, env)) is not None:
        visitor._class_site(node, f"instance:{ref}>{value_class.REFLECTED_METHODS[type(node.op)]}", [left])


def _operand(visitor: ObjectTracker, operand: ast.expr, other: ast.expr, other_kind: Kind, env: Env) -> str | None:
    """The class ref of `operand` when its dunder is the one asked: a local of a known class, or
    `self.NAME` with neither a tensor nor a number written out as the other operand."""
    if isinstance(operand, ast.Name):
        return visitor._known_class(operand.id)
    if isinstance(operand, ast.Attribute) and not other_kind.is_tensor and not _number(other):
        return visitor._receiver_class(operand, env)
    return None


def displayed(visitor: ObjectTracker, node: ast.Tuple | ast.List | ast.Set, env: Env) -> None:
    """`[*box]`, `(*self.box,)`: a display unpacks the object with its class's `__iter__`
    (LIST_EXTEND, not resumed after; `f(*box)` is a call's, resumed after)."""
    for element in node.elts:
        if isinstance(element, ast.Starred) and isinstance(element.value, OPERANDS) \
                and (ref := visitor._receiver_class(element.value, env)) is not None:
            visitor._class_site(element.value, f"instance:{ref}>__iter__", [])


def augmented(visitor: ObjectTracker, node: ast.AugAssign, right: Kind, env: Env) -> None:
    """`box += 1` on a local of a known class, or `self.box += other` as for `binary`: the class's
    `__iadd__`, else its `__add__` (the solver's fallback)."""
    dunder = value_class.OPERATOR_METHODS.get(type(node.op))
    if dunder is None:
        return
    if isinstance(node.target, ast.Name):
        ref = visitor._known_class(node.target.id)
    elif isinstance(node.target, ast.Attribute) and not right.is_tensor and not _number(node.value):
        ref = visitor._receiver_class(node.target, env)
    else:
        return
    if ref is not None:
        visitor._class_site(node.target, f"instance:{ref}>__i{dunder[2:]}", [right])


def truth(visitor: ObjectTracker, node: ast.expr, env: Env) -> None:
    """`if box:`, `while self.box:`, `not box`, `box or x` on a local of a known class or on
    `self.NAME`: the class's `__bool__`, else its `__len__` (the solver's fallback)."""
    if isinstance(node, ast.Name):
        ref = visitor._known_class(node.id)
    elif isinstance(node, ast.Attribute) and node.attr not in STATIC_ATTRS and node.attr not in visitor.off_flags:
        # (a flag the class keeps off is a bool or None: no site, whose read would unname GM611's mode)
        ref = visitor._receiver_class(node, env)
    else:
        return
    if ref is not None:
        visitor._class_site(node, f"instance:{ref}>__bool__", [])


def unpacked(visitor: ObjectTracker, targets: list[ast.expr], value: ast.expr, env: Env) -> None:
    """`a, b = box`: unpacking iterates the object, with its class's `__iter__`."""
    if len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)) \
            and isinstance(value, (ast.Name, ast.Attribute)) \
            and (ref := visitor._receiver_class(value, env)) is not None:
        visitor._class_site(value, f"instance:{ref}>__iter__", [])


def _number(node: ast.expr) -> bool:
    """A number written out: `2`, `-0.5`."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool)
