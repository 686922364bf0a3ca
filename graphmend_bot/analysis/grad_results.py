"""A local that holds only what `torch.autograd.grad(..., create_graph=True)` returned: a gradient
with its own graph, which requires grad already, so `g.requires_grad_()` on it changes nothing and
Dynamo traces it (measured on torch 2.13: tests/test_grad_result_requires_grad.py; the call of
`autograd.grad` itself breaks, GB9186, and the gradient enters the resumed frame as an input that
requires grad). PINN code does this after every derivative (`der, = grad(u, t, create_graph=True)`
then `der.requires_grad_()`). Without `create_graph=True` the gradient needs no grad and the call
breaks, so only a literal true flag counts, and every binding of the name must be such a result.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

Resolve = Callable[[ast.expr], str | None]
AUTOGRAD_GRAD = "torch.autograd.grad"


def holds_created_graph_grad(function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, resolve: Resolve) -> bool:
    """`call` is `name.m(...)` on a local every binding of which in `function` is an element of an
    `autograd.grad(..., create_graph=True)` result: `g, = grad(...)`, `g = grad(...)[0]`,
    `for g in grad(...)`, `for x, g in zip(xs, grad(...))`, `for i, g in enumerate(grad(...))`."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if not isinstance(receiver, ast.Name):
        return False
    name, args = receiver.id, function.args
    if any(arg.arg == name for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if arg):
        return False
    bound = False
    for node in ast.walk(function):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        targets = _targets(node)
        if not any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
            continue
        if not _grad_binding(node, name, resolve):
            return False
        bound = True
    return bound


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


def _grad_binding(node: ast.AST, name: str, resolve: Resolve) -> bool:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
        if isinstance(target, (ast.Tuple, ast.List)):  # `g, = grad(...)`
            return _is_grad(value, resolve) and all(isinstance(e, ast.Name) for e in target.elts)
        return isinstance(value, ast.Subscript) and _is_grad(value.value, resolve)  # `g = grad(...)[0]`
    if isinstance(node, (ast.For, ast.comprehension)):
        source, target = node.iter, node.target
        if _is_grad(source, resolve):
            return isinstance(target, ast.Name)
        if not (isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and isinstance(target, ast.Tuple)):
            return False
        parts = source.args if source.func.id == "zip" else [None, *source.args] if source.func.id == "enumerate" else []
        return len(parts) == len(target.elts) and all(
            _is_grad(part, resolve) for part, element in zip(parts, target.elts)
            if isinstance(element, ast.Name) and element.id == name
        )
    return False


def _is_grad(node: ast.expr | None, resolve: Resolve) -> bool:
    """`torch.autograd.grad(..., create_graph=True)` by any import spelling."""
    return (
        isinstance(node, ast.Call) and resolve(node.func) == AUTOGRAD_GRAD
        and any(k.arg == "create_graph" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in node.keywords)
    )
