"""Functions that return a builtin list, dict or set: what a comprehension over their result steps.

Before 3.12 a comprehension Dynamo compiles as a frame of its own is handed the iterator of its
first iterable, and Dynamo cannot step a `list_iterator`, `dict_keyiterator` or `set_iterator`
it did not build (GM611, skipped_frames.py); a tuple's iterator traces. A local bound to a call's
result is such a list, dict or set when every in-tree callee of the call returns one: its return
annotation names `list`, `dict` or `set` (bare, subscripted, or typing's `List`, `Dict`, `Set`:
transformers' `_CanRecordRegistry.get(model) -> dict`, whose `super().get(...) or {}` says nothing
by itself), or each of its `return`s gives a display, a comprehension, `list(...)`, `dict(...)`,
`set(...)`, `sorted(...)` or a local bound only to one (measured: tests/test_collection_returns.py;
a callee annotated or returning a tuple traces).
"""

from __future__ import annotations

import ast
from collections.abc import Container, Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program
    from graphmend_bot.vocabulary.kind import Kind

_BUILTIN_NAMES = frozenset({"list", "dict", "set", "List", "Dict", "Set"})
_DICT_VIEWS = frozenset({"keys", "values", "items"})


def annotated_collection(annotation: ast.expr | None) -> bool:
    """The return annotation names a builtin list, dict or set (`dict`, `list[str]`, `typing.Dict[str, int]`)."""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if isinstance(annotation, ast.Name):
        name = annotation.id
    elif isinstance(annotation, ast.Attribute) and isinstance(annotation.value, ast.Name) and annotation.value.id == "typing":
        name = annotation.attr
    else:
        return False
    return name in _BUILTIN_NAMES


def called_collection_sites(iterable: ast.expr, env: Mapping[str, Kind], call_results: Container[str]) -> tuple[int, ...]:
    """The call sites whose results a comprehension's first iterable steps, when it is a local every
    binding of which is a whole call's result (`flags = REGISTRY.get(self)`), or such a local's
    `keys()`, `values()` or `items()`: the solver keeps the comprehension's draft when each of their
    callees returns a builtin list, dict or set. Empty otherwise."""
    if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and iterable.func.attr in _DICT_VIEWS
            and not iterable.args and not iterable.keywords):
        iterable = iterable.func.value
    if not isinstance(iterable, ast.Name) or iterable.id not in call_results or iterable.id not in env:
        return ()
    calls = env[iterable.id].calls
    if not calls or any(call.element is not None for call in calls):
        return ()
    return tuple(sorted(call.site for call in calls))


def return_collections(
    program: Program, fid: FunctionId, sites: Iterable[int], targets: Mapping[tuple[FunctionId, int], list[FunctionId]],
) -> bool:
    """Whether every one of `sites` of `fid` runs in-tree callees only, each returning a list, dict or set."""
    return all(
        (callees := targets.get((fid, site), ())) and all(program.function(c).returns_builtin_collection for c in callees)
        for site in sites
    )
