"""Which standard-library class built the receiver of `obj.method(...)`, when the function built it:
`p = pathlib.Path(root)` before `p.exists()`, or `Path(root).exists()` in one expression (GM640
judges the method by the measured table of what Dynamo refuses on such an object)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Collection, Mapping


def built_class(
    receiver: ast.expr, built_by: Mapping[str, str], resolve: Callable[[ast.expr], str | None]
) -> str | None:
    """The qualified name (as the module imported it: "pathlib.Path") of the standard-library callee
    that built `receiver` in this function, or None."""
    if isinstance(receiver, ast.Name):
        built = built_by.get(receiver.id)
    elif isinstance(receiver, ast.Call):
        built = resolve(receiver.func)
    else:
        return None
    return built if built is not None and built.partition(".")[0] in sys.stdlib_module_names else None


def held_name(
    receiver: ast.expr, self_name: str | None, params: Collection[str], rebound: set[str]
) -> str | None:
    """`"self.NAME"` for `self.NAME`, `"NAME"` for a global (neither a parameter nor a name the
    function bound before): an object built outside the function, judged by what built it."""
    if (
        isinstance(receiver, ast.Attribute)
        and isinstance(receiver.value, ast.Name)
        and receiver.value.id == self_name
    ):
        return f"self.{receiver.attr}"
    if isinstance(receiver, ast.Name) and receiver.id not in params and receiver.id not in rebound:
        return receiver.id
    return None
