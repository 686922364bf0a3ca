"""An assert's test rewritten as one expression Dynamo traces, for `assert <test>, "<constant>"`.

Dynamo lowers `assert <tensor>, "<constant message>"` to torch._assert_async itself (measured on
torch 2.13: one graph). It breaks on what turns a tensor into a Python bool first: `and`/`or`,
`not`, a chained comparison. Written with `&`, `|` and the links of the chain, the test stays one
expression, and the statement stays an `assert`: eager code raises AssertionError as before, and
Python bools (`&`/`|` of bools is their `and`/`or`) and multi-element tensors (the same "ambiguous"
RuntimeError) behave as they did.

What the rewrite may not change: `&`/`|` evaluate their right operand always, so it must be unable
to raise or act where the short-circuit skipped it (comparisons, names, `.all()`/`.any()`,
`torch.isnan`-style predicates, `+ - *`; no indexing, division or other calls); a chain's middle
operands are plain names (evaluated twice instead of once); `not` becomes `~` only on a call that
gives a bool tensor (`torch.isnan(x).any()`): `~` of a Python bool is -1 or -2 and of a uint8
`.any()` 254 or 255, all true.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from graphmend_bot.rewrite.branching import BOOL_PREDICATES, BOOL_REDUCTIONS, is_bool_tensor_code, operand
from graphmend_bot.rewrite.purity import dotted

Source = Callable[[cst.CSTNode], str]
# Calls that turn a tensor into a Python value: a test holding one breaks whatever is done.
PYTHON_CONVERSIONS = frozenset({"item", "tolist", "bool", "float", "int", "numpy", "len"})


def traceable_test(code: Source, test: cst.BaseExpression) -> str | None:
    """Code for `test` as one traceable expression, or None. `code(node)` gives a node's source."""
    if not _no_conversions(test):
        return None
    return _lower(code, test)


def _lower(code: Source, node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.BooleanOperation):
        if not (_bool_valued(node.left) and _bool_valued(node.right)) or not _always_safe(node.right):
            return None
        left, right = _lower(code, node.left), _lower(code, node.right)
        if left is None or right is None:
            return None
        symbol = "&" if isinstance(node.operator, cst.And) else "|"
        return f"{operand(node.left, left)} {symbol} {operand(node.right, right)}"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        # `~` negates only a bool tensor: not a Python bool (a comparison may be one) nor a uint8 `.any()`.
        if not (isinstance(node.expression, cst.Call) and is_bool_tensor_code(node.expression)):
            return None
        inner = _lower(code, node.expression)
        return None if inner is None else f"~{operand(node.expression, inner)}"
    if isinstance(node, cst.Comparison):
        if any(isinstance(c.operator, cst.Is | cst.IsNot | cst.In | cst.NotIn) for c in node.comparisons):
            return None
        if len(node.comparisons) == 1:
            return code(node).strip()
        return _chain(code, node)
    return code(node).strip()


def _chain(code: Source, test: cst.Comparison) -> str | None:
    """`a <= t <= b` -> `(a <= t) & (t <= b)`; middle operands must be plain names."""
    left: cst.BaseExpression = test.left
    links: list[str] = []
    for index, comparison in enumerate(test.comparisons):
        right = comparison.comparator
        if index < len(test.comparisons) - 1 and not isinstance(right, cst.Name):
            return None
        if index > 0 and not _always_safe(right):
            return None  # the chain skipped it once a link was false
        link = cst.Comparison(left=left, comparisons=[comparison.with_changes(comparator=right)])
        links.append(f"({code(link).strip()})")
        left = right
    return " & ".join(links)


def tensor_valued(test: cst.BaseExpression) -> bool:
    """The traceable form of `test` is a tensor, never a Python bool: `&`/`|`/`and`/`or` of calls
    like `x.all()` or `torch.isnan(x).any()` (on a Python number they raise in the original too),
    so torch._assert_async accepts it."""
    if isinstance(test, cst.BooleanOperation | cst.BinaryOperation):
        if isinstance(test, cst.BinaryOperation) and not isinstance(test.operator, cst.BitAnd | cst.BitOr):
            return False
        return tensor_valued(test.left) and tensor_valued(test.right)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return tensor_valued(test.expression)
    return _tensor_predicate(test)


def _bool_valued(node: cst.BaseExpression) -> bool:
    """A comparison, a predicate or `.any()/.all()`, or `not`/`and`/`or` of them."""
    if isinstance(node, cst.Comparison):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return _bool_valued(node.expression)
    if isinstance(node, cst.BooleanOperation):
        return _bool_valued(node.left) and _bool_valued(node.right)
    return _tensor_predicate(node)


def _tensor_predicate(node: cst.BaseExpression) -> bool:
    """`x.all()`, `x.any()`, `torch.isnan(x)`, `x.isfinite()`...: a bool tensor."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return False
    name = node.func.attr.value
    if name in BOOL_REDUCTIONS:
        return not node.args or dotted(node.func) in ("torch.any", "torch.all")
    return name in BOOL_PREDICATES


def _always_safe(node: cst.CSTNode) -> bool:
    """Evaluating `node` cannot raise or act for values the original test accepted elsewhere."""
    if isinstance(node, cst.Name | cst.Integer | cst.Float | cst.LeftParen | cst.RightParen):
        return True
    if isinstance(node, cst.Attribute):
        return dotted(node) is not None
    if isinstance(node, cst.Call):
        if not _tensor_predicate(node):
            return False
        receiver = [node.func.value] if isinstance(node.func, cst.Attribute) and dotted(node.func) is None else []
        return all(_always_safe(part) for part in (*receiver, *(arg.value for arg in node.args)))
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.BitInvert | cst.Minus) and _always_safe(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, cst.Add | cst.Subtract | cst.Multiply | cst.BitAnd | cst.BitOr) and (
            _always_safe(node.left) and _always_safe(node.right)
        )
    if isinstance(node, cst.Comparison):
        return _always_safe(node.left) and all(_always_safe(c.comparator) for c in node.comparisons)
    return False


def _no_conversions(test: cst.BaseExpression) -> bool:
    found = False

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            nonlocal found
            name = call.func.attr.value if isinstance(call.func, cst.Attribute) else dotted(call.func)
            found = found or name in PYTHON_CONVERSIONS

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            nonlocal found
            found = True
            return False

    test.visit(Visitor())
    return not found
