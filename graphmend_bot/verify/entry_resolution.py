"""Entry points resolved in both arms before anything runs: a missing module file or a misspelt
callable is one line at once, not a failure found after the other arm compiled for a minute.

Read from the files only (the arms' code is untrusted and nothing of it runs here): `pkg.mod:make`
must be `pkg/mod.py` or `pkg/mod/__init__.py` under the arm's root binding `make` at module level.
A module found in neither arm may be installed in the environment (a src/ layout installed with
`pip install -e .`): that is left to the child, unless its top-level package is not importable at
all.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from graphmend_bot.verify.settings import EntryPoint


def module_file(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _binds(path: Path, name: str) -> bool:
    """Whether the module binds `name` at its top level (or may: a star import, a module __getattr__)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return True  # the child reports what is wrong with the file itself
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in (name, "__getattr__"):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            alias.name == "*" or (alias.asname or alias.name).split(".")[0] == name for alias in node.names
        ):
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == name:
            return True
    return False


def unresolved(entry: EntryPoint, roots: dict[str, Path]) -> str | None:
    """Why `entry` cannot run in some arm ({arm name: root}), or None when it resolves in each."""
    module, _, attribute = entry.factory.partition(":")
    name = attribute.split(".")[0]
    files = {arm: module_file(root, module) for arm, root in roots.items()}
    if not any(files.values()):
        top = module.split(".")[0]
        if top and importlib.util.find_spec(top) is not None:
            return None  # installed in the environment, not under the roots: the child imports it
        return f"module {module!r} is in neither arm ({', '.join(str(root) for root in roots.values())}) " \
               "and not installed"
    for arm, path in files.items():
        if path is None:
            return f"module {module!r} is missing from the {arm} arm ({roots[arm]})"
        if name and not _binds(path, name):
            return f"{path.relative_to(roots[arm])} in the {arm} arm defines no {name!r}"
    return None
