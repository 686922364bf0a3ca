"""A source line's code, the part of it that matches one break with another across edits.

A finding (findings.Finding.fingerprint) and a census break (census/fingerprint.py) are matched
between two commits by their line's text. Dynamo never reads a comment, so editing one must not
make a break new: `n = x.item()` and `n = x.item()  # scalar` are one break. A line's code is its
text, stripped, up to its comment; a `#` inside a string is no comment (Python's tokenizer says
which is which), and a line that opens a string it does not close is kept whole. The line is read
on its own: a break's line is code, and the last line of a string spanning lines never is one.
"""

from __future__ import annotations

import functools
import io
import tokenize


@functools.lru_cache(maxsize=4096)
def line_code(line: str) -> str:
    """`line`, stripped, without its comment."""
    text = line.strip()
    if "#" not in text:  # nearly every line: nothing to tokenize
        return text
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.ERRORTOKEN:
                return text
            if token.type == tokenize.COMMENT:
                return text[:token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):
        # An open bracket's comment came before the error (returned above); a string the line
        # leaves open is not whole here.
        return text
    return text
