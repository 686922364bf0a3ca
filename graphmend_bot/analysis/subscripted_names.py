"""`NDArray[np.float64]` evaluated in traced code: a subscript of a name the module imports, handed
to the rule that claimed the name (rules/detect.py `subscripted_names`).

Cheap on the hot path: the resolver runs only for a subscripted name no local binds (an import,
`from numpy.typing import NDArray as ND` too) or an attribute whose last part is a claimed name's
(`npt.NDArray`), so an ordinary `x[i]` of a local costs one lookup."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from graphmend_bot.analysis import checks as C

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_state import Env


class _Resolving(Protocol):
    """The traversal, which the hook gets as its Checker."""

    resolve: Callable[[ast.expr], str | None]

# The last parts of the claimed names: "numpy.typing.NDArray" -> "NDArray".
_LEAVES = frozenset(name.rpartition(".")[2] for name in C.SUBSCRIPTED_NAMES)


def check(checker: _Resolving, node: ast.Subscript, env: Env) -> None:
    """Hands `node` to the claiming rule when what it subscripts resolves to a claimed name and no
    local of this function rebinds it."""
    value = node.value
    if isinstance(value, ast.Name):
        if value.id in env or not C.SUBSCRIPTED_NAMES:
            return
    elif not (isinstance(value, ast.Attribute) and value.attr in _LEAVES):
        return
    name = checker.resolve(value)
    if name is not None and (hook := C.SUBSCRIPTED_NAMES.get(name)) is not None:
        hook(checker, node, name)
