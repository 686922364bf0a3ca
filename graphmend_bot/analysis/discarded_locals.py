"""A local that a statement hands to a method and the function then never reads: `y.requires_grad_()`
on a tensor it built and leaves unused.

Dynamo breaks on `requires_grad_()` of a tensor the graph built only when that tensor, or one
computed from it, leaves the graph (torch/_dynamo/output_graph.py,
`_check_requires_grad_intermediate_outputs`, then GB8985 at the call on the restart): one nothing
reads again never does (measured on torch 2.13: tests/fixtures/precision/requires_grad_uses.py).
Aliases are what make this unsure, so any other read of the name, in a nested function too, counts.
"""

from __future__ import annotations

import ast


def discarded_receiver(function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> bool:
    """`call` is a statement of its own (its value unused) calling a method of a name `y.m(...)` that
    `function` binds (no parameter, global or nonlocal) and reads nowhere else."""
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
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
    return alone and bound
