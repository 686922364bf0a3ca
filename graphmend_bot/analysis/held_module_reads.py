"""Where a traced method first reads `self.NAME`, as (row, column, NAME) in the order of its text.

Dynamo wraps a submodule when the frame first reads it, not only when it calls it: for a recurrent
module (GM613) the wrap itself fails, so `self._step(x, self.lstm)`, `self.lstm.hidden_size` and
`if self.lstm is not None:` break at that read (measured on torch 2.13:
tests/fixtures/rules/GM613_recurrent_module_call.py). The reads are taken from the method's source,
parsed again only for the methods of classes that hold such a module (held_module_calls.py asks).
A read passed to a function as an argument breaks again in the callee, at its first read of that
parameter: Dynamo runs the caller eagerly and traces the callee as a frame of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from graphmend_bot.analysis.model import FunctionSummary

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def self_attribute_reads(
    function: FunctionSummary,
    path: str,
    source_of: Callable[[str], str],
    parsed: dict[str, ast.Module | None],
) -> list[tuple[int, int, str]]:
    """The `self.NAME` loads of the method's own body (not of the functions or classes it defines),
    by row then column; empty for a static method or a method that cannot be found or parsed."""
    if not function.params or {"staticmethod", "classmethod"} & set(function.decorators):
        return []
    definition = function_definition(parsed_once(path, source_of, parsed), function.qualname)
    if definition is None:
        return []
    self_name = function.params[0]
    reads = [
        (node.lineno, node.col_offset + 1, node.attr)
        for node in _own_nodes(definition)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name) and node.value.id == self_name
    ]  # fmt: skip
    return sorted(reads)


def passed_to(
    function: FunctionSummary,
    path: str,
    source_of: Callable[[str], str],
    parsed: dict[str, ast.Module | None],
    read: tuple[int, int],
) -> tuple[str, int, int | str] | None:
    """The call that gets the read at (row, column) as an argument: its site's ref ("name:f",
    "self:m"), row, and the argument's position or keyword; None when it is no direct argument."""
    definition = function_definition(parsed_once(path, source_of, parsed), function.qualname)
    for node in _own_nodes(definition) if definition is not None else ():
        if not isinstance(node, ast.Call):
            continue
        arguments: list[tuple[int | str, ast.expr]] = [*enumerate(node.args)]
        arguments += [(keyword.arg, keyword.value) for keyword in node.keywords if keyword.arg]
        for place, argument in arguments:
            if (argument.lineno, argument.col_offset + 1) == read and isinstance(argument, ast.Attribute):
                ref = _ref(node.func, function.params[0])
                return (ref, node.lineno, place) if ref is not None else None
    return None


def first_parameter_read(
    function: FunctionSummary,
    path: str,
    source_of: Callable[[str], str],
    parsed: dict[str, ast.Module | None],
    parameter: str,
) -> tuple[int, int] | None:
    """(row, column) of the first read of `parameter` in the function's own body."""
    definition = function_definition(parsed_once(path, source_of, parsed), function.qualname)
    reads = [
        (node.lineno, node.col_offset + 1)
        for node in (_own_nodes(definition) if definition is not None else ())
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id == parameter
    ]
    return min(reads, default=None)


def _ref(func: ast.expr, self_name: str) -> str | None:
    if isinstance(func, ast.Name):
        return f"name:{func.id}"
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self_name:
        return f"self:{func.attr}"
    return None


def parsed_once(
    path: str, source_of: Callable[[str], str], parsed: dict[str, ast.Module | None]
) -> ast.Module | None:
    if path not in parsed:
        try:
            parsed[path] = ast.parse(source_of(path), filename=path)
        except (OSError, ValueError, SyntaxError, RecursionError):  # changed or gone since summarised
            parsed[path] = None
    return parsed[path]


def function_definition(tree: ast.Module | None, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def `qualname` ("Class.method", "outer.inner") names, through classes and defs."""
    body = tree.body if tree is not None else []
    found: ast.stmt | None = None
    for part in qualname.split("."):
        found = next((s for s in body if isinstance(s, _SCOPES[:3]) and s.name == part), None)
        if found is None:
            return None
        body = found.body
    return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _own_nodes(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    stack: list[ast.AST] = [statement for statement in definition.body if not isinstance(statement, _SCOPES)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, _SCOPES))
