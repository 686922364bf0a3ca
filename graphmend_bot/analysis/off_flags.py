"""Boolean attributes a class keeps off unless its user turns them on: a branch test they open.

`if self.check_nans and torch.isnan(t).any():` converts the tensor only when `self.check_nans` is
true, and Dynamo specialises on a plain attribute: with the flag off it never reads the tensor
(measured on torch 2.13, tests/test_modes.py; torchio's `Image.read_and_check`). Such a finding
breaks on the calls that turn the flag on, so its message says so, like a mode (analysis/modes.py):
`(when `self.check_nans` is true)`.

A flag is off by default when `__init__` stores into it only a parameter whose default is `False`
(or `False` itself) and no method of the class stores `True` into it; a setter storing its
parameter (`set_check_nans(self, value)`) is a user turning it on, which the message names.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from graphmend_bot.analysis.local_nodes import all_statements

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def off_flags(methods: Iterable[FunctionNode]) -> frozenset[str]:
    """The attributes (`NAME` of `self.NAME`) that a class with these methods keeps off by default."""
    methods = list(methods)
    init = next((method for method in methods if method.name == "__init__"), None)
    if init is None:
        return frozenset()
    false_params = _false_defaulted(init.args)
    flags = {name for name, value in _self_writes(init) if _off(value, false_params)}
    if not flags:
        return frozenset()  # most classes: the other methods need no walk
    refused: set[str] = set()
    for method in methods:
        for name, value in _self_writes(method):
            if name not in flags or _off(value, false_params if method is init else set()):
                continue
            if method is init or not isinstance(value, ast.Name):  # a setter's parameter: a user's choice
                refused.add(name)
    return frozenset(flags - refused)


def _off(value: ast.expr | None, false_params: set[str]) -> bool:
    return (isinstance(value, ast.Constant) and value.value is False) or (
        isinstance(value, ast.Name) and value.id in false_params
    )


def _false_defaulted(args: ast.arguments) -> set[str]:
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
    pairs += [
        (arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None
    ]
    return {arg.arg for arg, default in pairs if isinstance(default, ast.Constant) and default.value is False}


def _self_writes(method: FunctionNode) -> Iterable[tuple[str, ast.expr | None]]:
    """(NAME, value) of each `self.NAME = value` / `self.NAME += ...` (value None: not a plain store)."""
    for node in all_statements(method.body):
        targets: list[ast.expr]
        value: ast.expr | None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.AugAssign):
            targets, value = [node.target], None
        else:
            continue
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                yield target.attr, value
