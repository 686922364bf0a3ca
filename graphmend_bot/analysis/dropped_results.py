"""Whether traced code drops what a call returns: `make(y)` as a statement of its own, or
`f = make(y)` when the function never reads `f` again. A closure a factory returns runs only where
its result is called or handed on (Dynamo traces it there); one dropped is never called, so the
scope walk does not reach it (measured on torch 2.13: tests/test_scope_closures.py).

Asked only for the few call sites whose callee returns a nested function, so the caller's module
is parsed lazily, once, here rather than in every summary. Anything unclear counts as a use.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

Definition = ast.FunctionDef | ast.AsyncFunctionDef


def result_dropped(tree: ast.Module, qualname: str, row: int, ref: str) -> bool:
    """Whether the function `qualname` of `tree` drops every result of its calls of `ref` on `row`."""
    kind, _, callee = ref.partition(":")
    if row <= 0 or kind not in ("name", "dotted", "self"):
        return False  # `f(...)` of a local holding something, `super()...`: not followed here
    function = definition(tree, qualname)
    if function is None:
        return False
    name = callee.rpartition(".")[2]
    calls = statements = 0
    target_names: list[str] = []
    reads: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            reads.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            reads.update(node.names)  # bound for another scope: its reader is not seen here
        elif isinstance(node, ast.Call) and node.lineno == row and _called_name(node.func) == name:
            calls += 1
        elif isinstance(node, (ast.Expr, ast.Assign)) and _calls_on(node.value, row, name):
            statements += 1
            if isinstance(node, ast.Assign):
                if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                    return False  # unpacked, stored on an object, chained: kept
                target_names.append(node.targets[0].id)
    return calls > 0 and calls == statements and not reads.intersection(target_names)


def _calls_on(value: ast.expr, row: int, name: str) -> bool:
    return isinstance(value, ast.Call) and value.lineno == row and _called_name(value.func) == name


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def definition(tree: ast.Module, qualname: str) -> Definition | None:
    """The def `qualname` names (classes and functions nested by dots), through `if`/`try` blocks;
    None when the name is not found or is defined more than once (which one runs is not known)."""
    node: ast.AST = tree
    for part in qualname.split("."):
        found = [child for child in _definitions_in(node) if child.name == part]
        if len(found) != 1:
            return None
        node = found[0]
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _definitions_in(node: ast.AST) -> Iterator[Definition | ast.ClassDef]:
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield child
        elif isinstance(child, ast.stmt):
            stack.extend(ast.iter_child_nodes(child))


class DroppedResults:
    """result_dropped over the tree's modules, each parsed once on first ask."""

    def __init__(self, source_of: Callable[[str], str]) -> None:
        self._source_of = source_of
        self._trees: dict[str, ast.Module | None] = {}

    def __call__(self, path: str, qualname: str, row: int, ref: str) -> bool:
        tree = self.tree(path)
        return tree is not None and result_dropped(tree, qualname, row, ref)

    def tree(self, path: str) -> ast.Module | None:
        """The module parsed, None when it cannot be (shared with forwarded_callbacks)."""
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(self._source_of(path))
            except (OSError, SyntaxError, ValueError):
                self._trees[path] = None
        return self._trees[path]
