"""What a top-level statement breaks on every call that reaches it: where Dynamo resumes after it.

A local built before such a break is an input of the frame Dynamo resumes in (GM612's `with cm:`
after a break, own_frame_managers.py). A break in an arm of a conditional expression, or in an
operand of `and`/`or` after the first, runs on some calls only: with the arm not taken Dynamo
traces on in the same frame and enters `cm` (measured on torch 2.13, tests/test_own_frame_managers.py),
as for a break in an `if` arm, which FunctionState._resume_point never counts.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from graphmend_bot.analysis.columns import char_column
from graphmend_bot.analysis.model import Draft
from graphmend_bot.vocabulary.kind import Kind

# A top-level statement whose own expressions made drafts: it, their kinds and the drafts.
ResumePoint = tuple[ast.stmt, list[Kind], list[Draft]]
Span = tuple[int, int, int, int]  # first row, first column, last row, end column (1-based characters)


def unconditional_kind(statement: ast.stmt, kinds: Sequence[Kind], drafts: Sequence[Draft], lines: list[str]) -> Kind:
    """The union of `kinds`, those of the statement's last `len(kinds)` drafts, leaving out drafts in
    an arm of a conditional expression or an operand of `and`/`or` after the first."""
    text = lines[statement.lineno - 1] if statement.lineno <= len(lines) else ""
    if statement.end_lineno == statement.lineno and "if" not in text and " and " not in text and " or " not in text:
        return Kind.union(kinds)  # nothing conditional on the line: no walk (most statements)
    arms = [_span(arm, lines) for node in ast.walk(statement)
            for arm in ((node.body, node.orelse) if isinstance(node, ast.IfExp)
                        else node.values[1:] if isinstance(node, ast.BoolOp) else ())]
    if not arms:
        return Kind.union(kinds)
    own = drafts[len(drafts) - len(kinds):]
    return Kind.union([kind for kind, draft in zip(kinds, own, strict=True)
                       if not any(_inside(draft, arm) for arm in arms)])


def _span(node: ast.expr, lines: list[str]) -> Span:
    end_row = node.end_lineno or node.lineno
    return (node.lineno, char_column(_line(lines, node.lineno), node.col_offset),
            end_row, char_column(_line(lines, end_row), node.end_col_offset or node.col_offset))


def _line(lines: list[str], row: int) -> str:
    return lines[row - 1] if row <= len(lines) else ""


def _inside(draft: Draft, span: Span) -> bool:
    return (span[0], span[1]) <= (draft.row, draft.column) and (draft.end_row, draft.end_column) <= (span[2], span[3])


def resume_names(node: ast.expr) -> list[str] | None:
    """The locals `node` reads when it is a name or a tuple or list display of names and constants;
    None when it computes anything (`p + 1` is a new value of the resumed frame, not an input)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        names: list[str] = []
        for element in node.elts:
            if isinstance(element, ast.Constant):
                continue
            inner = resume_names(element)
            if inner is None:
                return None
            names += inner
        return names
    return None
