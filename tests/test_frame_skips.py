"""The record of breaks that make Dynamo skip a frame (analysis/skipped_frames.py): a `try` line
whose body breaks (GM661) is kept on every Python, the comprehensions run as frames (GM611) only
before 3.12, which inlines them."""

from __future__ import annotations

from graphmend_bot.analysis.model import Draft
from graphmend_bot.analysis.skipped_frames import FrameSkips
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR


def _draft(code: str, row: int) -> Draft:
    return Draft(code, "message", row, 1, row, 4, "", TENSOR, "source")


def _walk_try(skips: FrameSkips) -> tuple[Draft, Draft]:
    """`try:` (after call site 0) holding call site 1 and a comprehension, as the traversal reports them."""
    try_line, comprehension = _draft("GM661", 5), _draft("GM611", 7)
    skips.enter_try()
    skips.try_statement(try_line, (0,))
    skips.site(1, in_loop=False)
    skips.comprehension(comprehension)
    skips.exit_try()
    return try_line, comprehension


def test_try_lines_stand_when_comprehensions_are_not_frames() -> None:
    skips = FrameSkips(comprehensions_are_frames=False)
    try_line, _ = _walk_try(skips)
    assert skips.try_lines() == [((1,), NOT_TENSOR, (0,), try_line)]
    assert skips.finish() == []


def test_comprehensions_run_as_frames_before_3_12() -> None:
    skips = FrameSkips(comprehensions_are_frames=True)
    try_line, comprehension = _walk_try(skips)
    assert skips.try_lines() == [((1,), NOT_TENSOR, (0,), try_line)]
    assert skips.finish() == [((1,), NOT_TENSOR, comprehension, ())]  # no call result iterated


def test_a_rare_draft_does_not_break_the_try_body() -> None:
    """A break on an error or misconfiguration branch leaves the usual calls traced (GM661)."""
    skips = FrameSkips()
    try_line = _draft("GM661", 5)
    skips.enter_try()
    skips.try_statement(try_line, ())
    skips.draft(TENSOR, in_loop=False, rare=True)
    skips.exit_try()
    assert skips.try_lines() == []
