"""Which lines of a pull request's diff can carry a review comment.

GitHub only accepts a line comment on a line shown in the diff: an added or a context line on the
RIGHT side, and a multi-line comment only within one hunk. `patch` is the per-file unified diff
that `GET /repos/{owner}/{repo}/pulls/{n}/files` returns (hunks only, no file header).
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,\d+)? @@")


@dataclass
class DiffFile:
    path: str
    # RIGHT-side line number -> (hunk index, text of the line as the diff shows it)
    lines: dict[int, tuple[int, str]] = field(default_factory=dict)
    added: set[int] = field(default_factory=set)
    # change block (removed and added lines with no context line between) -> what its removed
    # lines call (`norm` of `y = norm(y)`, `self.f` of `self.f(x)`); added row -> its block
    removed_calls: dict[int, set[str]] = field(default_factory=dict)
    blocks: dict[int, int] = field(default_factory=dict)

    def commentable(self, first: int, last: int) -> bool:
        """True when lines first..last are all in the diff, within one hunk."""
        hunks = {self.lines[row][0] for row in range(first, last + 1) if row in self.lines}
        return len(hunks) == 1 and all(row in self.lines for row in range(first, last + 1))

    def matches(self, row: int, text: str) -> bool:
        """The diff shows `text` on `row`: the checked-out file is the commit the diff is about."""
        entry = self.lines.get(row)
        return entry is not None and entry[1].rstrip("\r\n") == text.rstrip("\r\n")


def parse_patch(path: str, patch: str | None) -> DiffFile:
    """Parse one file's patch; a missing patch (binary or too large) has no commentable lines."""
    diff = DiffFile(path)
    if not patch:
        return diff
    hunk = -1
    row = 0
    block = 0
    for line in patch.removesuffix("\n").split("\n"):  # git ends a line at \n only
        match = _HUNK.match(line)
        if match:
            hunk += 1
            block += 1
            row = int(match["start"])
            continue
        if hunk < 0 or line.startswith("\\"):
            continue  # "\ No newline at end of file"
        if line.startswith("-"):
            diff.removed_calls.setdefault(block, set()).update(called_names(line[1:]))
            continue
        if line.startswith("+"):
            diff.added.add(row)
            diff.blocks[row] = block
        else:
            block += 1  # a context line ends the change block
        diff.lines[row] = (hunk, line[1:])
        row += 1
    return diff


def called_names(text: str) -> set[str]:
    """What a line of code calls, as written before each `(`: `norm`, `loud.run`, `self.f`, and
    `.m` for a call on a result (`super().m(`); read by Python's tokenizer so that a comment or a
    string (`# helper(x) later`) calls nothing; a line cut mid-bracket or mid-string gives the calls
    before the cut."""
    names: set[str] = set()
    chain: list[str] = []  # the dotted name being read, and what ended the one before
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.OP and token.string == "(" and chain and chain[-1] not in (".", ")") and (
                    not keyword.iskeyword(chain[-1])):
                names.add("".join(chain).removeprefix(")"))
            if token.type == tokenize.NAME:
                if chain and chain[-1] == ".":
                    chain.append(token.string)  # in place: a line may chain thousands of names
                else:
                    chain = [token.string]
            elif token.type == tokenize.OP and token.string == "." and chain and chain[-1] != ".":
                chain.append(".")
            elif token.type == tokenize.OP and token.string in (")", "]"):
                chain = [")"]  # `f(x).m(`: the call is on a result
            else:
                chain = []
    except (tokenize.TokenError, SyntaxError):  # an unclosed bracket or string: keep what was read
        pass
    return names


def added_lines(patches: Mapping[str, str | None]) -> dict[str, set[int]]:
    """The lines each file's patch adds (RIGHT side), by path."""
    return {path: parse_patch(path, patch).added for path, patch in patches.items()}


def replaced_calls(patches: Mapping[str, str | None]) -> dict[str, dict[int, frozenset[str]]]:
    """By path, each added line -> the names the removed lines right beside it call (one change
    block, no context line between): a call on the added line to one of them was only edited by
    the change (analysis/added_calls.py). A call moved from elsewhere, across context lines, is new."""
    replaced: dict[str, dict[int, frozenset[str]]] = {}
    for path, patch in patches.items():
        diff = parse_patch(path, patch)
        replaced[path] = {row: frozenset(diff.removed_calls[diff.blocks[row]])
                          for row in diff.added if diff.removed_calls.get(diff.blocks[row])}
    return replaced

