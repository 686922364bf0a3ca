"""Source lines for the code Dynamo generates after a graph break (its resume functions).

Dynamo writes the line table of a resume function itself (`linetable_311_writer`, Python 3.11+).
An instruction longer than 8 code units (3.11's LOAD_METHOD: 1 + 10 cache units) takes more than
one table entry, and the writer repeats the instruction's line delta in every entry, so each such
instruction on another line than the one before it (a method call whose receiver spans lines)
shifts every later line of the function.
Measured on torch 2.13 / Python 3.11: after `x.sum().item()` broke, a later `.item()` two lines
past `z = (\\n x\\n + 1\\n).view(3)` was reported two lines further down, where nothing breaks
(torch-kmeans `_init_plus`: the multinomial's break reported on the statement after it). The
break happens at the instruction Dynamo names; only the line its table maps that instruction to
is wrong. While measuring, each entry after an instruction's first is written with delta 0, the
table CPython itself would write; nothing else of the resume function changes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

Update = Callable[[Any, int], None]

_CHUNK = 8  # code units one line-table entry covers at most


@contextlib.contextmanager
def true_resume_lines() -> Iterator[None]:
    """Dynamo's resume functions map each instruction to its own source line while inside."""
    from torch._dynamo import bytecode_transformation as transformation

    writer = getattr(transformation, "linetable_311_writer", None)
    if writer is None:  # a torch without the 3.11 writer
        yield
        return

    def once_per_instruction(first_lineno: int) -> tuple[list[int], Update]:
        table, update = writer(first_lineno)

        def update_once(positions: Any, size: int) -> None:
            # Each call computes the delta from the line last written, so the chunks after an
            # instruction's first move the line by 0.
            while size > _CHUNK:
                update(positions, _CHUNK)
                size -= _CHUNK
            update(positions, size)

        return table, update_once

    transformation.linetable_311_writer = once_per_instruction
    try:
        yield
    finally:
        transformation.linetable_311_writer = writer
