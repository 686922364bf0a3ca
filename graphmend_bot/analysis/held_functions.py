"""Attributes that hold functions of the tree: what calling them runs.

vector_quantize_pytorch's codebook picks a transform once, in `__init__`:

    self.transform_input = identity if not use_cosine_sim else l2norm

and `forward` calls `self.transform_input(x)`. Dynamo calls the function the attribute holds and
traces it (measured on torch 2.13). The summary records such an attribute as "functions:" and the
names it may hold (resolved through the module's imports); the scope solver resolves a call of the
attribute to each in-tree function among them, an over-approximation like the rest of call
resolution. A name bound in `__init__` itself (a parameter, a local) is a value passed in, not a
function of the module, and is left out, unless its default names one: `self.distance = distance`
for `distance=pairwise_l2` holds `pairwise_l2` when the caller passes none. Either side of `a or b`
may be held too (torchmetrics' `kwargs.pop("fn", None) or jit_distributed_available`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Mapping

PREFIX = "functions:"
# The functions `__init__` stores from a parameter's default (`self.reader = reader` for
# `reader=read_image`), kept among the class's attributes under a key no attribute can have. Dynamo
# binds a default of a method called on an object it built with no source, so an object holding
# one cannot be rebuilt (measured on torch 2.13: GB0092, held_objects.py); one the caller passed,
# or a module global stored by name, has a source.
DEFAULT_FUNCTIONS = "default functions"
DEFAULTS_PREFIX = "defaults:"


def held_function_names(
    value: ast.expr, local_names: Container[str], resolve: Callable[[ast.expr], str | None],
    defaults: Mapping[str, ast.expr] | None = None,
) -> tuple[str, ...]:
    """The module-level names `value` may evaluate to: `f`, `mod.f`, `a if cond else b` and `a or b`
    (each side; a side that is no name, a lambda or a call, adds nothing), a parameter's default
    (`defaults`: parameter -> its default), or () for anything else."""
    sides = [value.body, value.orelse] if isinstance(value, ast.IfExp) else (
        value.values if isinstance(value, ast.BoolOp) else None)
    if sides is not None:
        return tuple(dict.fromkeys(
            name for side in sides for name in held_function_names(side, local_names, resolve, defaults)))
    root = value
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(value, ast.Name) and defaults and (default := defaults.get(value.id)) is not None:
        return held_function_names(default, local_names, resolve)  # evaluated where the function is defined
    if not isinstance(root, ast.Name) or root.id in local_names or root.id == "self":
        return ()
    name = resolve(value)
    return (name,) if name else ()


def default_function_names(
    value: ast.expr, defaults: Mapping[str, ast.expr], resolve: Callable[[ast.expr], str | None],
) -> tuple[tuple[str, str], ...]:
    """(parameter, module-level name) for each function `value` may take from a parameter's
    default: the parameter itself, or a side of `a if cond else b` / `a or b` that is one."""
    sides = [value.body, value.orelse] if isinstance(value, ast.IfExp) else (
        value.values if isinstance(value, ast.BoolOp) else None)
    if sides is not None:
        return tuple(dict.fromkeys(pair for side in sides for pair in default_function_names(side, defaults, resolve)))
    if isinstance(value, ast.Name) and (default := defaults.get(value.id)) is not None:
        return tuple((value.id, name) for name in held_function_names(default, (), resolve))
    return ()


def encode_defaults(pairs: tuple[tuple[str, str], ...]) -> str:
    return DEFAULTS_PREFIX + ",".join(f"{param}={name}" for param, name in dict.fromkeys(pairs))


def decode_defaults(attribute: str) -> tuple[tuple[str, str], ...]:
    """The (parameter, function name) pairs recorded by `encode_defaults`."""
    if not attribute.startswith(DEFAULTS_PREFIX):
        return ()
    return tuple(
        (param, name) for entry in attribute[len(DEFAULTS_PREFIX):].split(",") if entry
        for param, _, name in [entry.partition("=")]
    )


def encode(names: tuple[str, ...]) -> str:
    return PREFIX + ",".join(names)


def decode(attribute: str) -> tuple[str, ...]:
    """The names of an attribute recorded by `encode`, or () for any other attribute."""
    if not attribute.startswith(PREFIX):
        return ()
    return tuple(name for name in attribute[len(PREFIX):].split(",") if name)


def class_body_functions(
    stmt: ast.stmt, resolve: Callable[[ast.expr], str | None], hidden: Container[str] = ()
) -> tuple[str, tuple[str, ...]] | None:
    """A class attribute that holds functions, as (attribute, names): `stat = staticmethod(f)` or
    `act = f` gives ("stat", (f,)); a table, `KERNELS = {"rbf": rbf, "linear": linear}` or a list
    or tuple of them, gives ("KERNELS[]", ...), what `self.KERNELS[kind](x)` calls. Dynamo calls
    the function the attribute holds (measured on torch 2.13); None for any other statement.
    `hidden`: the builtin names a module binding hides (a module's own `staticmethod`)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    name, value = stmt.targets[0].id, stmt.value
    if isinstance(value, (ast.Dict, ast.List, ast.Tuple)):
        elements = value.values if isinstance(value, ast.Dict) else value.elts
        held = tuple(dict.fromkeys(found for element in elements for found in _held(element, resolve, hidden)))
        return (f"{name}[]", held) if held else None
    held = _held(value, resolve, hidden)
    return (name, held) if held else None


def _held(value: ast.expr, resolve: Callable[[ast.expr], str | None], hidden: Container[str]) -> tuple[str, ...]:
    """`f`, `mod.f` or `staticmethod(f)`: the names of the module-level functions it may be."""
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "staticmethod"
            and "staticmethod" not in hidden
            and len(value.args) == 1):
        value = value.args[0]
    if isinstance(value, ast.Call):
        return ()
    return held_function_names(value, (), resolve)

