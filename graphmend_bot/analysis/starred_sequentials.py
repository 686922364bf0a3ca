"""`self.net = nn.Sequential(*layers)` of a list `__init__` builds: what calling it returns.

An nn.Sequential returns what its last layer returns. When the layers come from a local list
(`layers = [nn.Linear(a, h)]`, then `layers.append(nn.Tanh())` in a loop) the last one is not
known statically, but when every layer the list is built from is a torch.nn layer returning a
tensor, so is the Sequential's output, whichever comes last (neurodiffeq's FCNN). Any other
binding of the list, or a layer of another kind, leaves the result unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from graphmend_bot.analysis.torch_layers import layer_result

_GROWING = ("append", "extend", "insert")


def last_layer(init: ast.FunctionDef, layers: ast.expr, callee: Callable[[ast.Call], str | None]) -> str | None:
    """A torch.nn layer returning a tensor, standing for the last layer of `nn.Sequential(*layers)`
    in `init`, when every layer of the local list `layers` is one; else None. Walked only for a
    Sequential built from a starred name (rare)."""
    if not isinstance(layers, ast.Name):  # `nn.Sequential(*[nn.Linear(d, d) for _ in range(n)])`
        return _tensor_layer(_listed(layers) or [], callee)
    name = layers.id
    elements: list[ast.expr] = []
    kept: set[int] = set()  # the list's loads that only grow it or unpack it into the Sequential
    loads: list[ast.Name] = []
    for node in ast.walk(init):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            loads.append(node)
        elif isinstance(node, ast.Starred) and isinstance(node.value, ast.Name):
            kept.add(id(node.value))
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(name in _bound(target) for target in targets):
                found = _listed(node.value)
                if found is None:
                    return None
                elements.extend(found)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.comprehension)):
            bound = node.target if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) else None
            if bound is not None and name in _bound(bound):
                return None
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _GROWING
              and isinstance(node.func.value, ast.Name) and node.func.value.id == name):
            kept.add(id(node.func.value))
            if node.func.attr == "extend":
                added = _listed(node.args[0]) if node.args else None
            else:
                added = node.args[-1:]
            if not added:
                return None
            elements.extend(added)
    if any(id(load) not in kept for load in loads):
        return None  # `layers[-1] = Head()`, `add_head(layers)`: a layer it cannot see (review27)
    return _tensor_layer(elements, callee)


def _tensor_layer(elements: list[ast.expr], callee: Callable[[ast.Call], str | None]) -> str | None:
    """The last of `elements` when every one builds a torch.nn layer returning a tensor."""
    callees = [callee(element) if isinstance(element, ast.Call) else None for element in elements]
    if not callees or any(c is None for c in callees):
        return None
    known = [c for c in callees if c is not None]
    result = layer_result(known)
    return known[-1] if result is not None and result.whole and result.elements is None else None


def _listed(value: ast.expr | None) -> list[ast.expr] | None:
    """The items a list display or comprehension holds, or None for any other value."""
    if isinstance(value, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in value.elts):
        return list(value.elts)
    if isinstance(value, ast.ListComp):
        return [value.elt]
    return None


def _bound(target: ast.expr) -> Iterable[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _bound(element)
    elif isinstance(target, ast.Starred):
        yield from _bound(target.value)
