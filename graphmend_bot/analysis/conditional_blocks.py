"""Where the eager rest of a frame ends when the break that makes it eager may not run.

A read Dynamo cannot resume after (a `functools.cached_property`'s first read, GM612) and a
recurrent module's first use (GM613) make the rest of their frame run eagerly, but only when they
run: under `if self.use_scale:` with the flag off, the code after the `if` is traced and its breaks
are Dynamo's (measured on torch 2.13: tests/fixtures/eager_entries/conditional_read.py). As after an
unsupported `with` (eager_entries.with_tails), the eager rest then ends with the conditional block
holding the break: an `if`/`else` arm, an `except` handler, a `case`; not an arm whose other arm
always returns or raises (`if big: return x` / `elif self.held.A:`), through which every path on
past the `if` goes (measured: tests/test_breaking_reads.py). A `with` or `try` body (and
the `try`'s `else`) always runs, and a loop body nearly always does (a loop over a module's layers,
a range of steps), so neither ends it: after a read in a loop body the rest of the frame is eager, as Dynamo has it.
The workers keep each function's conditional blocks in its summary (`conditional_spans`), so the
parent asks `tail_in` and parses nothing.
"""

from __future__ import annotations

import ast
import sys

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPOUND = frozenset({ast.If, ast.Try, ast.TryStar, ast.Match, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith})


def first_definitions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The def each qualname ("Class.method", "outer.inner") names, through classes and defs, the
    first of a name in its body (held_module_reads.function_definition's, for the whole module)."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    pending: list[tuple[str, list[ast.stmt]]] = [("", tree.body)]
    while pending:
        prefix, body = pending.pop()
        seen: set[str] = set()
        for statement in body:
            if isinstance(statement, _SCOPES) and statement.name not in seen:
                seen.add(statement.name)
                if not isinstance(statement, ast.ClassDef):
                    found[prefix + statement.name] = statement
                pending.append((f"{prefix}{statement.name}.", statement.body))
    return found


def conditional_spans(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[int, int], ...]:
    """(first, last line) of each conditional block of `definition`'s own body, nested ones
    included, those of nested scopes not. A `with` or `try` body and the `try`'s `else`, a loop's body
    and its `else` always run: only what they hold counts. An `if` arm whose other arm always returns
    or raises is kept with its first line negated: the rest goes on past it (tail_in), though it
    does not run on every call (it_runs_always). Each worker runs it on every function: only compound statements
    are looked into."""
    spans: list[tuple[int, int]] = []
    pending = [definition.body]
    while pending:
        for statement in pending.pop():
            if type(statement) not in _COMPOUND:
                continue
            if isinstance(statement, ast.If):
                # an arm whose sibling always returns or raises is the only way on past the `if`: a
                # rest from it goes on past the `if` too (`if big: return x` / `elif self.held.A:`)
                conditional = [statement.body, statement.orelse]
                body_leaves, else_leaves = _leaves(statement.body), _leaves(statement.orelse)
                if body_leaves != else_leaves:
                    going_on = statement.orelse if body_leaves else statement.body
                    conditional = [statement.body if body_leaves else statement.orelse]
                    # kept with its first line negated: conditional all the same (it_runs_always)
                    if going_on:
                        spans.append((-going_on[0].lineno, going_on[-1].end_lineno or going_on[-1].lineno))
                        pending.append(going_on)
            elif isinstance(statement, (ast.Try, ast.TryStar)):
                # `else` runs whenever the body raised nothing: the usual path, as the body (GM657's
                # rest after a read there goes on past the `try`, tests/test_breaking_reads.py)
                pending += [statement.body, statement.orelse, statement.finalbody]
                conditional = [handler.body for handler in statement.handlers]
            elif isinstance(statement, ast.Match):
                conditional = [case.body for case in statement.cases]
            elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):  # its blocks always run
                pending += [statement.body, statement.orelse]
                continue
            else:
                if isinstance(statement, (ast.With, ast.AsyncWith)):
                    pending.append(statement.body)
                continue
            for body in conditional:
                if body:
                    spans.append((body[0].lineno, body[-1].end_lineno or body[-1].lineno))
                    pending.append(body)
    return tuple(spans)


def _leaves(body: list[ast.stmt]) -> bool:
    """Every path through `body` ends in a `return` or `raise` (not `break`/`continue`: what
    follows the loop is reached without it)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and _leaves(last.body) and _leaves(last.orelse)


def tail_in(spans: tuple[tuple[int, int], ...] | None, row: int) -> int:
    """The last line of the innermost conditional block holding `row` of the def `spans` were taken
    from (conditional_spans), or sys.maxsize when `row` is in no such block (the rest of the
    function) or there is no def (None). The blocks holding `row` nest: the innermost ends first."""
    return min((end for start, end in spans or () if 0 < start <= row <= end), default=sys.maxsize)


def it_runs_always(spans: tuple[tuple[int, int], ...] | None, row: int) -> bool:
    """`row` of the def `spans` were taken from runs whenever the def does: in no conditional block,
    an arm the rest goes on past (its first line negated in `spans`) included."""
    return spans is not None and not any(abs(start) <= row <= end for start, end in spans)
