"""Submodule containers whose iterator is a dict iterator, and the comprehensions iterating them.

torch.nn's `ModuleList` and `Sequential` iterate `iter(self._modules.values())`, a `ModuleDict`
`iter(self._modules)`: a dict iterator, as a comprehension over `d.values()` is handed. Before
Python 3.12 the comprehension is a frame of its own; when a call inside it breaks, Dynamo cannot
rebuild that iterator to resume after the call and breaks at the comprehension too ("Reconstruction
failure", GB0092, measured on torch 2.13: `[layer(x) for layer in self.layers]`, over a slice
`self.layers[:2]`, a set comprehension, one filtered by `if`, `zip(self.layers, ws)`, a ModuleDict's
`.items()`; GM624). Not over `enumerate(self.layers)`, `reversed(self.layers)`, `list(self.layers)`
or in a generator expression a list or tuple takes (measured: no break there), nor over a plain list
of modules. A filter testing the submodules' type may keep only those that trace: not reported. Which attributes hold one: those `__init__` assigns a
container built by name (`self.layers = nn.ModuleList(...)`), the only ones a method can know.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

_NAMES = ("ModuleList", "Sequential", "ModuleDict")
# What `nn.ModuleList` and the others resolve to through the imports (torch.nn re-exports them).
_CONTAINERS = frozenset(
    f"torch.nn.{path}{name}" for path in ("", "modules.", "modules.container.") for name in _NAMES
)


def may_build(source: str) -> bool:
    """Whether a module's source names a container at all: most files are skipped unread."""
    return any(name in source for name in _NAMES)


def container_attributes(init: ast.FunctionDef | ast.AsyncFunctionDef,
                         resolve: Callable[[ast.expr], str | None]) -> frozenset[str]:
    """The attributes `__init__` assigns a submodule container: `self.NAME = nn.ModuleList(...)`."""
    if not init.args.args:
        return frozenset()
    self_name = init.args.args[0].arg
    return frozenset(
        target.attr
        for node in _assignments(init.body)
        if isinstance(node.value, ast.Call) and _named(node.value.func) and resolve(node.value.func) in _CONTAINERS
        for target in node.targets
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name
    )


def _named(func: ast.expr) -> bool:
    """The callee's last name is a container's (resolved only then)."""
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in _NAMES


def _assignments(body: list[ast.stmt]) -> Iterator[ast.Assign]:
    """The assignments of `body` and of the blocks nested in it (not in nested functions or classes)."""
    for statement in body:
        if isinstance(statement, ast.Assign):
            yield statement
        elif not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(statement, field, ()):
                    yield from _assignments(child.body if isinstance(child, ast.ExceptHandler) else [child])


def iterates_container(iterable: ast.expr, self_name: str | None, containers: frozenset[str]) -> bool:
    """`self.NAME`, `self.NAME[a:b]` (a container again), `self.NAME.items()` (`.keys()`, `.values()`)
    or `zip(..., self.NAME, ...)` for a container attribute NAME of the method's class."""
    if not containers or self_name is None:
        return False
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "zip":
        return any(iterates_container(argument, self_name, containers) for argument in iterable.args)
    if isinstance(iterable, ast.Subscript) and isinstance(iterable.slice, ast.Slice):
        iterable = iterable.value
    elif (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and not iterable.args
          and not iterable.keywords and iterable.func.attr in ("keys", "values", "items")):
        iterable = iterable.func.value  # a ModuleDict's views step its `_modules` dict too
    return (isinstance(iterable, ast.Attribute) and isinstance(iterable.value, ast.Name)
            and iterable.value.id == self_name and iterable.attr in containers)
