"""Why a break statement was missed at default scope, as one of a few causes, decided by code.

The test half's misses are counted by cause and never read one by one (split.py), so the cause
must come from something other than a person reading the line:

  found through declared entry points  the check with configs/<lib>.yml finds it: a root is missing
                                       at default scope (issue 27.2's library scope is for these)
  function not reached                 the function that holds the statement is not traced code in
                                       graphmend's own scope (scope.Program, with the declared entry
                                       points): no rule looked at it
  construct has no rule                the function is traced code and no finding is on the
                                       statement: the construct is one no rule reports there
  module level                         the statement is in no function (import-time code)
  unclassified                         the scope could not be computed (the error is in the cause)

Breaks with no frame in the package are not break statements of the package and never misses:
Dynamo's stack starts at the frame it was tracing, so a package frame being traced when a callee
broke is on it (the break is then the package's call site); no package frame means Dynamo was
tracing a root outside the package (halves.py lists them by owner, README "Breaks with no frame
in the package are not misses").
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
from collections.abc import Collection
from pathlib import Path
from typing import Any

FOUND_DECLARED = "found through declared entry points"
NOT_REACHED = "function not reached"
NO_RULE = "construct has no rule"
MODULE_LEVEL = "module level"
UNCLASSIFIED = "unclassified"

Key = tuple[str, int]


def miss_causes(
    missed: Collection[Key], found_declared: Collection[Key], keys: Any, package_dir: str, config: str
) -> dict[str, str]:
    """`path:line` -> cause, for every statement key in `missed` (keys: harness.StatementKeys)."""
    causes: dict[str, str] = {}
    rest = [k for k in missed if k not in found_declared]
    causes.update({f"{p}:{line}": FOUND_DECLARED for p, line in missed if (p, line) in found_declared})
    if not rest:
        return causes
    try:
        traced = traced_functions(package_dir, config)
    except Exception as error:  # the analysis's internals moved: say so, do not guess
        return {**causes, **{f"{p}:{line}": f"{UNCLASSIFIED} ({type(error).__name__})" for p, line in rest}}
    for path, line in rest:
        function = enclosing_function(os.path.join(keys.base, path), line)
        module = module_name(path, package_dir)
        if function is None:
            cause = MODULE_LEVEL
        elif (module, function) in traced:
            cause = NO_RULE
        else:
            cause = NOT_REACHED
        causes[f"{path}:{line}"] = cause
    return causes


@functools.cache
def code_stamp() -> bytes:
    """A digest of the graphmend_bot source this process imports, for the keys of WILD_CHECK_CACHE:
    a cache folder reused after the analyser changed must not hand back the old revision's results."""
    import graphmend_bot

    digest = hashlib.sha256()
    package = Path(graphmend_bot.__file__).parent
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0" + path.read_bytes())
    return digest.digest()


def traced_functions(package_dir: str, config: str) -> set[tuple[str, str]]:
    """(module, qualname) of every function graphmend treats as traced code in `package_dir`
    under `config` (kept in the run's check cache: the transformers families share one package)."""
    folder = os.environ.get("WILD_CHECK_CACHE")
    with open(config, "rb") as handle:
        stamp = hashlib.sha256(code_stamp() + b"paths\0" + package_dir.encode("utf-8") + b"\0" + handle.read()).hexdigest()[:32]
    cached = os.path.join(folder, f"traced-{stamp}.json") if folder else None
    if cached and os.path.exists(cached):
        with open(cached, encoding="utf-8") as handle:
            return {(m, q) for m, q in json.load(handle)}
    from graphmend_bot.analysis.scope import Program
    from graphmend_bot.config import load_config
    from graphmend_bot.engine import Workspace

    workspace = Workspace([package_dir], load_config(Path(config)), jobs=1)
    # the scope `check` settled on (auto's library or public-api scope), not the model scope only
    program = Program(workspace.summaries.values(), workspace.config.entry_points, workspace.dependency_summaries,
                      workspace.scope)
    # Named from each file's path, as executed_functions names them: graphmend starts a module's
    # name below a folder without `__init__.py` anywhere in the tree (torch_rechub's `models/`:
    # `ranking.din`), which module_name mimics only at the top.
    base = os.path.dirname(os.path.abspath(package_dir))
    paths = {name: os.path.relpath(os.path.abspath(summary.path), base) for name, summary in program.modules.items()}
    traced = {(module_name(paths[m], package_dir), q) for m, q in program.traced_functions()}
    if cached:
        os.makedirs(os.path.dirname(cached), exist_ok=True)  # a fresh WILD_CHECK_CACHE folder
        with open(cached, "w", encoding="utf-8") as handle:
            json.dump(sorted(traced), handle)
    return traced


def enclosing_function(path: str, line: int) -> str | None:
    """The qualname (classes and functions joined by dots) of the innermost function holding `line`."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), filename=path)
    found: str | None = None

    def visit(node: ast.AST, prefix: list[str]) -> None:
        nonlocal found
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                if not start <= line <= (child.end_lineno or child.lineno):
                    continue
                names = [*prefix, child.name]
                if not isinstance(child, ast.ClassDef):
                    found = ".".join(names)
                visit(child, names)
            else:
                visit(child, prefix)

    visit(tree, [])
    return found


def module_name(path: str, package_dir: str) -> str:
    """`transformers/models/bart/modeling_bart.py` -> `transformers.models.bart.modeling_bart`, as
    graphmend names it: in a folder without `__init__.py` (a namespace package, pytorch_tabnet's)
    the names start inside the folder (`tab_network`), since graphmend is given that folder."""
    parts = path[: -len(".py")].split(os.sep)
    if os.path.isdir(package_dir) and not os.path.exists(os.path.join(package_dir, "__init__.py")):
        parts = parts[1:]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
