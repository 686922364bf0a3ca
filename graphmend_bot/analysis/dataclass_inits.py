"""Classes whose `__init__` `@dataclass` writes: building one runs its `__post_init__`.

The generated `__init__` replaces any a base defines in source and ends with
`self.__post_init__()` when the class has one (its own or inherited: transformers' every
`@dataclass class BaseModelOutput(ModelOutput)` runs `ModelOutput.__post_init__`). Dynamo inlines
it (measured on torch 2.13: a break inside is reported there, tests/test_scope_edges.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.vocabulary.dotted_names import dotted_name

_DECORATORS = frozenset({"dataclass", "dataclasses.dataclass"})


def generates_init(node: ast.ClassDef) -> bool:
    """`@dataclass` or `@dataclasses.dataclass(...)` without `init=False`, on a class whose body
    defines no `__init__` of its own (which the decorator would keep)."""
    if any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__" for s in node.body
    ):
        return False
    for decorator in node.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        if dotted_name(call.func if call is not None else decorator) not in _DECORATORS:
            continue
        return call is None or not any(
            keyword.arg == "init" and isinstance(keyword.value, ast.Constant) and keyword.value.value is False
            for keyword in call.keywords
        )
    return False
