"""Builtin names a module or function binds: there `NAME(...)` calls that binding, not the builtin.

Python looks a bare name up in the function's locals, then the enclosing functions', then the
module's globals, and only then in `builtins`. A module's own `def print(*args)`, a local
`pow = torch.pow` or a parameter named `input` is an object Dynamo traces like any other
(measured: tests/fixtures/precision/shadowed_builtins.py compiles with fullgraph=True), so the
builtins' rules (GM401 print, GM654 pow, GM302 int, ...) must not judge its calls. Bindings are
statements (assignments, `def`, imports, `for`/`with`/`except` targets, `match` captures), a
walrus, and a star import of a module whose exports are known (vocabulary/star_exports.py:
`from torch import *` binds `pow`, `int`, `range`...) or of a module of the tree (star_builtins.py). A comprehension's targets bind inside it
only (`[len for len in lengths]` leaves `len(x)` after it the builtin). Only names of builtins are
kept. A function's expressions are walked once, at its first call of a builtin name, and only
when its text (its docstring blanked: analysis/code_text.py) shows a walrus or a `for` whose
target may name a builtin.

`builtins.NAME(...)` (and `from builtins import NAME`) is the builtin whatever the module binds.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Iterable

from graphmend_bot.analysis.code_text import function_text
from graphmend_bot.analysis.local_nodes import child_nodes, fields_present
from graphmend_bot.vocabulary.star_exports import STAR_EXPORTED_BUILTINS

BUILTIN_NAMES = frozenset(dir(builtins))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_block_fields = fields_present(("body", "orelse", "finalbody", "handlers", "cases"))
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
Position = tuple[int, int]
_FOR = re.compile(r"\bfor\b(.*)")  # a `for` and the rest of its line
_IN = re.compile(r"\bin\b")
_WORDS = re.compile(r"\w+")


class Shadows:
    """The builtin names a function's calls cannot mean: those bound in its scope or around it,
    and per comprehension binding one, those its targets bind there."""

    __slots__ = ("_comprehensions", "names")

    def __init__(self, names: frozenset[str], comprehensions: list[Comprehension]) -> None:
        self.names = names
        self._comprehensions = comprehensions

    def hides(self, name: str, node: ast.expr) -> bool:
        if name in self.names:
            return True
        where = (node.lineno, node.col_offset)
        return any(
            name in names and start <= where < end and not first_start <= where < first_end
            for names, start, end, first_start, first_end in self._comprehensions
        )


# (builtin names its targets bind, its start and end, and those of its first iterable, which the
# enclosing scope evaluates)
Comprehension = tuple[frozenset[str], Position, Position, Position, Position]


def function_shadows(
    node: ast.FunctionDef | ast.AsyncFunctionDef, inherited: frozenset[str], lines: list[str], text: str | None = None
) -> Shadows:
    """What `node`'s calls of builtin names cannot mean: `inherited` (the module's and enclosing
    functions' bindings), its own bindings, and its comprehensions' targets where they bind.
    `lines`: the module's, whose text of `node` tells whether its expressions may bind one;
    `text`: that text (code_text.function_text) when the caller has it already."""
    walrus, comprehensions = (
        _expression_bindings(node) if _may_bind_in_expressions(node, lines, text) else (set(), [])
    )
    return Shadows(inherited | _function_bindings(node, walrus), comprehensions)


def _expression_bindings(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
) -> tuple[set[str], list[Comprehension]]:
    """The builtin names `node`'s walrus expressions bind, and its comprehensions binding one."""
    walrus: set[str] = set()
    comprehensions: list[Comprehension] = []
    pending: list[ast.AST] = [*node.args.defaults, *(d for d in node.args.kw_defaults if d), *node.body]
    while pending:
        child = pending.pop()
        if isinstance(child, (*_SCOPES, ast.Lambda)):
            continue  # their own scope: walked as functions of their own, or never judged (a lambda)
        if isinstance(child, ast.NamedExpr) and isinstance(child.target, ast.Name):
            walrus.add(child.target.id)
        elif isinstance(child, _COMPREHENSIONS):
            targets: set[str] = set()
            for generator in child.generators:
                _target_names(generator.target, targets)
            if targets & BUILTIN_NAMES:
                first = child.generators[0].iter
                comprehensions.append(
                    (
                        frozenset(targets & BUILTIN_NAMES),
                        _start(child),
                        _end(child),
                        _start(first),
                        _end(first),
                    )
                )
        pending.extend(child_nodes(child))  # no context or operator is looked for
    return walrus & BUILTIN_NAMES, comprehensions


def _may_bind_in_expressions(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str],
                             text: str | None = None) -> bool:
    """A walrus, or a `for` whose target names a builtin, in the text of `node` outside its
    docstring (a tenth of the cost of walking every function's expressions)."""
    if text is None:
        text = function_text(node, lines)
    if ":=" in text:
        return True
    for rest in _for_rests(text):
        target = _IN.split(rest, 1)
        if len(target) == 1:  # a target continued on the next line (prose in a docstring is not)
            if rest.rstrip().endswith(("(", "[", ",", "\\")):
                return True
        elif not BUILTIN_NAMES.isdisjoint(_WORDS.findall(target[0])):
            return True
    return False


def _for_rests(text: str) -> list[str]:
    """`_FOR.findall(text)`, searched only in the lines that hold "for": a match ends its line
    (`.` stops at a newline), so each line has at most one, and a newline before `for` is the
    same word boundary as a line's start. `\\b` first gives `re` no literal to skip ahead to, and
    trying every character of every function's text was 2% of the summaries' time."""
    if "for" not in text:
        return []
    return [found.group(1) for line in text.split("\n") if "for" in line and (found := _FOR.search(line))]


