"""Untrusted text in the bot's Markdown: the one escaper.

Messages quote pull-request code; file names, entry-point names, errors and reasons come from pull
requests, bundles and the measured report. GitHub renders the bot's comments with cmark-gfm, so
text placed in them must not form a link, an image, an autolink, an entity, HTML (a hidden marker),
a heading, list, quote or table cell of its own, nor anything GitHub links after rendering: an
@mention, an issue reference. `markdown_text` makes any string exactly that text:

- every character that has a meaning inside a line is backslash-escaped (CommonMark 2.4: an
  escaped ASCII punctuation character is a literal, whatever construct it would start): `\\` and
  `` ` ``, emphasis and strikethrough `*` `_` `~`, links, images and definitions `[` `]` (an
  image's `!` then starts nothing), HTML and autolinks `<`, entities `&`, table cells `|`, GitHub's
  math `$`;
- at the start, where a block would begin (a heading `#`, a quote `>`, a list `-` `+` `1.`, a
  setext line `=`, a thematic break), the first punctuation character, or the `.`/`)` after the
  leading digits, is escaped too; other punctuation (`-> : ( ) .`) means nothing mid-line and is
  left as it reads;
- line breaks become spaces, so nothing starts a line, and other control characters are dropped,
  bidirectional controls too (text that displays reordered reads other than it is);
- a zero-width space breaks what GitHub links in rendered text, where escapes no longer show: after
  `@` (mentions, e-mail autolinks), `#` and `GH-` before a digit (issue references), in `://` and
  after `www` (the autolink extension's URLs); and after `<`, so that a quoted marker
  (`<!-- graphmend:summary -->`) is never the bot's marker, even as a substring; and after every 6th
  character of a run of 7 or more hex characters (a commit SHA, which GitHub links to the commit);
- text the message quotes as code (CommonMark's rule: a backtick run closed by the next run of the
  same length) is re-fenced with `code_span`, whose fence nothing inside can close.

The output is safe anywhere inline text goes: a paragraph, a list item, a table cell. Values shown
as code only (file names) use `fences.code_span` directly.
"""

from __future__ import annotations

import re

from graphmend_bot.fences import BIDI_CONTROLS, code_span

# What means something inside a line (CommonMark and GFM's extensions), and any ASCII punctuation.
_INLINE_ACTIVE = re.compile(r"([\\`*_~\[\]<&|$])")
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
_ORDERED_LIST_START = re.compile(r"( *\d{1,9})([.)])")
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\t\v\f\u2028\u2029\x85]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Where GitHub finds a mention, a reference or a URL in text after rendering: a zero-width space here.
# After `<` too: the bot's hidden markers (`<!-- graphmend:... -->`) never appear in the text, escaped or not.
_LINKED_AFTER_RENDERING = re.compile(r"(?<=[@<])|(?<=#)(?=\d)|(?<=GH-)(?=\d)|(?<=:)(?=//)|(?<=www)(?=\.)",
                                     re.IGNORECASE)
# GitHub links a run of 7 to 40 hex characters to the commit it names, a fork's commit included: a
# zero-width space after every 6th character leaves no such run (digits or letters only included:
# a commit's name can be either, and GitHub checks only that the commit exists).
_HEX_RUN = re.compile(r"[0-9a-f]{7,}", re.IGNORECASE)
_SIX_HEX = re.compile(r"[0-9a-f]{6}(?=[0-9a-f])", re.IGNORECASE)
_BACKTICKS = re.compile(r"`+")
ZERO_WIDTH_SPACE = "\u200b"


def escape_text(text: str, starts_line: bool = True) -> str:
    """`text` as literal Markdown text: no construct, no link, no mention (no code spans either).
    `starts_line=False` where it follows other inline text, which no block can start after."""
    text = BIDI_CONTROLS.sub("", _CONTROL.sub("", _LINE_BREAKS.sub(" ", text)))
    text = _LINKED_AFTER_RENDERING.sub(ZERO_WIDTH_SPACE, text)
    text = _HEX_RUN.sub(_broken_hex_run, text)
    text = _INLINE_ACTIVE.sub(r"\\\1", text)
    return _escape_block_start(text) if starts_line else text


def _broken_hex_run(run: re.Match[str]) -> str:
    return _SIX_HEX.sub(lambda six: six.group() + ZERO_WIDTH_SPACE, run.group())


def _escape_block_start(text: str) -> str:
    """The first character escaped when it could open a block where the text starts a line."""
    body = text.lstrip(" ")
    indent = text[:len(text) - len(body)]
    if body[:1] and _PUNCTUATION.fullmatch(body[0]) and not body.startswith("\\"):
        return f"{indent}\\{body}"
    return _ORDERED_LIST_START.sub(r"\1\\\2", text, count=1) if _ORDERED_LIST_START.match(text) else text


def markdown_text(text: str) -> str:
    """Untrusted prose for a comment, a table cell or a list item: its backtick-quoted code stays
    code (re-fenced), everything else is literal text."""
    out: list[str] = []
    start = 0
    for code, end_of_span, opening in _code_spans(text):
        out.append(escape_text(text[start:opening], starts_line=start == 0))
        out.append(code_span(code))
        start = end_of_span
    out.append(escape_text(text[start:], starts_line=start == 0))
    return "".join(out)


def _code_spans(text: str) -> list[tuple[str, int, int]]:
    """(content, end, start) of each code span CommonMark finds in `text`: a backtick run closed by
    the next run of exactly its length; a run never closed is literal backticks."""
    runs = list(_BACKTICKS.finditer(text))
    following: list[int | None] = [None] * len(runs)  # the next run of the same length, found backwards
    last_of_length: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = len(runs[index].group())
        following[index] = last_of_length.get(length)
        last_of_length[length] = index
    spans = []
    index = 0
    while index < len(runs):
        closing = following[index]
        if closing is None:
            index += 1
            continue
        content = text[runs[index].end():runs[closing].start()]
        spans.append((_strip_one_space(content), runs[closing].end(), runs[index].start()))
        index = closing + 1
    return spans


def _strip_one_space(content: str) -> str:
    # CommonMark strips one space on each side when both are there and the content is not all spaces.
    if len(content) >= 2 and content[0] == content[-1] == " " and content.strip(" "):
        return content[1:-1]
    return content
