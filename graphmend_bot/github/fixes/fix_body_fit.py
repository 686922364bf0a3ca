"""A fix pull request's description kept under GitHub's limit after later writes.

fix_body builds the description against a budget, but the approval and the narrowing round write
into it later (the verification verdict, the record of unproven fixes). When an edit would make it
too long, GitHub refuses it with a 422, and the record the next run reads is lost. So every edit
goes through `fitted`: it cuts what the description only shows (the Before/After snippets, then
table rows; both are in the diff) and never the lines the bot reads back."""

from __future__ import annotations

from graphmend_bot.fences import outside_code_blocks
from graphmend_bot.github.core.body_budget import GITHUB_BODY_LIMIT, body_size, lines_fitting

SNIPPETS_START = "<details><summary>Before and after</summary>"
SNIPPETS_CUT = "Before and after of every rewrite are in the diff."
TABLE_RULE = "|---|---:|---|---|"


def fitted(body: str, limit: int = GITHUB_BODY_LIMIT) -> str:
    """`body` within `limit` characters when cutting snippets and table rows can make it so."""
    if len(body) <= limit:
        return body
    lines = body.split("\n")
    lines = _without_snippets(lines)
    if body_size(lines) - 1 > limit:
        lines = _fewer_rows(lines, body_size(lines) - 1 - limit)
    return "\n".join(lines)


def _without_snippets(lines: list[str]) -> list[str]:
    outside = outside_code_blocks(lines)
    starts = [i for i, line in enumerate(lines) if outside[i] and line.strip() == SNIPPETS_START]
    if not starts:
        return lines
    end = next((i for i in range(starts[0] + 1, len(lines)) if outside[i] and lines[i].strip() == "</details>"), None)
    if end is None:
        return lines
    return [*lines[: starts[0] + 1], "", SNIPPETS_CUT, "", *lines[end:]]


def _fewer_rows(lines: list[str], excess: int) -> list[str]:
    """The table with enough rows cut from its end to remove `excess` characters."""
    outside = outside_code_blocks(lines)
    rule = next((i for i, line in enumerate(lines) if outside[i] and line.strip() == TABLE_RULE), None)
    if rule is None:
        return lines
    end = next((i for i in range(rule + 1, len(lines)) if not lines[i].startswith("|")), len(lines))
    rows = [row for row in lines[rule + 1 : end] if not row.startswith("| ... |")]
    more_row = "| ... | | | more in the diff |"
    keep = lines_fitting(rows, max(body_size(rows) - excess - len(more_row) - 1, 0))
    if keep == len(rows):
        return lines
    return [*lines[: rule + 1], *rows[:keep], more_row, *lines[end:]]
