"""Locals that name a function chosen by the code around them: `fn = quadratic_spline` in one arm,
`fn = splines.rational_quadratic_spline` in the other, then `fn(inputs=x)` (nflows' transforms).

The call runs one of them with the call's arguments, so each is recorded as a call site of its
own: the arguments' kinds reach every candidate, not only the first the scope solver meets as a
referenced name (which it reaches with no argument kinds).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from graphmend_bot.analysis.callee_refs import callee_ref
from graphmend_bot.analysis.local_nodes import local_nodes
from graphmend_bot.vocabulary.dotted_names import dotted_name


def function_aliases(body: Iterable[ast.stmt]) -> dict[str, tuple[str, ...]]:
    """Each local every assignment of which (outside nested scopes) binds a bare name or dotted
    attribute, with the callee refs of those, in source order. A local also bound any other way
    (a call result, a loop target, an augmented assignment) is left out: its value is unknown."""
    refs: dict[str, list[str]] = {}
    other: set[str] = set()
    aliasing: set[int] = set()  # ids of the targets of those assignments
    for node in local_nodes(body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            ref = callee_ref(node.value) if dotted_name(node.value) is not None else None
            if ref is not None:
                refs.setdefault(node.targets[0].id, []).append(ref)
                aliasing.add(id(node.targets[0]))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in aliasing:
            other.add(node.id)
    return {name: tuple(dict.fromkeys(found)) for name, found in refs.items() if name not in other}
