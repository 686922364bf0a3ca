"""Calls a change redirects without touching them: it rebinds the name they call.

`from pkg.safe import run` edited to `from pkg.loud import run` leaves `run(x)` as it was, yet the
call now reaches another function, and that function's breaks are the change's doing. A name
rebound on an added line (an import, or an assignment of a name) to a target the removed lines
right beside it did not give it makes every call through that name, in the binding's scope,
count as added (analysis/added_calls.py). A binding only re-spelled (same name, same target) and
a `def` whose body changed redirect nothing.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Collection, Iterable, Mapping

Bindings = dict[str, str]  # name -> what it is bound to, as written ("from pkg.loud import run")


def bindings_of(statement: ast.stmt) -> Bindings:
    """The names an import or an assignment of names binds, each with its target as written."""
    if isinstance(statement, ast.Import):
        return {alias.asname or alias.name.partition(".")[0]:
                f"import {alias.name if alias.asname else alias.name.partition('.')[0]}"
                for alias in statement.names}
    if isinstance(statement, ast.ImportFrom):
        module = "." * statement.level + (statement.module or "")
        return {alias.asname or alias.name: f"from {module} import {alias.name}"
                for alias in statement.names if alias.name != "*"}
    if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        value = ast.unparse(statement.value)
        return {name.id: f"= {value}" for target in targets for name in _assigned_names(target)}
    return {}


def _assigned_names(target: ast.expr) -> Iterable[ast.Name]:
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _assigned_names(element.value if isinstance(element, ast.Starred) else element)


def bindings_in_text(lines: Iterable[str]) -> Bindings:
    """What removed lines bound: read as one block, or line by line when the block does not parse
    (a hunk may cut a statement); a line that does not parse alone binds nothing."""
    lines = list(lines)
    try:
        return _bindings_in(ast.parse(textwrap.dedent("".join(lines))))
    except SyntaxError:
        pass
    found: Bindings = {}
    for line in lines:
        try:
            found.update(_bindings_in(ast.parse(line.strip())))
        except SyntaxError:
            continue
    return found


def _bindings_in(tree: ast.Module) -> Bindings:
    found: Bindings = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            found.update(bindings_of(node))
    return found


def rebound_calls(source: str, added: Collection[int],
                  removed_bindings: Mapping[int, Bindings]) -> dict[int, int]:
    """The rows of calls whose name an added line rebinds -> the row of that binding.

    `added`: the rows the change added; `removed_bindings`: by added row, what the removed lines of
    its change block bound (diff.DiffFile.removed_bindings). A module-level binding redirects the
    calls in the whole module, one inside a function those in that function."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    redirected: dict[int, int] = {}
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))]:
        rebound = _rebound_in(scope, added, removed_bindings)
        if not rebound:
            continue
        for call in _calls_in(scope):
            name = _root_name(call.func)
            if name in rebound:
                redirected.setdefault(call.lineno, rebound[name])
    return redirected


def _rebound_in(scope: ast.AST, added: Collection[int], removed_bindings: Mapping[int, Bindings]) -> dict[str, int]:
    """Names the scope's own statements rebind on added rows -> the first such row."""
    rebound: dict[str, int] = {}
    for statement in _own_statements(scope):
        rows = [row for row in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1) if row in added]
        if not rows:
            continue
        before = removed_bindings.get(rows[0], {})
        for name, target in bindings_of(statement).items():
            if before.get(name) != target:
                rebound.setdefault(name, rows[0])
    return rebound


def _own_statements(scope: ast.AST) -> Iterable[ast.stmt]:
    """The scope's statements, nested blocks included, not those of the functions and classes it defines."""
    stack = list(getattr(scope, "body", []))
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(statement, field, []))


def _calls_in(scope: ast.AST) -> Iterable[ast.Call]:
    """Calls in the scope, in nested functions too (a closure calls through the enclosing binding)."""
    return (node for node in ast.walk(scope) if isinstance(node, ast.Call))


def _root_name(func: ast.expr) -> str | None:
    while isinstance(func, ast.Attribute):
        func = func.value
    return func.id if isinstance(func, ast.Name) else None
