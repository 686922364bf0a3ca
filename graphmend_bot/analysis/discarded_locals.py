"""A local that a statement hands to a method and the function then never reads: `y.requires_grad_()`
on a tensor it built and leaves unused.

Dynamo breaks on `requires_grad_()` of a tensor the graph built only when that tensor, or one
computed from it, leaves the graph (torch/_dynamo/output_graph.py,
`_check_requires_grad_intermediate_outputs`, then GB8985 at the call on the restart): one nothing
reads again never does (measured on torch 2.13: tests/fixtures/precision/requires_grad_uses.py).
Aliases are what make this unsure, so any other read of the name, in a nested function too, counts,
and so does every binding that may hand the name a tensor something else still holds: `y = z`,
`for y in outs:`, `a, y = pair`, `y = ident(z)` (a helper Dynamo inlines returns the very tensor)
all break when `z` or `outs` leaves the graph. Only a binding to a value an operator, a torch function
or a tensor method computed counts: Dynamo tracks each such result as a tensor of its own, even
`z.contiguous()`, `z.view(-1)` or `torch.as_tensor(z)` (measured in the fixture).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from graphmend_bot.analysis.grad_results import holds_created_graph_grad

Resolve = Callable[[ast.expr], str | None]


def requires_grad_traces(function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, resolve: Resolve) -> bool:
    """`y.requires_grad_()` that Dynamo traces: on a local nothing reads again (below), or on a
    gradient built with its own graph, which requires grad already (analysis/grad_results.py)."""
    return discarded_receiver(function, call, resolve) or holds_created_graph_grad(function, call, resolve)


def discarded_receiver(
    function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, resolve: Resolve
) -> bool:
    """`call` is a statement of its own (its value unused) calling a method of a name `y.m(...)` that
    `function` binds only to new values (no parameter, global or nonlocal) and reads nowhere else."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if not isinstance(receiver, ast.Name):
        return False
    name, args = receiver.id, function.args
    if any(
        arg.arg == name
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
        if arg
    ):
        return False
    alone = bound = False
    for node in ast.walk(function):
        if isinstance(node, ast.Expr) and node.value is call:
            alone = True
        elif isinstance(node, ast.Name) and node.id == name:
            if isinstance(node.ctx, ast.Load) and node is not receiver:
                return False
            bound |= isinstance(node.ctx, ast.Store)
        elif binds_name(node, name) and not _fresh(node, resolve):
            return False  # `y = z`, `for y in outs`: y may be a tensor that leaves the graph
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
    return alone and bound


def binds_name(node: ast.AST, name: str) -> bool:
    """`node` is a statement or expression that binds `name` (assignment, loop, with, walrus, ...)."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(
        node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension)
    ):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    return any(isinstance(n, ast.Name) and n.id == name for target in targets for n in ast.walk(target))


def _fresh(node: ast.AST, resolve: Resolve) -> bool:
    """A binding `name = value` (or `name: T = value`) of a tensor no other name holds."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        value: ast.expr | None = node.value
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        value = node.value
    else:
        return False
    if isinstance(value, (ast.BinOp, ast.UnaryOp)):
        return True  # an operator's result is a new tensor
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    resolved = resolve(func)
    if resolved is None:  # a method of a local, `z.clone()`, `z.view(-1)`; not the class's own
        owner = func.value if isinstance(func, ast.Attribute) else None
        return owner is not None and not (isinstance(owner, ast.Name) and owner.id in ("self", "cls"))
    return resolved.startswith("torch.")
