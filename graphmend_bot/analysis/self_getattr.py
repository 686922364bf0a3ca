"""`getattr(self, "name")` and `getattr(self, "name", default)`: a read of `self.name` spelled as a call.

The name is a string literal, so the read is the attribute's (module state the scope solver types
per class, as `self.name` is); with a default, the result may be the default instead, so its kind
joins in. Measured on torch 2.13 (tests/test_self_getattr.py): `bool(getattr(self, "flag", False))`
over a registered 0-d buffer breaks as `bool(self.flag)` does (GB0124), and over a Python attribute
or a name the object lacks it traces.
"""

from __future__ import annotations

import ast

from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind


def self_attribute_read(call: ast.Call, self_name: str | None, args: list[Kind]) -> Kind | None:
    """The kind of `getattr(self, "name"[, default])`, or None when the call is not that spelling."""
    if self_name is None or call.keywords or len(call.args) not in (2, 3):
        return None
    receiver, name = call.args[0], call.args[1]
    if not (isinstance(receiver, ast.Name) and receiver.id == self_name):
        return None
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier()):
        return None
    if name.value in V.STATIC_ATTRS:
        return NOT_TENSOR
    default = args[2] if len(args) == 3 else NOT_TENSOR
    return Kind.of_param(f"self.{name.value}") | default
