"""What the syntax of an assignment, a return or a loop says on its own, before any kind is known:
the pure helpers of the statement layer (function_statements.py)."""

from __future__ import annotations

import ast

from graphmend_bot.analysis.function_state import Env
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind


def bound_names(target: ast.expr) -> list[str]:
    """The names an assignment of a call binds to its whole result or one element of it
    (`tokens = f()`, `a, tokens = f()`), not those a starred target collects."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        return [element.id for element in target.elts if isinstance(element, ast.Name)]
    return []


def output_fields(value: ast.expr, env: Env) -> tuple[Kind, ...] | None:
    """`return Output(a, b, c)` beside `return (a, b, c)` (transformers' `return_dict`): what
    unpacking or indexing it gives at position k is one of the fields from k on (a ModelOutput
    skips its None fields; a named tuple is exact). Only for locals and constants passed by position,
    whose kinds are read without evaluating anything twice."""
    if not (isinstance(value, ast.Call) and not value.keywords and value.args
            and all(isinstance(arg, (ast.Name, ast.Constant)) for arg in value.args)):
        return None
    name = dotted_name(value.func)
    if name is None or not name.rpartition(".")[2][:1].isupper():
        return None  # a class by its name, as _names_a_class reads a constructor
    kinds = [env.get(arg.id, NOT_TENSOR) if isinstance(arg, ast.Name) else NOT_TENSOR for arg in value.args]
    return tuple(Kind.union(kinds[k:]) for k in range(len(kinds)))


def submodule_iteration(node: ast.For | ast.AsyncFor) -> tuple[str, str] | None:
    """`for layer in self.layers` / `for i, layer in enumerate(self.layers)`: (layer, ref)."""
    source, target = node.iter, node.target
    if (
        isinstance(source, ast.Call)
        and isinstance(source.func, ast.Name)
        and source.func.id == "enumerate"
        and len(source.args) == 1
        and isinstance(target, ast.Tuple)
        and len(target.elts) == 2
    ):
        source, target = source.args[0], target.elts[1]
    if (
        isinstance(target, ast.Name)
        and isinstance(source, ast.Attribute)
        and isinstance(source.value, ast.Name)
        and source.value.id == "self"
    ):
        return target.id, f"self:{source.attr}[]"
    return None
