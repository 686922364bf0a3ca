"""Whether a public function reduces a model's layers or parameters to a result: a loss a compiled
training step adds (`loss = criterion(out, y) + get_kl_loss(model)`), public tensor API though its
signature names no tensor.

Bayesian layer libraries export such losses (bayesian_torch's `get_kl_loss(m)`, blitz's
`kl_divergence_from_nn(model)`): a loop over `m.modules()` (or `parameters()`, `children()`, their
`named_` forms, `buffers()`) that accumulates into a name the function returns, or a `sum(...)`
over one returned directly (an L2 penalty). A function that walks a model without returning what
it accumulated (`freeze(model)`, `init_weights(model)`) sets state and is no loss; a builder
(`dnn_to_bnn(model)`) creates parameters and stays out as every builder does (public_api.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.analysis.local_nodes import every_node, local_nodes
from graphmend_bot.analysis.tensor_uses import untyped_params

# nn.Module's walks over its layers and tensors.
WALKS = ("modules", "named_modules", "children", "named_children", "parameters", "named_parameters",
         "buffers", "named_buffers")
_WALK_TEXTS = tuple(f".{walk}(" for walk in WALKS)


def reduces_over_model(node: ast.FunctionDef | ast.AsyncFunctionDef, text: str) -> bool:
    """Whether the function returns what it accumulates over a parameter's layers (module docstring)."""
    if not any(walk in text for walk in _WALK_TEXTS) or not (params := untyped_params(node)):
        return False
    nodes = local_nodes(node.body)  # its own frame's loops and returns, not a nested function's
    accumulated = {
        name
        for loop in nodes
        if isinstance(loop, ast.For) and _walks(loop.iter, params)
        for statement in every_node(loop)
        if isinstance(statement, ast.Assign | ast.AugAssign)
        for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
        if isinstance(target, ast.Name)
        for name in [target.id]
    }
    return any(isinstance(part, ast.Return) and part.value is not None
               and (_names(part.value, accumulated) or _sum_over_walk(part.value, params)) for part in nodes)


def _walks(iterable: ast.expr, params: set[str]) -> bool:
    """`m.modules()`, `model.named_parameters()` on a parameter."""
    return (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr in WALKS and isinstance(iterable.func.value, ast.Name)
            and iterable.func.value.id in params)


def _names(value: ast.expr, names: set[str]) -> bool:
    return isinstance(value, ast.Name) and value.id in names


def _sum_over_walk(value: ast.expr, params: set[str]) -> bool:
    """`sum(p.pow(2).sum() for p in model.parameters())`."""
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "sum"
            and len(value.args) >= 1 and isinstance(value.args[0], ast.GeneratorExp | ast.ListComp)
            and any(_walks(generator.iter, params) for generator in value.args[0].generators))
