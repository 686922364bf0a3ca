"""Summary side of the keyword-sort fact: which functions sort their `**kwargs` items, and which
names each call passes by keyword (analysis/keyword_sorts.py joins them at the call sites).

linear_operator's `LinearOperator.__init__(self, *args, **kwargs)` runs `for name, val in
sorted(kwargs.items())`. Measured on torch 2.13 (tests/fixtures/dependency): Dynamo sorts the
(name, value) pairs only when every value is a Python constant; a tensor, an nn.Module, a plain
object (`kernel=self`) or a SymInt breaks ("Cannot perform sort with non-constant key", GB0207),
while ints, floats, strings, None, tuples of constants and functions do not, and `sorted(kwargs)`
of the keys never does. Recorded only when the config names dependencies.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from graphmend_bot.analysis.model import FunctionSummary

INSTANCE = "<self>"  # the name recorded for the method's instance parameter
SIZE = "<size>"  # recorded for a size of an argument tensor: a SymInt once shapes are dynamic
_MAX_DEPTH = 6  # assignments followed back from a keyword's value


def sorted_keyword_items(node: ast.Call, kwarg: str, builtin: Callable[[ast.expr], str | None]) -> bool:
    """`sorted(kwargs.items())` without a `key=`: the pairs themselves are the sort keys. `builtin`:
    the builtin a callee is unless a binding hides it (FunctionState.builtin_of)."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "sorted" and len(node.args) == 1
            and builtin(node.func) == "sorted"):
        return False
    if any(keyword.arg == "key" for keyword in node.keywords):
        return False
    items = node.args[0]
    return (
        isinstance(items, ast.Call) and not items.args and not items.keywords
        and isinstance(items.func, ast.Attribute) and items.func.attr == "items"
        and isinstance(items.func.value, ast.Name) and items.func.value.id == kwarg
    )


def record_passed_names(summary: FunctionSummary, site: int, node: ast.Call, self_name: str | None,
                        sizes: Sizes) -> None:
    """The keywords of call `site` whose value is the instance (`kernel=self`), one of the
    function's own parameters (`kernel=kernel`, forwarded: an object when a caller passes one), or
    a size of an argument tensor (`diag_shape=n` after `*batch, n = x.shape`)."""
    passed: list[tuple[str, str]] = []
    for keyword in node.keywords:
        value = keyword.value
        if keyword.arg is None:
            continue
        if isinstance(value, ast.Name) and value.id == self_name:
            passed.append((keyword.arg, INSTANCE))
        elif isinstance(value, ast.Name) and value.id in sizes.params:
            passed.append((keyword.arg, value.id))
        elif sizes.is_size(value):
            passed.append((keyword.arg, SIZE))
    if passed:
        summary.passed_names[site] = tuple(passed)


class Sizes:
    """Which expressions of one function are sizes of a tensor its caller passed: `x.shape`,
    `x.size(-1)` of a parameter (or an element of one: `p = params[0]`), a parameter annotated
    `torch.Size`, and what indexing, unpacking (`*batch, n = shape`) and arithmetic make of them.
    Measured on torch 2.13: such an int is a constant while Dynamo traces with static sizes, and a
    SymInt once it recompiles for another size (automatic dynamic shapes) or under dynamic=True,
    where sorting it breaks. Sizes of module state (`self.noise.shape`) stay static."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str | None) -> None:
        args = function.args
        named = [*args.posonlyargs, *args.args, *args.kwonlyargs, *(a for a in (args.vararg, args.kwarg) if a)]
        self.params = frozenset(a.arg for a in named if a.arg != self_name)
        self._size_params = frozenset(a.arg for a in named if _size_annotation(a.annotation))
        self._assigned: dict[str, list[ast.expr]] = {}
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._bind(node.target, node.value)

    def _bind(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self._assigned.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):  # an element of value: what indexing keeps
            for element in target.elts:
                element = element.value if isinstance(element, ast.Starred) else element
                if isinstance(element, ast.Name):
                    self._assigned.setdefault(element.id, []).append(ast.Subscript(value, ast.Constant(0)))

    def is_size(self, node: ast.expr, depth: int = 0) -> bool:
        if depth > _MAX_DEPTH:
            return False
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            return self._argument(node.value, depth + 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size":
            return self._argument(node.func.value, depth + 1)
        if isinstance(node, ast.Name):
            return node.id in self._size_params or any(self.is_size(v, depth + 1) for v in self._assigned.get(node.id, ()))
        if isinstance(node, ast.Subscript):
            return self.is_size(node.value, depth + 1)
        if isinstance(node, ast.IfExp):
            return self.is_size(node.body, depth + 1) or self.is_size(node.orelse, depth + 1)
        if isinstance(node, ast.BinOp):
            return self.is_size(node.left, depth + 1) or self.is_size(node.right, depth + 1)
        return False

    def _argument(self, node: ast.expr, depth: int) -> bool:
        """A parameter, an element of one, or a local only ever assigned those."""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(node, ast.Subscript):
            return self._argument(node.value, depth + 1)
        if isinstance(node, ast.IfExp):
            return self._argument(node.body, depth + 1) and self._argument(node.orelse, depth + 1)
        if not isinstance(node, ast.Name):
            return False
        if node.id in self.params:
            return True
        values = self._assigned.get(node.id, ())
        return bool(values) and all(self._argument(value, depth + 1) for value in values)


def _size_annotation(annotation: ast.expr | None) -> bool:
    """`torch.Size`, `Size`, `torch.Size | None`, `Optional[torch.Size]`."""
    return annotation is not None and any(
        isinstance(node, (ast.Attribute, ast.Name)) and (node.attr if isinstance(node, ast.Attribute) else node.id) == "Size"
        for node in ast.walk(annotation)
    )
