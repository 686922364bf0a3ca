"""Where Dynamo meets an uninitialized nn.Module in an `__init__` it traces as its own frame (GM606).

Measured on torch 2.13 (tests/fixtures/rules/GM606_uninitialized_module_init.py): Dynamo breaks
("Attempted to trace an uninitialized nn.Module") at the first use of `self` while the module's
`__dict__` is empty, which is the `super().__init__(...)` call, or an attribute of `self` read or
written before it (`self.n = n`, then `super().__init__()`: the break is on the first line, and none
on the call).
"""

from __future__ import annotations

import ast

from graphmend_bot.analysis.local_nodes import every_node


def first_self_use(init: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, self_name: str | None) -> ast.expr | None:
    """The first attribute of `self` used by a top-level statement of `init` before the one holding
    `call`; None when there is none (or `call` is nested in one such statement)."""
    if self_name is None:
        return None
    for statement in init.body:
        nodes = every_node(statement)
        uses = [node for node in nodes if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name) and node.value.id == self_name]
        if any(node is call for node in nodes):
            return None
        if uses:
            return min(uses, key=lambda node: (node.lineno, node.col_offset))
    return None
