"""Control characters in untrusted text, written as their escapes (`\\x1b`, `\\u202e`, `\\x9b`).

Kept apart from terminal.py so that report/github.py, which terminal.py imports, can use it too.
"""

from __future__ import annotations

import re

from graphmend_bot.fences import BIDI_CONTROLS

# C0 but the tab, DEL, C1, Unicode's line and paragraph separators, the bidirectional controls, and
# the surrogates \udc80-\udcff: Python's stand-ins for the undecodable bytes of a file name, which
# print as the raw byte (0x9b is the 8-bit CSI that starts an ANSI sequence).
_UNSHOWN = re.compile(rf"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\udc80-\udcff]|{BIDI_CONTROLS.pattern}")
_UNDECODED_BYTE = 0xdc00


def visible(text: str) -> str:
    """`text` with every control character (newlines too) written as its Python escape, and each
    undecodable byte of a file name as `\\xNN`."""
    return _UNSHOWN.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xdc80 <= code <= 0xdcff:
        code -= _UNDECODED_BYTE
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
