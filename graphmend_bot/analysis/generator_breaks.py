"""A generator's findings after the first break on every path through it: never Dynamo's.

Dynamo never compiles a generator's own frame ("Attempt to trace generator"); it inlines a
generator where traced code runs it (a `with` on a `@contextlib.contextmanager` function, a `for`
over it, `sum(gen(x))`) and cannot resume inside one. At the generator's first break it gives up
on the calling frame ("Failed to handle graph break gracefully"), and the generator then runs
eagerly, whole: only that first break is reported. Measured on torch 2.13
(tests/fixtures/eager_entries/generator_after_first_break.py; torchio's `Transform._use_seed`,
whose `torch.manual_seed(seed)` and `set_rng_state` after `get_rng_state()` never break).

A statement of the generator's own body that is no compound statement runs whenever the body
gets that far, so a break in it is the first one for whatever follows; a break under an `if`, in
a loop or a `try` is not, nor one on a rare path or whose message names a mode (analysis/modes.py).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from graphmend_bot.analysis.modes import modes_named

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import Draft, FunctionSummary

T = TypeVar("T")
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def steps(
    node: ast.FunctionDef | ast.AsyncFunctionDef, is_generator: bool
) -> tuple[tuple[int, int], ...] | None:
    """Of a generator: (first, last row) of each simple statement of its own body, in order (the
    statements every run reaching them runs); None for any other function."""
    if not is_generator:
        return None
    return tuple(
        (statement.lineno, statement.end_lineno or statement.lineno)
        for statement in node.body
        if not isinstance(statement, (*_COMPOUND, *_DEFINITIONS))
    )


def up_to_first_break(
    items: Sequence[T], function_of: Callable[[T], FunctionSummary], draft_of: Callable[[T], Draft]
) -> list[T]:
    """`items` (standing findings, in order) without those of a generator that follow its first
    break on every path: the rows after the first of its steps (`steps`) on which a finding
    breaks whenever it runs."""
    in_generators: dict[int, list[T]] = {}
    for item in items:
        if function_of(item).generator_steps is not None:
            in_generators.setdefault(id(function_of(item)), []).append(item)
    dropped: set[int] = set()
    for found in in_generators.values():
        steps = function_of(found[0]).generator_steps or ()
        rows = [draft_of(item).row for item in found if _breaks_when_run(draft_of(item))]
        last = next((end for start, end in steps if any(start <= row <= end for row in rows)), None)
        if last is not None:
            dropped.update(id(item) for item in found if draft_of(item).row > last)
    return [item for item in items if id(item) not in dropped] if dropped else list(items)


def _breaks_when_run(draft: Draft) -> bool:
    return not draft.rare and not draft.suppressed_if.is_tensor and not modes_named(draft.message)
