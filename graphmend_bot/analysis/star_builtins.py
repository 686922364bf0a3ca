"""The builtin names `from .module import *` binds when the module is one of the checked tree's.

A star import binds the names the module's `__all__` lists, or all its names not starting with an
underscore when it has none. A module of the tree may define `abs`, `max`, `sum` or `pow` and a
sibling star-import them (deepxde's `backend/pytorch/__init__.py`: `from .tensor import *`, which
binds abs, max, min, pow and sum): there `max(x)` runs the module's own function, which Dynamo
traces like any other. Of 834 star imports in the wild corpus's libraries whose module is in the
tree, 17 bind a builtin name. The module's file is read here; a module that cannot be found (not
in the tree, or a loose script's) binds none, so the builtins' rules still judge its calls. Every
file looked at joins `read`, which the summary cache keys on (ModuleSummary.read_files).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from graphmend_bot.analysis.files import read_source
from graphmend_bot.analysis.guards import module_file
from graphmend_bot.vocabulary.star_exports import STAR_EXPORTED_BUILTINS

_MAX_DEPTH = 3  # a star import of a module that itself star-imports
StarBindings = Callable[[ast.ImportFrom], Iterable[str]]


def tree_star_bindings(
    root: str | None,
    module: str,
    is_package: bool,
    read: set[str],
    depth: int = 0,
    exported: dict[str, frozenset[str]] | None = None,
) -> StarBindings:
    """What each star import of `module` binds: the known modules' (vocabulary/star_exports.py), and
    those of the tree under `root` (the folder its dotted name is relative to). `exported` holds what
    each module file read so far exports, for the whole walk from one module: star imports form
    webs and cycles (every module of a package star-importing every other), and without it the walk
    reads b**depth files (25 such modules took minutes); a module still being read exports nothing."""
    exported = {} if exported is None else exported

    def bindings(node: ast.ImportFrom) -> Iterable[str]:
        if not node.level:
            known = STAR_EXPORTED_BUILTINS.get(node.module or "")
            if known is not None or root is None or depth >= _MAX_DEPTH:
                return known or ()
        if root is None or depth >= _MAX_DEPTH:
            return ()
        target = _absolute(node, module, is_package)
        path = module_file(root, target, read) if target else None
        if not path:
            return ()
        if path not in exported:
            exported[path] = frozenset()  # an open question: a cycle back to it finds nothing
            exported[path] = _exported_builtins(path, root, target, read, depth, exported)
        return exported[path]

    return bindings


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return ".".join(part for part in (package, node.module) if part)


def _exported_builtins(
    path: str, root: str, module: str, read: set[str], depth: int, exported: dict[str, frozenset[str]]
) -> frozenset[str]:
    from graphmend_bot.analysis.shadowed_builtins import module_bindings  # it asks this module back

    try:
        source = read_source(path)
        tree = ast.parse(source, filename=path)
    except (ValueError, SyntaxError, RecursionError):
        return frozenset()
    star = tree_star_bindings(root, module, path.endswith("__init__.py"), read, depth + 1, exported)
    bound = module_bindings(tree, (), source, star)
    listed = _all_names(tree)
    return frozenset(
        name for name in bound if (name in listed if listed is not None else not name.startswith("_"))
    )


def _all_names(tree: ast.Module) -> frozenset[str] | None:
    """The names a literal `__all__ = [...]` (or tuple) lists, with what literal `__all__ += [...]`
    adds; None without one or when it is computed."""
    listed: frozenset[str] | None = None
    for statement in tree.body:
        if isinstance(statement, ast.AugAssign) and _names_all(statement.target):
            added = _literal_names(statement.value)
            if listed is None or added is None or not isinstance(statement.op, ast.Add):
                return None
            listed |= added
            continue
        if isinstance(statement, ast.AnnAssign) and _names_all(statement.target):
            return None
        if not (
            isinstance(statement, ast.Assign) and any(_names_all(target) for target in statement.targets)
        ):
            continue
        listed = _literal_names(statement.value)
        if listed is None:
            return None
    return listed


def _literal_names(value: ast.expr | None) -> frozenset[str] | None:
    """The strings a list or tuple literal holds; None for anything else."""
    if not isinstance(value, (ast.List, ast.Tuple)):
        return None
    names = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return frozenset(names) if len(names) == len(value.elts) else None


def _names_all(target: ast.expr) -> bool:
    return isinstance(target, ast.Name) and target.id == "__all__"
