"""Markdown code: the one place that fences text as a code block or an inline code span.

Code, file names and messages come from pull requests: a backtick run inside them must not end the
fence and turn the rest into Markdown (a mention, a link, HTML). Every fence here is longer than the
longest backtick run in what it holds. No imports from the package: rules and renderers both use it.
"""

from __future__ import annotations

import re

# Bidirectional formatting characters (marks, embeddings, overrides, isolates): untrusted text that
# holds them displays reordered, reading other than it is ("Trojan Source"). Inline code and the
# untrusted-text escaper drop them; code blocks (suggestions, diffs) keep every character.
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def longest_backtick_run(text: str) -> int:
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def fence_for(text: str) -> str:
    """A block fence (three backticks at least) longer than any backtick run inside `text`."""
    return "`" * max(3, longest_backtick_run(text) + 1)


def code_block(text: str, info: str = "") -> str:
    """`text` as a fenced block; `info` is the language or `suggestion`. No trailing newline."""
    fence = fence_for(text)
    return f"{fence}{info}\n{text}\n{fence}"


def code_span(text: str) -> str:
    """`text` as inline code, whatever it holds. `|` is escaped, as GitHub's tables need even in
    code; newlines, which would end a table row, become spaces; bidirectional controls are dropped."""
    text = BIDI_CONTROLS.sub("", text.replace("\r", " ").replace("\n", " ").replace("|", "\\|"))
    fence = "`" * (longest_backtick_run(text) + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def outside_code_blocks(lines: list[str]) -> list[bool]:
    """For each line, whether it lies outside every fenced code block (CommonMark's fences: a run
    of three or more backticks or tildes opens one, a line of a run as long at least closes it).
    The bot's bodies quote pull requests' code in blocks (code_block): a line inside one is the
    code's, never the bot's, whatever it says."""
    outside: list[bool] = []
    fence = ""
    for line in lines:
        opener = _FENCE.match(line)
        if not fence:
            # a backtick run followed by another backtick on its line is a code span, not a fence
            opens = opener is not None and not (opener[1][0] == "`" and "`" in line[opener.end():])
            outside.append(not opens)
            fence = opener[1] if opener is not None and opens else ""
            continue
        outside.append(False)
        if opener is not None and opener[1][0] == fence[0] and len(opener[1]) >= len(fence) \
                and not line[opener.end():].strip():
            fence = ""
    return outside
