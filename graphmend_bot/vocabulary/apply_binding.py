"""Dynamo's binding of `Fn.apply(...)` when it drops `ctx`, and the flag test that then breaks.

Measured on torch 2.13 (`AutogradFunctionVariable.call_apply`, the path taken when no input
requires grad or grad is off): Dynamo inlines `forward` and drops its own `ctx` when
`len(args) == len(inspect.signature(forward).parameters)`, a check meant for a `forward` with no
`ctx` (one with `setup_context`). A static `forward(ctx, a, b, *args)` counts `*args` (and
`**kwargs`, keyword-only parameters) as one parameter each, so a call that passes it exactly two
extra values meets the count: every argument then binds one place over (`ctx` gets the first,
`a` the second, ...). A flag parameter handed a tensor that way makes `if flag:` a data-dependent
branch (GB0170; linear_operator's `Solve.forward`, tests/coverage_probes/gb0170_autograd_apply_*).

`ctx` then holds the first argument: storing on it (`ctx.has_left = has_left`) traces when that
is an object or a tensor, and breaks when it is a Python constant (GB0467 "setattr() on
unsupported type", `Fn.apply(False, x, y)`).

The scope solver passes each such call's arguments a second time, one place over, to names of
their own (`shifted(name)`; `shifted(name, onto_object=True)` too when the first argument is no
constant or plain Python value, an empty kind), so only a finding whose dependency is one of
those stands for them. A starred argument counts as one value, as in every other binding of the
solver.
"""

from __future__ import annotations

import ast

# No identifier holds a `:` or `-`: these names never meet a real parameter.
SHIFTED = "apply-shifted:"
SHIFTED_ONTO_OBJECT = "apply-shifted-ctx-object:"


def shifted(name: str, onto_object: bool = False) -> str:
    """The name under which `name` receives what Dynamo binds to it when it drops `ctx` (and,
    `onto_object`, the first argument, now `ctx`, may be an object or a tensor)."""
    return (SHIFTED_ONTO_OBJECT if onto_object else SHIFTED) + name


def first_flag_test(node: ast.FunctionDef) -> tuple[ast.expr, str, bool] | None:
    """The first `if` of a static `forward(ctx, ..., *args)` that tests one of its named
    parameters as a flag, `if has_left:` or `if ctx.has_left:` after `ctx.has_left = has_left`,
    with the parameter it tests and whether a store on `ctx` comes before it. Only statements
    that bind names or `ctx` attributes to names or constants may come before it: one that does
    more could break first under the shifted binding, and after the first break Dynamo runs
    `forward` as a frame of its own, bound right."""
    args = node.args
    if args.vararg is None or len(args.args) < 2:
        return None
    ctx = args.args[0].arg
    flags = {arg.arg for arg in args.args[1:]}
    stored: dict[str, str] = {}  # ctx attribute -> the parameter stored in it
    stores = False
    for statement in node.body:
        if isinstance(statement, ast.If):
            tested = _tested_name(statement.test, ctx, stored)
            return (statement.test, tested, stores) if tested in flags else None
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # a docstring
            return None
        target, value = statement.targets[0], statement.value
        if not isinstance(value, (ast.Name, ast.Constant)):
            return None
        if isinstance(target, ast.Name):
            flags.discard(target.id)  # rebound: no longer what the caller passed
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == ctx
        ):
            stores = True
            if isinstance(value, ast.Name) and value.id in flags:
                stored[target.attr] = value.id
            else:
                stored.pop(target.attr, None)
        else:
            return None
    return None


def _tested_name(test: ast.expr, ctx: str, stored: dict[str, str]) -> str | None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Name):
        return test.id
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == ctx:
        return stored.get(test.attr)
    return None
