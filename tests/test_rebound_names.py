"""The file before a change, from the file after it and its diff (analysis/rebound_names.py)."""

import difflib
import random

import pytest

from graphmend_bot.analysis.rebound_names import base_text, call_root


def patch_of(before: str, after: str, context: int) -> str:
    """A unified diff as GitHub's pulls/files API gives it: hunks only, no file header."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True), n=context)
    return "".join(line if line.endswith("\n") else line + "\n" for line in list(lines)[2:])


@pytest.mark.parametrize("seed", range(40))
def test_undoing_the_diff_gives_the_file_before(seed: int) -> None:
    rng = random.Random(seed)
    before = [f"line {i}\n" for i in range(rng.randint(0, 30))]
    after = list(before)
    for _ in range(rng.randint(1, 5)):
        where = rng.randint(0, len(after))
        if rng.random() < 0.5 and where < len(after):
            del after[where]
        else:
            after.insert(where, f"new {rng.random()}\n")
    old, new = "".join(before), "".join(after)
    assert base_text(new, patch_of(old, new, rng.choice([0, 1, 3]))) == old


def test_a_patch_of_another_commit_gives_nothing() -> None:
    old, new = "a\nb\nc\n", "a\nB\nc\n"
    assert base_text("a\nX\nc\n", patch_of(old, new, 1)) is None


def test_a_call_goes_through_its_first_name() -> None:
    assert [call_root(ref) for ref in ("name:helper", "dotted:utils.helper", "self:m", "super:m")] == \
        ["helper", "utils", None, None]
