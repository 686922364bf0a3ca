"""Python functions of installed packages that call a function Dynamo skips on every path through them.

opt_einsum's `currently_sharing()` returns `threading.get_ident() in _SHARING_STACK`; a deprecated
wrapper starts with `warnings.warn(...)`. Dynamo inlines such a function (its package is not on
the skip list) and breaks at the skipped call inside, which it reports at the caller's line in the
checked tree (GB0007, tests/test_installed_skips.py). The skipped callees are the standard-library
functions of vocabulary/skipped_callees.py refused as skipped whatever their arguments (GB0007, or
GB0008 for one Dynamo tried to inline).

As installed_wrappers.py does for compiled code: the module is read as text, never imported, and
only the statements every call runs are looked at; a call of another undecorated function of the
same module is followed the same way (opt_einsum's helpers), a few levels deep.
"""

from __future__ import annotations

import ast
import functools

from graphmend_bot.analysis import installed_packages, installed_wrappers
from graphmend_bot.analysis.files import read_source
from graphmend_bot.vocabulary.skipped_callees import SKIPPED_CALLEES
from graphmend_bot.vocabulary.third_party_skips import HANDLED_PACKAGES, SKIPPED_PACKAGES

_SKIPPED_IDS = frozenset({"GB0007", "GB0008"})
_DEPTH = 3  # helpers of the same module followed below the called function


def skipped_call_inside(dotted: str) -> tuple[str, str] | None:
    """When `dotted` names a Python function of an installed package whose every call runs a
    standard-library function Dynamo skips: (that function's name, its id), the first Python
    evaluates; None otherwise. Memoised per read root, as installed_packages' answers are."""
    top = dotted.partition(".")[0]
    if top in SKIPPED_PACKAGES or top in HANDLED_PACKAGES:  # GM650's, or traced by Dynamo's own code
        return None
    return _skipped_call_inside(dotted, installed_packages.read_root())


def forget() -> None:
    """Drop the memo (tests that change an installed package's files within one process)."""
    _skipped_call_inside.cache_clear()
    _plain_imports.cache_clear()


@functools.lru_cache(maxsize=4096)
def _skipped_call_inside(dotted: str, root: str) -> tuple[str, str] | None:
    found = installed_packages.python_definition(dotted)
    if found is None:
        return None
    path, name, imported = found
    return _in_function(path, name, {**_plain_imports(path), **imported}, _DEPTH, set())


@functools.lru_cache(maxsize=256)
def _plain_imports(path: str) -> dict[str, str]:
    """The module's top-level `import threading`, `import os.path as osp`: bound name -> module
    (python_definition gives the `from` imports)."""
    try:
        tree = ast.parse(read_source(path))
    except (OSError, ValueError, SyntaxError, RecursionError, MemoryError):
        return {}
    return {
        alias.asname or alias.name.partition(".")[0]: alias.name if alias.asname else alias.name.partition(".")[0]
        for statement in tree.body if isinstance(statement, ast.Import)
        for alias in statement.names
    }


def _in_function(path: str, name: str, imported: dict[str, str], depth: int, seen: set[str]) -> tuple[str, str] | None:
    function = installed_wrappers.module_function(path, name)
    if function is None or name in seen:
        return None
    seen.add(name)
    try:
        calls = installed_wrappers.calls_on_every_path(function)
    except RecursionError:  # a long generated expression: not judged
        return None
    for call in calls:
        inner = installed_wrappers.qualified(call.func, imported)
        if inner is not None and SKIPPED_CALLEES.get(inner) in _SKIPPED_IDS:
            return inner, SKIPPED_CALLEES[inner]
        if inner is None and isinstance(call.func, ast.Name) and depth > 0:  # a function of the same module
            found = _in_function(path, call.func.id, imported, depth - 1, seen)
            if found is not None:
                return found
    return None
