"""`match` statements, walked as an `if`/`elif` chain: each case an arm on a copy of the environment.

Measured on torch 2.13, Python 3.11 (tests/test_match_statements.py): Dynamo traces `match`. A value
pattern compares the subject (`case 0:` is `subject == 0`), so on a tensor subject it branches on
tensor data and breaks at the case line (GB0170, as an `if` does); a guard is an `if` test; a
capture (`case y:`, `case (y, 1) as pair:`) binds the subject or one of its elements; the body of
the case the call takes breaks as code anywhere does. A class, sequence or mapping pattern on a
tensor only asks its type (`isinstance`, `collections.abc`): no break. On a display or a tuple held
by position (`match (x.sum(), 1):`) a value pattern compares the container (`[x, 1] == 0` is False:
no break) and a sequence pattern compares each element (`case (0, 1):` breaks on `x.sum() == 0`).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.analysis import statement_forms
from graphmend_bot.analysis.frequency import is_rare_arm
from graphmend_bot.analysis.if_statements import eager_rest_after_arms
from graphmend_bot.analysis.sized import COLLECTION_DISPLAYS
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_state import Env
    from graphmend_bot.analysis.function_statements import StatementVisitor

_SUBJECT = "<match subject>"  # the subject's value as a name: compared in a case without evaluating it again


def walk(visitor: StatementVisitor, node: ast.Match, env: Env) -> bool:
    """Run the cases as arms; True when every path leaves (an irrefutable case, every arm leaving)."""
    subject = visitor.expr(node.subject, env)
    elements = statement_forms.display_kinds(node.subject, lambda e: visitor.expr(e, env))
    if elements is None and isinstance(node.subject, ast.Name):
        elements = visitor.tuples.get(node.subject.id)
    eager_before = visitor._eager_after
    arms: list[tuple[Kind, bool]] = []  # the eager rest each case leaves, and whether it leaves the statement
    through: list[Env] = []
    irrefutable = False
    for case in node.cases:
        arm = dict(env)
        if subject.is_tensor:
            _compare_values(visitor, case.pattern, subject, elements, arm, isinstance(node.subject, COLLECTION_DISPLAYS))
        _bind_captures(visitor, case.pattern, subject, elements, arm)
        if case.guard is not None:
            visitor._bool_context(case.guard, arm, "if")
        visitor._eager_after = eager_before
        leaves = visitor._rare_block(case.body, arm, is_rare_arm(case.body))
        if not leaves:
            through.append(arm)
        arms.append((visitor._eager_after, leaves))
        irrefutable |= case.guard is None and _irrefutable(case.pattern)
    if not irrefutable:
        through.append(dict(env))  # no case matched: the statement falls through
        arms.append((eager_before, False))
    visitor._eager_after = eager_rest_after_arms(eager_before, arms, visitor._loop_depth > 0)  # as an `if`'s arms
    statement_forms.merge_into(env, through)
    return not through


def _compare_values(visitor: StatementVisitor, pattern: ast.pattern, subject: Kind,
                    elements: tuple[Kind, ...] | None, env: Env, container: bool = False) -> None:
    """`case 0:` / `case 0 | 1:` / `case Color.RED:` on a tensor: `subject == value` converted to a
    bool, reported at the first value (the line breaks once). On a container (`elements` known, or
    `container`) only a sequence pattern's elements are compared, up to the first tensor one."""
    while isinstance(pattern, (ast.MatchOr, ast.MatchAs)):
        if isinstance(pattern, ast.MatchOr):
            pattern = pattern.patterns[0]
        elif pattern.pattern is None:
            return
        else:
            pattern = pattern.pattern
    if isinstance(pattern, ast.MatchSequence):
        if elements is None or len(elements) != len(pattern.patterns) or any(
                isinstance(inner, ast.MatchStar) for inner in pattern.patterns):
            return
        tensors = [(inner, kind) for inner, kind in zip(pattern.patterns, elements, strict=True) if kind.is_tensor]
        if tensors:  # the first tensor element compared breaks the line: one report
            _compare_values(visitor, tensors[0][0], tensors[0][1], None, env)
        return
    if isinstance(pattern, ast.MatchValue) and elements is None and not container:
        compared = ast.copy_location(
            ast.Compare(left=ast.copy_location(ast.Name(id=_SUBJECT, ctx=ast.Load()), pattern.value),
                        ops=[ast.Eq()], comparators=[pattern.value]), pattern.value)
        env[_SUBJECT] = subject
        try:
            visitor._bool_context(compared, env, "case")
        finally:
            del env[_SUBJECT]


def _bind_captures(visitor: StatementVisitor, pattern: ast.pattern, subject: Kind,
                   elements: tuple[Kind, ...] | None, env: Env) -> None:
    """Bind the names a pattern captures: the subject's (`case y:`, `... as y`), an element of a
    tuple the subject is known to hold by position, else what no tensor is known to be."""
    if isinstance(pattern, ast.MatchAs):
        if pattern.pattern is not None:
            _bind_captures(visitor, pattern.pattern, subject, elements, env)
        if pattern.name is not None:
            visitor._bind(ast.Name(id=pattern.name, ctx=ast.Store()), subject, env, elements)
    elif isinstance(pattern, ast.MatchOr):
        for alternative in pattern.patterns:
            _bind_captures(visitor, alternative, subject, elements, env)
    elif isinstance(pattern, ast.MatchSequence):
        starred = any(isinstance(inner, ast.MatchStar) for inner in pattern.patterns)
        known = elements is not None and not starred and len(elements) == len(pattern.patterns)
        for index, inner in enumerate(pattern.patterns):
            kind = elements[index] if known and elements is not None else NOT_TENSOR
            if isinstance(inner, ast.MatchStar):
                if inner.name is not None:
                    visitor._bind(ast.Name(id=inner.name, ctx=ast.Store()), NOT_TENSOR, env)
            else:
                _bind_captures(visitor, inner, kind, None, env)
    else:  # class and mapping patterns: what their sub-patterns capture is not known
        inner_patterns = [*getattr(pattern, "patterns", []), *getattr(pattern, "kwd_patterns", [])]
        for inner in inner_patterns:
            _bind_captures(visitor, inner, NOT_TENSOR, None, env)
        rest = getattr(pattern, "rest", None)
        if rest is not None:
            visitor._bind(ast.Name(id=rest, ctx=ast.Store()), NOT_TENSOR, env)


def _irrefutable(pattern: ast.pattern) -> bool:
    """`case _:`, `case name:`, or an alternative of one: every subject matches."""
    if isinstance(pattern, ast.MatchAs):
        return pattern.pattern is None or _irrefutable(pattern.pattern)
    return isinstance(pattern, ast.MatchOr) and any(_irrefutable(p) for p in pattern.patterns)
