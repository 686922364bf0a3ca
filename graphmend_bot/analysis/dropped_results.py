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
_NAMESPACE_READERS = frozenset({"locals", "vars", "eval", "exec"})


class _Uses:
    """One walk of a function: the names it reads, and per (row, callee name) its calls and the
    statements that are such a call alone (None for `make(y)`, the name for `f = make(y)`, "" for
    a target that is no plain name: unpacked, stored on an object, chained)."""

    def __init__(self, function: Definition) -> None:
        self.reads: set[str] = set()
        self.calls: dict[tuple[int, str], int] = {}
        self.statements: dict[tuple[int, str], list[str | None]] = {}
        self.handed_on: set[str] = set()  # names read other than as a returned value (kept_elsewhere)
        returned: set[int] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Return) and node.value is not None:
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                returned.update(id(value) for value in values if isinstance(value, ast.Name))
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                self.reads.add(node.id)
                if id(node) not in returned:
                    self.handed_on.add(node.id)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.reads.update(node.names)  # bound for another scope: its reader is not seen here
            elif isinstance(node, ast.Call) and (name := _called_name(node.func)) is not None:
                key = (node.lineno, name)
                self.calls[key] = self.calls.get(key, 0) + 1
            if isinstance(node, (ast.Expr, ast.Assign)) and isinstance(call := node.value, ast.Call) and (
                    name := _called_name(call.func)) is not None:
                target: str | None = None
                if isinstance(node, ast.Assign):
                    plain = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    target = node.targets[0].id if plain and isinstance(node.targets[0], ast.Name) else ""
                self.statements.setdefault((call.lineno, name), []).append(target)

    def dropped(self, row: int, name: str) -> bool:
        calls = self.calls.get((row, name), 0)
        statements = self.statements.get((row, name), [])
        if "" in statements or self.reads.intersection(_NAMESPACE_READERS):
            return False  # kept on an object or unpacked; `locals()["f"](x)`: every local may be read
        return calls > 0 and calls == len(statements) and not self.reads.intersection(
            target for target in statements if target is not None)


def result_dropped(tree: ast.Module, qualname: str, row: int, ref: str) -> bool:
    """Whether the function `qualname` of `tree` drops every result of its calls of `ref` on `row`."""
    kind, _, callee = ref.partition(":")
    if row <= 0 or kind not in ("name", "dotted", "self"):
        return False
    function = definition(tree, qualname)
    return function is not None and _Uses(function).dropped(row, callee.rpartition(".")[2])


def kept_elsewhere(tree: ast.Module, factory: str, closure: str) -> bool:
    """Whether the function `factory` of `tree` hands its nested function `closure` on other than by
    returning it (`self.fn = inner`, `REGISTRY.append(inner)`, `hooks[k] = inner`): then a caller
    that drops the result still reaches it (measured on torch 2.13: tests/test_dropped_results.py)."""
    function = definition(tree, factory)
    return function is None or closure in _Uses(function).handed_on


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
    """result_dropped and kept_elsewhere over the tree's modules, each parsed once on first ask and
    each function walked once (a caller with thousands of factory calls asks once per site)."""

    def __init__(self, source_of: Callable[[str], str]) -> None:
        self._source_of = source_of
        self._trees: dict[str, ast.Module | None] = {}
        self._uses: dict[tuple[str, str], _Uses | None] = {}

    def __call__(self, path: str, qualname: str, row: int, ref: str) -> bool:
        kind, _, callee = ref.partition(":")
        if row <= 0 or kind not in ("name", "dotted", "self"):
            return False  # `f(...)` of a local holding something, `super()...`: not followed here
        uses = self._function_uses(path, qualname)
        return uses is not None and uses.dropped(row, callee.rpartition(".")[2])

    def kept_elsewhere(self, path: str, factory: str, closure: str) -> bool:
        uses = self._function_uses(path, factory)
        return uses is None or closure in uses.handed_on

    def _function_uses(self, path: str, qualname: str) -> _Uses | None:
        if (path, qualname) not in self._uses:
            tree = self.tree(path)
            function = definition(tree, qualname) if tree is not None else None
            self._uses[path, qualname] = _Uses(function) if function is not None else None
        return self._uses[path, qualname]

    def tree(self, path: str) -> ast.Module | None:
        """The module parsed, None when it cannot be (shared with forwarded_callbacks)."""
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(self._source_of(path))
            except (OSError, SyntaxError, ValueError):
                self._trees[path] = None
        return self._trees[path]
