"""Attributes that hold bound methods of their own object: what calling them runs.

torchsde's `ForwardSDE.__init__` picks its implementations once, by noise type:

    self.g_prod_and_gdg_prod = {
        NOISE_TYPES.diagonal: self.g_prod_and_gdg_prod_diagonal,
        NOISE_TYPES.additive: self.g_prod_and_gdg_prod_additive,
    }.get(sde.noise_type, self.g_prod_and_gdg_prod_default)

and the solver calls `self.sde.g_prod_and_gdg_prod(...)`. Dynamo follows the bound method and
traces it (measured on torch 2.13: the `requires_grad_()` inside breaks at its own line). The
summary records such an attribute as "methods:" and the names of the methods it may hold; the scope
solver resolves a call of the attribute to each of them (and their overrides), an
over-approximation like the rest of call resolution.
"""

from __future__ import annotations

import ast
from collections.abc import Container

from graphmend_bot.analysis.local_nodes import local_statements

PREFIX = "methods:"
# The class's forward hooks (`self.register_forward_pre_hook(self._pre)`, on a submodule too), kept
# among the attributes under a key no attribute can have, as "hooks:" and their names (not
# "methods:": no attribute holds them): nn.Module.__call__ runs them around forward, and Dynamo
# traces them there (measured on torch 2.13).
FORWARD_HOOKS = "forward hooks"
HOOKS_PREFIX = "hooks:"
_HOOK_REGISTRATIONS = ("register_forward_pre_hook", "register_forward_hook")


def bound_method_names(value: ast.expr, self_name: str = "self", hidden: Container[str] = ()) -> tuple[str, ...]:
    """The `self.NAME` values `value` may evaluate to, or () when it is none of the forms below.

    `self.m`; `{k: self.a, ...}.get(key, self.b)` and `{k: self.a, ...}[key]` (a dispatch table
    written in place); `self.a if cond else self.b`; `getattr(obj, "name", self.m)` (the default:
    the object's own method may be the one that runs; not when `hidden`, the builtin names a binding
    in scope hides, holds `getattr`)."""
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == self_name:
        return (value.attr,)
    if isinstance(value, ast.IfExp):
        return _union(value.body, value.orelse, self_name=self_name, hidden=hidden)
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Dict):
        return _union(*_dict_values(value.value), self_name=self_name, hidden=hidden)
    if not isinstance(value, ast.Call):
        return ()
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr == "get" and isinstance(func.value, ast.Dict):
        return _union(*_dict_values(func.value), *value.args[1:2], self_name=self_name, hidden=hidden)
    if isinstance(func, ast.Name) and func.id == "getattr" and len(value.args) == 3 and "getattr" not in hidden:
        return bound_method_names(value.args[2], self_name, hidden)
    return ()


def forward_hook_names(value: ast.expr, self_name: str = "self") -> tuple[str, ...]:
    """The methods `value` registers as forward hooks: `X.register_forward_hook(self.m, ...)`."""
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _HOOK_REGISTRATIONS
        and value.args
    ):
        return ()
    return bound_method_names(value.args[0], self_name)


def encode(names: tuple[str, ...], prefix: str = PREFIX) -> str:
    return prefix + ",".join(dict.fromkeys(names))


def decode(attribute: str, prefix: str = PREFIX) -> tuple[str, ...]:
    """The method names of an attribute recorded by `encode`, or () for any other attribute."""
    if not attribute.startswith(prefix):
        return ()
    return tuple(name for name in attribute[len(prefix):].split(",") if name)


def _dict_values(display: ast.Dict) -> list[ast.expr]:
    return [value for value in display.values if value is not None]  # `**other` has no value


def _union(*values: ast.expr, self_name: str, hidden: Container[str] = ()) -> tuple[str, ...]:
    found: list[str] = []
    for value in values:
        found.extend(name for name in bound_method_names(value, self_name, hidden) if name not in found)
    return tuple(found)


def display_methods(value: ast.expr, self_name: str) -> tuple[str, ...]:
    """The NAMEs of `(self.a, self.b)` or `[self.a, self.b]`: a tuple or list of the object's
    own bound methods, or () for any other value."""
    if not isinstance(value, (ast.Tuple, ast.List)):
        return ()
    names = tuple(element.attr for element in value.elts if isinstance(element, ast.Attribute)
                  and isinstance(element.value, ast.Name) and element.value.id == self_name)
    return names if len(names) == len(value.elts) else ()


class MethodTables:
    """Locals bound to a tuple or list of the object's bound methods (kornia's ColorJitter:
    `steps = (self._brightness_fn, ..., self._adjust_hue_turns)`, handed to a function that calls
    `steps[idx](...)`). Found on the first question: most methods pass no local on."""

    __slots__ = ("_body", "_table")

    def __init__(self, body: list[ast.stmt]) -> None:
        self._body = body
        self._table: dict[str, tuple[str, ...]] | None = None

    def get(self, name: str, self_name: str) -> tuple[str, ...]:
        if self._table is None:
            self._table = {}
            for statement in local_statements(self._body):
                target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else (
                    statement.target if isinstance(statement, ast.AnnAssign) else None)
                value = getattr(statement, "value", None)
                if isinstance(target, ast.Name) and value is not None and (names := display_methods(value, self_name)):
                    self._table[target.id] = (*self._table.get(target.id, ()), *names)
        return self._table.get(name, ())
