"""Lines of a function that run only when a caller passes a parameter a value that can be true.

`if verbose:` in `def __init__(self, verbose=False)` runs its body only when the call passes
`verbose` something truthy: a call that leaves it at its default never runs the body, and nor does
one passing a falsy literal (`verbose=False`, `log=None`). A break there is none of that call's
(measured on torch 2.13: `with Chatty("quiet"):` compiles with fullgraph=True, `with
Chatty("loud", verbose=True):` breaks at the `print` and at the `with`;
tests/fixtures/rules/GM684_manager_built_by_breaking_call.py). The tests read as such a guard are
`p`, `p is not None` (default None) and an `and` whose first operand is one of them: with `p` at
its default, nothing else in the statement runs. `self.p` after a statement `self.p = p` of the
method's own body (the attribute stored nowhere else in it) is `p`. A parameter the function
rebinds is no guard.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable

from graphmend_bot.analysis.local_nodes import every_node, fields_present

# (parameter, its position after `self` or None for a keyword-only one, whether the test is
# `is not None`, first row, last row)
Guard = tuple[str, int | None, bool, int, int]
# What a call passes: (position or keyword, "none" for a literal None, "falsy" for another falsy
# literal, "" for anything else); None when a `*args` or `**kwargs` hides what it passes.
Passed = tuple[tuple[int | str, str], ...] | None

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_block_fields = fields_present(("body", "orelse", "finalbody", "handlers", "cases"))


def method_guards(node: ast.FunctionDef | ast.AsyncFunctionDef, attributes: bool = True) -> tuple[Guard, ...]:
    """The rows of `node` (a method: its first parameter is the instance) that run only when a
    parameter with a falsy default is passed a truthy value: the `if` statements testing it.
    `attributes`: whether `self.p` stored from `p` counts as `p` (an `__init__`'s guards); not in
    another method, where a call between the store and the test may store `self.p` again (a
    `self.helper()` setting `self.verbose = True`: Dynamo breaks under `if self.verbose:`)."""
    defaults = _falsy_defaults(node.args)
    if not defaults:
        return ()
    found: list[Guard] = []
    read = _parameter_reader(node, defaults) if attributes else _parameter_only(defaults)
    pending: list[ast.AST] = list(node.body)
    while pending:
        statement = pending.pop()
        if isinstance(statement, _SCOPES):
            continue
        if isinstance(statement, ast.If) and (guard := _guard(statement.test, defaults, read)) is not None:
            name, tests_none = guard
            last = statement.body[-1].end_lineno or statement.lineno
            found.append((name, defaults[name][0], tests_none, statement.lineno, last))
        for field in _block_fields(type(statement)):
            block = getattr(statement, field, None)
            if isinstance(block, list):
                pending.extend(block)
    if found:  # walked only when there is a guard: most constructors have none
        rebound = _rebound(node)
        found = [guard for guard in found if guard[0] not in rebound]
    return tuple(sorted(found, key=lambda guard: guard[3]))


def passed_arguments(call: ast.Call) -> Passed:
    """What `call` passes, by position and keyword: which values are falsy literals."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return None
    positional = [(index, _literal(arg)) for index, arg in enumerate(call.args)]
    return (
        *positional,
        *((keyword.arg, _literal(keyword.value)) for keyword in call.keywords if keyword.arg),
    )


def dead_rows(guards: tuple[Guard, ...], passed: Passed) -> list[tuple[int, int]]:
    """The row ranges of `guards` a call passing `passed` never runs: the parameter is left at its
    default, or given None, or (a test of its truth) another falsy literal."""
    if passed is None:
        return []
    values = dict(passed)
    dead = []
    for name, position, tests_none, first, last in guards:
        value = values.get(name, values.get(position, "none") if position is not None else "none")
        if value == "none" or (value == "falsy" and not tests_none):
            dead.append((first, last))
    return dead


def _falsy_defaults(args: ast.arguments) -> dict[str, tuple[int | None, object]]:
    """Parameters after the first whose default is a falsy literal: (position after the first, value)."""
    positional = [*args.posonlyargs, *args.args]
    found: dict[str, tuple[int | None, object]] = {}
    for index, (arg, default) in enumerate(
        zip(positional[len(positional) - len(args.defaults) :], args.defaults),
        len(positional) - len(args.defaults),
    ):
        if index > 0 and _falsy(default):
            assert isinstance(default, ast.Constant)
            found[arg.arg] = (index - 1, default.value)
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults):
        if kw_default is not None and _falsy(kw_default):
            assert isinstance(kw_default, ast.Constant)
            found[arg.arg] = (None, kw_default.value)
    return found


def _falsy(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and not node.value


def _literal(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and node.value is None:
        return "none"
    return "falsy" if _falsy(node) else ""


def _guard(
    test: ast.expr, defaults: dict[str, tuple[int | None, object]], read: Callable[[ast.expr], str | None]
) -> tuple[str, bool] | None:
    """(parameter, whether the test is `is not None`) of a test false at the parameter's default;
    `read`: the falsy-defaulted parameter an operand is (`_parameter_reader`)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        test = test.values[0]
    if (name := read(test)) is not None:
        return name, False
    if (
        isinstance(test, ast.Compare)
        and (name := read(test.left)) is not None
        and defaults[name][1] is None
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return name, True
    return None


def _parameter_reader(
    node: ast.FunctionDef | ast.AsyncFunctionDef, defaults: dict[str, tuple[int | None, object]]
) -> Callable[[ast.expr], str | None]:
    """What an operand reads of the falsy-defaulted parameters: `p` itself, or `self.p` on a row
    after a statement `self.p = p` of the method's body when nothing else in it stores `self.p`
    (`self.verbose = verbose` then `if self.verbose:`)."""
    positional = [*node.args.posonlyargs, *node.args.args]
    instance = positional[0].arg if positional else None
    stored: dict[str, tuple[str, int]] | None = None  # found at the first `self.x` test: most have none

    def read(operand: ast.expr) -> str | None:
        nonlocal stored
        if isinstance(operand, ast.Name):
            return operand.id if operand.id in defaults else None
        if not (isinstance(operand, ast.Attribute) and isinstance(operand.value, ast.Name)
                and operand.value.id == instance):
            return None
        if stored is None:
            stored = _stored_parameters(node, operand.value.id, defaults)
        parameter, row = stored.get(operand.attr, ("", operand.lineno))
        return parameter if row < operand.lineno else None

    return read


def _parameter_only(defaults: dict[str, tuple[int | None, object]]) -> Callable[[ast.expr], str | None]:
    """The falsy-defaulted parameter an operand is: `p` itself only."""

    def read(operand: ast.expr) -> str | None:
        return operand.id if isinstance(operand, ast.Name) and operand.id in defaults else None

    return read


def _stored_parameters(
    node: ast.FunctionDef | ast.AsyncFunctionDef, instance: str, defaults: dict[str, tuple[int | None, object]]
) -> dict[str, tuple[str, int]]:
    """attribute -> (parameter, row) for each statement `self.attribute = parameter` of `node`'s
    body (not nested in a block), the attribute stored nowhere else in `node`."""
    stores = Counter(
        n.attr for n in every_node(node)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)
        and n.value.id == instance
    )
    stored: dict[str, tuple[str, int]] = {}
    for statement in node.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == instance
            and stores[target.attr] == 1
            and isinstance(statement.value, ast.Name)
            and statement.value.id in defaults
        ):
            stored[target.attr] = (statement.value.id, statement.lineno)
    return stored


def _rebound(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Every name the function stores to (nested scopes included: a `nonlocal` there rebinds it)."""
    return {n.id for n in every_node(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
