"""Boolean attributes a class keeps off unless its user turns them on: a branch test they open.

`if self.check_nans and torch.isnan(t).any():` converts the tensor only when `self.check_nans` is
true, and Dynamo specialises on a plain attribute: with the flag off it never reads the tensor
(measured on torch 2.13, tests/test_modes.py; torchio's `Image.read_and_check`). Such a finding
breaks on the calls that turn the flag on, so its message says so, like a mode (analysis/modes.py):
`(when `self.check_nans` is true)`.

A flag is off by default when `__init__` stores into it only a parameter whose default is `False`
(or `False` itself) and no method of the class stores `True` into it; a setter storing its
parameter (`set_check_nans(self, value)`) is a user turning it on, which the message names.

A module's own switch is one too: `DEBUG = False` at module level, bound nowhere else in the module
(no other module-level store, no `global DEBUG`). Dynamo reads a global as a constant, so with it
off `if DEBUG and torch.isnan(x).any():` and `if DEBUG:`'s body are never traced (measured on torch
2.13: tests/test_module_flags.py); the message says `(when `DEBUG` is true)`. A function binding
the name itself reads its own local, not the switch (`module_flags_of`).

So is a function's own parameter that defaults to `False` and that it never binds again
(torchdyn's `odeint(..., verbose: bool = False)`, `if verbose: warn(...)`): Dynamo specialises on a
bool argument, so with the default the arm is never traced; the message says `(when `verbose` is
true)` (`parameter_flags`, tests/test_module_flags.py).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from graphmend_bot.analysis.local_nodes import all_statements

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
GLOBAL = "global "  # how a module flag is kept among a class's attribute flags (no attribute has a space)


ON = "on "  # how a flag kept on is kept among the off ones: `if self.flag or x.any():` reads `x` when it is false
UNSET = "unset "  # and an attribute kept None: `if self.mask is not None and self.mask.any():` reads it once set


def off_flags(methods: Iterable[FunctionNode]) -> frozenset[str]:
    """The attributes (`NAME` of `self.NAME`) that a class with these methods keeps off by default,
    as ON + NAME those it keeps on (`True`, or a parameter defaulting to `True`, and nothing else
    stored but by a setter): `or` stops at one, so its tensors are read when the user turns it off;
    and as UNSET + NAME those it keeps None the same way (`self.mask is not None and ...`)."""
    methods = list(methods)
    init = next((method for method in methods if method.name == "__init__"), None)
    if init is None:
        return frozenset()
    # One state per attribute, read from `__init__`: a second store of another state (or of
    # anything else) refuses it for every state.
    defaults = _defaults(init.args)
    states: dict[str, object] = {}
    for name, value in _self_writes(init):
        state = _state(value, defaults)
        states[name] = state if states.get(name, state) is state else _MIXED
    flags = {name: state for name, state in states.items() if state is not _MIXED}
    if not flags:
        return frozenset()  # most classes: the other methods need no walk
    for method in methods:
        if method is not init:  # another method stores the same state, or a setter's parameter (a user's choice)
            for name, value in _self_writes(method):
                if name in flags and not isinstance(value, ast.Name) and not (
                        isinstance(value, ast.Constant) and value.value is flags[name]):
                    del flags[name]
    return frozenset(_PREFIX[state] + name for name, state in flags.items())


_PREFIX: dict[object, str] = {False: "", True: ON, None: UNSET}
_MIXED = object()  # no state: stored something else, or two states


def _state(value: ast.expr | None, defaults: dict[str, object]) -> object:
    """False, True or None where `value` is that constant or a parameter defaulting to it; else _MIXED."""
    if isinstance(value, ast.Constant):
        return value.value if value.value is False or value.value is True or value.value is None else _MIXED
    return defaults.get(value.id, _MIXED) if isinstance(value, ast.Name) else _MIXED


def _defaults(args: ast.arguments) -> dict[str, object]:
    """The parameters defaulting to `False`, `True` or `None`, with that default."""
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
    pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None]
    return {arg.arg: default.value for arg, default in pairs
            if isinstance(default, ast.Constant) and (default.value is False or default.value is True or default.value is None)}


def _kept(value: ast.expr | None, params: set[str], state: bool | None) -> bool:
    return (isinstance(value, ast.Constant) and value.value is state) or (
        isinstance(value, ast.Name) and value.id in params
    )


def _off(value: ast.expr | None, false_params: set[str]) -> bool:
    return _kept(value, false_params, False)


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


def module_flags(tree: ast.Module, source: str) -> frozenset[str]:
    """The names the module binds once, at module level, to `False`, and nowhere else."""
    if "= False" not in source:
        return frozenset()
    candidates = [s for s in tree.body if isinstance(s, (ast.Assign, ast.AnnAssign)) and _off(s.value, set())]
    if not candidates:  # most modules, `flag: bool = False` in signatures and bodies included
        return frozenset()
    stores: dict[str, int] = {}
    off: set[str] = set()
    for statement in tree.body:
        for target in _module_targets(statement):
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    stores[node.id] = stores.get(node.id, 0) + 1
        value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
        targets = _module_targets(statement)
        if len(targets) == 1 and isinstance(targets[0], ast.Name) and _off(value, set()):
            off.add(targets[0].id)
    if ":=" in source:  # `_ = (DEBUG := True)` (a function's own walrus counts too: no mode named, as before)
        for node in ast.walk(tree):
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                stores[node.target.id] = stores.get(node.target.id, 0) + 1
    # a name written as a string may be stored through it (`globals()["DEBUG"] = True`, `setattr(module, "DEBUG", True)`)
    flags = {name for name in off if stores[name] == 1 and f'"{name}"' not in source and f"'{name}'" not in source}
    if flags and "global" in source:
        flags -= {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
    return frozenset(flags)


def module_flags_of(flags: frozenset[str], function: FunctionNode, text: str) -> frozenset[str]:
    """`flags` as `function` reads them (GLOBAL + name): those it names and does not bind itself."""
    named = [name for name in flags if name in text]
    if not named:
        return frozenset()
    args = function.args
    bound = {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if arg}
    bound |= {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    return frozenset(GLOBAL + name for name in named if name not in bound)


def parameter_flags(function: FunctionNode) -> frozenset[str]:
    """The parameters of `function` that default to `False` and that it never binds (GLOBAL + name)."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = zip([*positional[len(positional) - len(args.defaults):], *args.kwonlyargs], [*args.defaults, *args.kw_defaults])
    off = {arg.arg for arg, default in defaults if isinstance(default, ast.Constant) and default.value is False}
    if not off:
        return frozenset()  # most functions: no walk
    off -= {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    return frozenset(GLOBAL + name for name in off)


def _module_targets(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.Assign):
        return statement.targets
    if isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        return [statement.target]
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [ast.Name(id=statement.name, ctx=ast.Store())]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [ast.Name(id=(alias.asname or alias.name).split(".")[0], ctx=ast.Store()) for alias in statement.names]
    # any other statement binds what it stores anywhere in it: a compound statement's block (`if ...:
    # DEBUG = True`, `for DEBUG in ...`, an import in a `try`, a `match` case and its capture `case DEBUG:`),
    # an expression's walrus
    stored: list[ast.expr] = []
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stored.append(node)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name is not None:
            stored.append(ast.Name(id=node.name, ctx=ast.Store()))
        elif isinstance(node, ast.alias):  # `try: from settings import DEBUG`
            stored.append(ast.Name(id=(node.asname or node.name).split(".")[0], ctx=ast.Store()))
    return stored
