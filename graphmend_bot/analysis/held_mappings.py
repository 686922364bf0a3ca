"""The attributes of `self` whose `.get(key)` value_sources.mapping_get may not read as an element
of what the class stores there: the kind of `self.NAME` is what `__init__` assigns, so it says what
a dict display holds, but not what a mapping built by a call holds (`nn.ParameterDict(...)`,
`defaultdict(lambda: torch.ones(1))`, a factory's object with its own `get`) nor what a method
later stores in it (`self.cfg["k"] = t`, `self.cfg.update(k=t)`). Dynamo breaks on `.item()` of
such an element when it is a tensor (measured on torch 2.13: tests/test_held_mappings.py).

Marked in the class's typed attributes as "NAME()", which names no attribute, so the other readers
of that set (an identifier's membership) never see them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

_DICT_BUILDERS = frozenset({"dict", "builtins.dict"})
_MUTATION = re.compile(r"\.(?:update|setdefault|__setitem__)\(|\]\s*[-+*/|&]?=(?!=)|\|=")
_MUTATORS = frozenset({"update", "setdefault", "__setitem__"})


def opaque_mappings(node: ast.ClassDef, attributes: Mapping[str, str], texts: Mapping[ast.AST, str]) -> frozenset[str]:
    """The "NAME()" marks of `node`'s opaque mappings; `attributes` is its ClassSummary's, `texts`
    its methods' source (only the methods whose text mutates something are walked)."""
    names = {name for name, held in attributes.items()
             if not name.endswith("[]") and held not in _DICT_BUILDERS and not held.startswith("typed:")}
    names.update(name[:-2] for name in attributes if name.endswith("[]"))  # elements built in a method
    for method in node.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and _MUTATION.search(texts.get(method, "")):
            names.update(_mutated(method))
    return frozenset(f"{name}()" for name in names)


def _mutated(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """`self.NAME[k] = v` (or `+=`), `self.NAME |= ...`, `self.NAME.update(...)` / `.setdefault(...)`."""
    found: set[str] = set()
    for node in ast.walk(method):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                owner = target.value if isinstance(target, ast.Subscript) else (
                    target if isinstance(node, ast.AugAssign) else None)
                if (name := _self_attribute(owner)) is not None:
                    found.add(name)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS
              and (name := _self_attribute(node.func.value)) is not None):
            found.add(name)
    return found


def _self_attribute(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None
