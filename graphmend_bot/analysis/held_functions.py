"""Attributes that hold functions of the tree: what calling them runs.

vector_quantize_pytorch's codebook picks a transform once, in `__init__`:

    self.transform_input = identity if not use_cosine_sim else l2norm

and `forward` calls `self.transform_input(x)`. Dynamo calls the function the attribute holds and
traces it (measured on torch 2.13). The summary records such an attribute as "functions:" and the
names it may hold (resolved through the module's imports); the scope solver resolves a call of the
attribute to each in-tree function among them, an over-approximation like the rest of call
resolution. A name bound in `__init__` itself (a parameter, a local) is a value passed in, not a
function of the module, and is left out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container

PREFIX = "functions:"


def held_function_names(
    value: ast.expr, local_names: Container[str], resolve: Callable[[ast.expr], str | None]
) -> tuple[str, ...]:
    """The module-level names `value` may evaluate to: `f`, `mod.f`, `a if cond else b` (each
    branch; a branch that is no name, a lambda or a call, adds nothing), or () for anything else."""
    if isinstance(value, ast.IfExp):
        return tuple(dict.fromkeys((*held_function_names(value.body, local_names, resolve),
                                    *held_function_names(value.orelse, local_names, resolve))))
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or root.id in local_names or root.id == "self":
        return ()
    name = resolve(value)
    return (name,) if name else ()


def encode(names: tuple[str, ...]) -> str:
    return PREFIX + ",".join(names)


def decode(attribute: str) -> tuple[str, ...]:
    """The names of an attribute recorded by `encode`, or () for any other attribute."""
    if not attribute.startswith(PREFIX):
        return ()
    return tuple(name for name in attribute[len(PREFIX):].split(",") if name)
