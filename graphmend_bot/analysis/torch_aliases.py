"""Module-level names bound once to a torch attribute: `same_values = torch.equal`, `T = torch.Tensor`.

A call through such a name is the torch call (Dynamo sees the same function object): `same_values(a,
b)` breaks as `torch.equal(a, b)` does ("Data dependent operator", measured on torch 2.13,
benchmarks/spellings/dd_equal_spellings.py). A name the module binds twice may hold anything, and
one an import binds keeps what the import says.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable


def torch_aliases(tree: ast.Module, resolve: Callable[[ast.expr], str | None]) -> dict[str, str]:
    """NAME -> the qualified torch name, for each module-level `NAME = torch.attr...` bound once."""
    bindings = Counter(name for stmt in tree.body for name in _bound_names(stmt))
    aliases: dict[str, str] = {}
    for stmt in tree.body:
        if not (
            isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
        ):
            continue
        name = stmt.targets[0].id
        if bindings[name] == 1 and isinstance(stmt.value, ast.Attribute):
            resolved = resolve(stmt.value)
            if resolved is not None and resolved.startswith("torch."):
                aliases[name] = resolved
    return aliases


def _bound_names(stmt: ast.stmt) -> list[str]:
    """The names a top-level statement binds, in its nested blocks too (`if`, `try`, `for`)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]  # a def's own body binds its locals, not the module's
    names = [
        node.id for node in ast.walk(stmt) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    ]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        names += [alias.asname or alias.name.split(".", 1)[0] for alias in stmt.names]
    return names
