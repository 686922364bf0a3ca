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
# `self.NAME[k] = v` (or `+=`), `self.NAME.update(...)` / `.setdefault(...)`, `self.NAME |= ...`: read
# from the method's text, no walk (a spurious match only leaves that `.get` opaque, as main read it)
_MUTATION = re.compile(
    r"self\.(\w+)(?:\[[^\n]*?\]\s*[-+*/|&%@^]?=(?!=)|\.(?:update|setdefault|__setitem__)\(|\s*\|=)")


def opaque_mappings(node: ast.ClassDef, attributes: Mapping[str, str], texts: Mapping[ast.AST, str]) -> frozenset[str]:
    """The "NAME()" marks of `node`'s opaque mappings; `attributes` is its ClassSummary's, `texts`
    its methods' source."""
    methods = [texts.get(method, "") for method in node.body if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not any(".get(" in text for text in methods):
        return frozenset()  # no `.get` in the class to read (most classes)
    names = {name for name, held in attributes.items()
             if not name.endswith("[]") and held not in _DICT_BUILDERS and not held.startswith("typed:")}
    names.update(name[:-2] for name in attributes if name.endswith("[]"))  # elements built in a method
    for text in methods:
        names.update(_MUTATION.findall(text))
    return frozenset(f"{name}()" for name in names)
