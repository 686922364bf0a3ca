"""ast's columns are UTF-8 byte offsets; findings and drafts use 1-based character columns."""

from __future__ import annotations


def char_column(line: str, byte_offset: int) -> int:
    """The 1-based character column of `byte_offset` in `line` (most lines are ASCII: no decode)."""
    if line.isascii():
        return byte_offset + 1
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1
