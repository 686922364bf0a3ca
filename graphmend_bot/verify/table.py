"""The verify results table's cells and Markdown: one owner for `graphmend verify` (render.py, from
the typed report) and the approval review (github/approval/verdict.py, from the report's JSON).

Callers choose the columns and escape text cells; the numbers are formatted here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def seconds_text(value: Any) -> str:
    if not isinstance(value, int | float):
        return "-"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} us"


def timing_text(original: Any, rewritten: Any) -> str:
    return f"{seconds_text(original)} -> {seconds_text(rewritten)}"


def speedup_text(value: Any) -> str:
    """A speedup (original / rewritten)."""
    return f"{value:.2f}x" if isinstance(value, int | float) else "-"


def pair_text(original: Any, rewritten: Any) -> str:
    return " -> ".join("-" if value is None else str(value) for value in (original, rewritten))


def outputs_text(outputs_equal: Any) -> str:
    return "equal" if outputs_equal is True else "DIFFER" if outputs_equal is False else "-"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The table's lines; every cell is already Markdown-safe."""
    return [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]
