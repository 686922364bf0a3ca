"""Calls from traced code to a `@contextlib.contextmanager` function of the tree that yields
nothing (GM612).

Measured on torch 2.13 (tests/coverage_probes/gb0221_*): such a function returns the generator
another function made (`return _other()`), which works in eager; Dynamo inlines the decorator's
`_GeneratorContextManager.__init__`, finds that the decorated code is no generator, and breaks at
the call (GB0221 "non-generator contextlib.contextmanager"), then builds the manager eagerly. A
`with` entering it then breaks too, a manager built outside the graph (GB0142): `cm = helper()`
breaks with GB0221 and `with cm:` with GB0142; `with helper():` breaks with both at one line, where
the census keeps the last, GB0142. One returning anything else raises TypeError in eager too.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from graphmend_bot.analysis.disabled_calls import closing_parenthesis, source_lines
from graphmend_bot.analysis.held_contexts import CONTEXT_MANAGER_DECORATORS
from graphmend_bot.analysis.model import Draft
from graphmend_bot.rules import RULES
from graphmend_bot.vocabulary.kind import TENSOR

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

RULE = next(rule for rule in RULES if rule.detection.manager_without_yield is not None)
_BREAK_ID = RULE.detection.manager_without_yield
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def manager_without_yield(node: ast.FunctionDef | ast.AsyncFunctionDef, decorators: tuple[str, ...]) -> bool:
    """Decorated with `@contextlib.contextmanager`, and no `yield` in its own body (nested
    functions, lambdas and classes are their own code)."""
    if not CONTEXT_MANAGER_DECORATORS.intersection(decorators):
        return False
    pending: list[ast.AST] = list(node.body)
    while pending:
        current = pending.pop()
        if isinstance(current, (ast.Yield, ast.YieldFrom)):
            return False
        if not isinstance(current, _SCOPES):
            pending.extend(ast.iter_child_nodes(current))
    return True


def manager_without_yield_calls(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]]
) -> list[TracedDraft]:
    """A finding at each call, in a traced frame of the tree, whose every resolved callee is such
    a function."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    called = {callee for callees in targets.values() for callee in callees}
    managers = {callee for callee in called if program.function(callee).manager_without_yield}
    if not managers:
        return found  # nearly every tree
    lines: dict[str, list[str]] = {}
    for (fid, index), callees in sorted(site for site in targets.items() if managers.issuperset(site[1])):
        if fid[0] in program.dependency_modules:
            continue
        caller, module = program.function(fid), program.modules[fid[0]]
        if module.path not in lines:
            lines[module.path] = source_lines(program.source_of, module.path)
        draft = _draft(caller.calls[index].row, program.function(callees[0]).name, lines[module.path])
        found.append(TracedDraft(module, caller, draft))
    return found


def _draft(row: int, name: str, lines: list[str]) -> Draft:
    line = lines[row - 1] if 0 < row <= len(lines) else ""
    match = re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", line) or re.search(
        rf"{re.escape(name)}\s*\(", line
    )
    column = match.start() if match else len(line) - len(line.lstrip())
    entered = line.lstrip().startswith(("with ", "async with "))  # the call is what the `with` enters
    message = (
        f"`{name}()` is a `@contextlib.contextmanager` function that yields nothing (it returns another "
        "generator): Dynamo cannot trace building its manager, and breaks the graph"
    )
    end = closing_parenthesis(line, match.end()) if match else len(line.rstrip())
    return Draft(
        RULE.code,
        message,
        row,
        column + 1,
        row,
        end + 1,
        _BREAK_ID(RULE, entered) if _BREAK_ID else RULE.gb_id,
        TENSOR,
        line.rstrip("\r\n"),
    )
