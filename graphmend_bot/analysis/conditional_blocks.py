"""Where the eager rest of a frame ends when the break that makes it eager may not run.

A read Dynamo cannot resume after (a `functools.cached_property`'s first read, GM612) and a
recurrent module's first use (GM613) make the rest of their frame run eagerly, but only when they
run: under `if self.use_scale:` with the flag off, the code after the `if` is traced and its breaks
are Dynamo's (measured on torch 2.13: tests/fixtures/eager_entries/conditional_read.py). As after an
unsupported `with` (eager_entries.with_tails), the eager rest then ends with the conditional block
holding the break: an `if`/`else` arm, an `except` handler, a `case`. A `with` or `try` body always
runs, and a loop body nearly always does (a loop over a module's layers, a range of steps), so
neither ends it: after a read in a loop body the rest of the frame is eager, as Dynamo has it.
"""

from __future__ import annotations

import ast
import sys

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def conditional_tail(definition: ast.FunctionDef | ast.AsyncFunctionDef, row: int) -> int:
    """The last line of the innermost conditional block of `definition` holding `row`, or
    sys.maxsize when `row` is in no such block (the rest of the function)."""
    tail = sys.maxsize
    block: list[ast.stmt] = definition.body
    while True:
        statement = next((s for s in block if s.lineno <= row <= (s.end_lineno or s.lineno)), None)
        if statement is None or isinstance(statement, _SCOPES):
            return tail
        inner = next(
            (
                (body, conditional)
                for body, conditional in _blocks_of(statement)
                if body and body[0].lineno <= row <= (body[-1].end_lineno or body[-1].lineno)
            ),
            None,
        )
        if inner is None:
            return tail  # in the statement's header: `if self.scale > 0:`
        block, conditional = inner
        if conditional:
            tail = block[-1].end_lineno or block[-1].lineno


def _blocks_of(statement: ast.stmt) -> list[tuple[list[ast.stmt], bool]]:
    """The statement lists of a compound statement, each with whether it may not run."""
    always = isinstance(
        statement, (ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.For, ast.AsyncFor, ast.While)
    )
    blocks: list[tuple[list[ast.stmt], bool]] = [
        (getattr(statement, "body", []), not always),
        (getattr(statement, "orelse", []), isinstance(statement, (ast.If, ast.Try, ast.TryStar))),
        (getattr(statement, "finalbody", []), False),
    ]
    blocks += [(handler.body, True) for handler in getattr(statement, "handlers", [])]
    blocks += [(case.body, True) for case in getattr(statement, "cases", [])]
    return [(body, conditional) for body, conditional in blocks if isinstance(body, list)]