def _start(node: ast.expr) -> Position:
    return node.lineno, node.col_offset


def _end(node: ast.expr) -> Position:
    return node.end_lineno or node.lineno, node.end_col_offset or 0


def builtin_called(func: ast.expr, resolved: str | None) -> str | None:
    """The builtin a call of `func` runs unless a binding in scope hides it (`Shadows`): a bare
    name no import binds (`resolved` is None), or `builtins.NAME`; None for any other callee."""
    if isinstance(func, ast.Name) and (resolved is None or resolved == func.id):
        return func.id if func.id in BUILTIN_NAMES else None
    if resolved is not None and resolved.startswith("builtins.") and resolved.count(".") == 1:
        return resolved[len("builtins.") :]
    return None


def module_bindings(
    tree: ast.Module, functions: Iterable[ast.FunctionDef | ast.AsyncFunctionDef], source: str,
    star: Callable[[ast.ImportFrom], Iterable[str]] | None = None,
) -> frozenset[str]:
    """The builtin names the module's statements bind (any block but function and class bodies,
    and the body of `if __name__ == "__main__":`, which never runs when the module is imported),
    and those a function declares `global` and binds. `star`: what a star import binds
    (star_builtins.py reads the tree's modules); without it, the known modules' exports."""
    run_on_import = _run_on_import(tree.body)
    found = _bound(run_on_import, star)
    if ":=" in source:  # a walrus at module level binds a global
        found.update(
            node.target.id
            for statement in run_on_import
            if not isinstance(statement, _SCOPES)
            for node in ast.walk(statement)
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name)
        )
    if "global" in source:
        for function in functions:
            declared = _declared(function.body, ast.Global)
            if declared:
                found |= declared & _bound(function.body)
    return frozenset(found & BUILTIN_NAMES)


def function_bindings(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> frozenset[str]:
    """The builtin names local to `node`: its parameters and what its body binds (not those it
    declares `global`: the module's bindings say whether those are rebound; nor a parameter whose
    default is the same name, `print=print`: it holds what the name held where `node` is defined)."""
    walrus = _expression_bindings(node)[0] if _may_bind_in_expressions(node, lines) else set()
    return _function_bindings(node, walrus)


def _function_bindings(node: ast.FunctionDef | ast.AsyncFunctionDef, walrus: set[str]) -> frozenset[str]:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    found = {
        arg.arg
        for arg, default in zip([*positional, *args.kwonlyargs], [*defaults, *args.kw_defaults], strict=True)
        if not (isinstance(default, ast.Name) and default.id == arg.arg)
    }
    found |= {arg.arg for arg in (args.vararg, args.kwarg) if arg}
    found &= BUILTIN_NAMES
    bound = (_bound(node.body) | walrus) & BUILTIN_NAMES
    if bound:
        found |= bound - _declared(node.body, ast.Global)
    return frozenset(found)


def _run_on_import(body: list[ast.stmt]) -> list[ast.stmt]:
    """The module's statements without the bodies of `if __name__ == "__main__":` and `if
    TYPE_CHECKING:` (their `else` stays): neither runs when the module is imported. (transformers'
    package `__init__`s star-import every submodule under TYPE_CHECKING: reading those cost a
    quarter of the summaries.)"""
    kept: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.If) and (_is_main_test(statement.test) or _is_type_checking(statement.test)):
            kept += statement.orelse
        else:
            kept.append(statement)
    return kept


def _is_type_checking(test: ast.expr) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING`: False at run time."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = {_name_or_text(test.left), _name_or_text(test.comparators[0])}
    return sides == {"name:__name__", "text:__main__"}


def _name_or_text(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return f"name:{node.id}"
    return f"text:{node.value}" if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def _bound(body: list[ast.stmt], star: Callable[[ast.ImportFrom], Iterable[str]] | None = None) -> set[str]:
    """Names the statements of `body` bind, not entering nested functions and classes (their names count)."""
    found: set[str] = set()
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, _SCOPES):
            found.add(node.name)
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                _target_names(target, found)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            _target_names(node.target, found)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    _target_names(item.optional_vars, found)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(
                (alias.asname or alias.name).partition(".")[0] for alias in node.names if alias.name != "*"
            )
            if isinstance(node, ast.ImportFrom) and node.names[0].name == "*":
                if star is not None:
                    found.update(star(node))
                elif not node.level:
                    found.update(STAR_EXPORTED_BUILTINS.get(node.module or "", ()))
        elif isinstance(node, ast.match_case):
            found.update(_captured(node.pattern))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                _target_names(target, found)
        for field in _block_fields(type(node)):
            block = getattr(node, field, None)
            if isinstance(block, list):
                pending.extend(block)
    return found


def _declared(body: list[ast.stmt], statement: type[ast.Global] | type[ast.Nonlocal]) -> set[str]:
    """Names the `global` (or `nonlocal`) statements of `body` declare, outside nested scopes."""
    found: set[str] = set()
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, statement):
            found.update(node.names)
        for field in _block_fields(type(node)):
            block = getattr(node, field, None)
            if isinstance(block, list):
                pending.extend(block)
    return found


def _target_names(target: ast.expr, found: set[str]) -> None:
    if isinstance(target, ast.Name):
        found.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _target_names(element, found)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, found)


def _captured(pattern: ast.pattern) -> set[str]:
    """The names a `case` pattern captures (`case [first, *rest]`, `case {"k": v, **extra}`, `as`)."""
    found: set[str] = set()
    for node in ast.walk(pattern):
        if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.add(node.rest)
    return found
