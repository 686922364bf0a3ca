"""The names of torch a star import of the checked tree binds: `torch` after `from ..layers import *`.

A star import binds what the module's `__all__` lists, or every name of it not starting with an
underscore, the modules it imports included: where `layers/core.py` does `import torch` and
`layers/__init__.py` does `from .core import *`, a model module's `from ..layers import *` makes
its `torch.cat(parts, dim=-1)` torch's (DeepCTR's models import torch only so). Unread, the call was
one of an unknown callee, whose result was no tensor to any rule. Only names bound to torch or one
of its modules or functions are taken (`torch`, `nn`, `F`, `Tensor`): what else a star import binds
the scope solver follows itself (scope.Program._through_imports). A name the module binds itself
keeps its own import. Measured on torch 2.13: tests/test_star_torch.py.
"""

from __future__ import annotations

import ast

from graphmend_bot.analysis.files import read_source
from graphmend_bot.analysis.guards import module_file

_MAX_DEPTH = 3  # a star import of a module that itself star-imports


_SPELLINGS = ("torch.", "nn.", "F.", "Tensor")


def may_use(source: str, imports: dict[str, str]) -> bool:
    """Whether the module spells a name of torch it does not import: only then are the star-imported
    files read (transformers' `__init__.py` star-import whole modeling files and use none)."""
    return "torch" not in imports and any(spelling in source for spelling in _SPELLINGS)


def torch_bindings(root: str | None, star_modules: list[str], read: set[str]) -> dict[str, str]:
    """Name -> the torch name it is bound to, for what `from MODULE import *` of each of
    `star_modules` (absolute, in import order) binds; modules outside the tree under `root` bind none."""
    found: dict[str, str] = {}
    if root is None:
        return found
    seen: set[str] = set()
    for module in star_modules:  # later imports shadow earlier ones
        found.update(_exported(root, module, read, 0, seen))
    return found


def _exported(root: str, module: str, read: set[str], depth: int, seen: set[str]) -> dict[str, str]:
    if depth >= _MAX_DEPTH or module in seen:
        return {}
    seen.add(module)
    path = module_file(root, module, read)
    if path is None:
        return {}
    try:
        tree = ast.parse(read_source(path), filename=path)
    except (ValueError, SyntaxError, RecursionError):
        return {}
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    bound: dict[str, str] = {}
    listed: set[str] | None = None
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                name = alias.asname or alias.name.split(".", 1)[0]
                bound[name] = alias.name if alias.asname else name
        elif isinstance(statement, ast.ImportFrom):
            base = _absolute(statement, package)
            for alias in statement.names:
                if alias.name == "*":
                    bound.update(_exported(root, base, read, depth + 1, seen))
                else:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.pop(statement.name, None)  # rebound by the module itself
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name) and target.id == "__all__":
                    listed = _literal_names(statement.value)
                elif isinstance(target, ast.Name):
                    bound.pop(target.id, None)
    return {
        name: target
        for name, target in bound.items()
        if (target == "torch" or target.startswith("torch."))
        and (name in listed if listed is not None else not name.startswith("_"))
    }


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".") if package else []
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*parts, node.module] if node.module else parts)


def _literal_names(value: ast.expr) -> set[str] | None:
    if not isinstance(value, (ast.List, ast.Tuple)):
        return set()  # computed: taken as listing no torch name
    return {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
