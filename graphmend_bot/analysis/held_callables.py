"""The value a local holds where it is called, for the spellings of calls through a held callable
(call_spellings.py): `f = functools.partial(torch.nonzero, as_tuple=False)` then `f(x)`, and
`get = t.item` then `get()`.

The value is that of the last `NAME = value` of the function's own body before the call; none when
another binding of NAME comes between (a loop target, a walrus, an augmented assignment), when a
loop around the call binds NAME after it (the next iteration calls that), or when a name the value
reads is bound between the two (the value read at the call would not be the one held). Walked once
per function, and only for a name some `NAME = partial(...)` or `NAME = t.item` binds (function_aliases.py
finds those in the walk of the statements it makes anyway).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from graphmend_bot.analysis.local_nodes import local_nodes
from graphmend_bot.vocabulary.known_names import TENSOR_API


def may_hold(value: ast.expr) -> bool:
    """Whether `NAME = value` may bind a callable call_spellings reads: a `partial(...)` call or a
    torch.Tensor method bound to its receiver (the whole body is walked only for those)."""
    if isinstance(value, ast.Attribute):
        return value.attr in TENSOR_API
    func = value.func if isinstance(value, ast.Call) else None
    return (isinstance(func, ast.Attribute) and func.attr == "partial") or (isinstance(func, ast.Name) and func.id == "partial")


# Per name: (row, the value of `name = value`, else None for any other binding), by row.
_Bindings = dict[str, list[tuple[int, ast.expr | None]]]


class HeldValues:
    """The bindings of one function body, walked when a call first asks."""

    def __init__(self, body: Sequence[ast.stmt]) -> None:
        self._body = body
        self.assigned: frozenset[str] = frozenset()  # the names `NAME = ...` binds (set by FunctionAliases' walk)
        self._bindings: _Bindings | None = None
        self._loops: list[tuple[int, int]] = []

    def value_at(self, name: str, row: int) -> ast.expr | None:
        """The value `name` holds at `row`, as the module docstring says, or None."""
        if name not in self.assigned:
            return None
        bindings = self._walk()
        rows = bindings.get(name, ())
        before = [(line, value) for line, value in rows if line < row]
        if not before or (value := before[-1][1]) is None:
            return None
        bound_at = before[-1][0]
        last = max((end for start, end in self._loops if start <= row <= end), default=row)
        if any(row <= line <= last for line, _ in rows):
            return None
        read = {node.id for node in ast.walk(value) if isinstance(node, ast.Name)}
        if any(bound_at < line < row for other in read for line, _ in bindings.get(other, ())):
            return None
        return value

    def _walk(self) -> _Bindings:
        if self._bindings is None:
            bindings: _Bindings = {}
            assigned: set[int] = set()  # targets of `name = value`, met again as stores
            for node in local_nodes(self._body):
                if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                    self._loops.append((node.lineno, node.end_lineno or node.lineno))
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    bindings.setdefault(node.targets[0].id, []).append((node.lineno, node.value))
                    assigned.add(id(node.targets[0]))
                elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in assigned:
                    bindings.setdefault(node.id, []).append((node.lineno, None))
            for found in bindings.values():
                found.sort(key=lambda binding: binding[0])
            self._bindings = bindings
        return self._bindings
