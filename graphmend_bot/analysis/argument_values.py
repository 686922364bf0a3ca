"""A name that holds a value the caller passed in: a parameter, or an element of one a loop takes.

Dynamo treats a tensor that reaches the compiled frame from outside as a graph input (it has a
source), and some calls on one break whatever happens next: `requires_grad_(flag)` that changes its
flag is "Unsupported Tensor.requires_grad_() call" (GB0125, torch/_dynamo/variables/tensor.py,
method_requires_grad_), where the same call on a tensor the graph built breaks only if the tensor
leaves the graph. A parameter of a function that traced code calls may still be given a tensor the
caller built; what this module answers is only that the value is not one this function made.
"""

from __future__ import annotations

import ast

from graphmend_bot.analysis.discarded_locals import binds_name

Function = ast.FunctionDef | ast.AsyncFunctionDef


def holds_argument(function: Function, name: str) -> bool:
    """`name` is a parameter of `function` it never rebinds, or bound only by `for` loops over such a
    parameter (`for x in xs:`, `for i, x in enumerate(xs):`, `for x, y in zip(xs, ys):`)."""
    parameters = _parameters(function)
    bindings = [node for node in _own_nodes(function) if binds_name(node, name)]
    if name in parameters:
        return not bindings
    return bool(bindings) and all(
        isinstance(node, ast.For) and _element_of(node.target, node.iter, name, parameters, function)
        for node in bindings
    )


def _parameters(function: Function) -> set[str]:
    args = function.args
    every = (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
    return {arg.arg for arg in every if arg is not None} - {"self", "cls"}


def _own_nodes(function: Function) -> list[ast.AST]:
    """The nodes of `function`'s own scope: not those of nested functions, lambdas or classes."""
    nodes: list[ast.AST] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        nodes.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                pending.append(child)
    return nodes


def _element_of(target: ast.expr, iterable: ast.expr, name: str, parameters: set[str], function: Function) -> bool:
    """The loop `for target in iterable` binds `name` to an element of an unrebound parameter."""
    if isinstance(target, ast.Name) and target.id == name:
        return _unrebound_parameter(iterable, parameters, function)
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and isinstance(target, ast.Tuple)):
        return False
    if iterable.func.id == "enumerate" and len(iterable.args) == 1 and len(target.elts) == 2:
        return _element_of(target.elts[1], iterable.args[0], name, parameters, function)
    if iterable.func.id == "zip" and len(iterable.args) == len(target.elts):
        return any(
            _element_of(element, source, name, parameters, function)
            for element, source in zip(target.elts, iterable.args, strict=True)
        )
    return False


def _unrebound_parameter(node: ast.expr, parameters: set[str], function: Function) -> bool:
    return (
        isinstance(node, ast.Name)
        and node.id in parameters
        and not any(binds_name(other, node.id) for other in _own_nodes(function))
    )
