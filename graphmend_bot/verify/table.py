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


def speedup_text(value: Any, within_noise: bool | None = None) -> str:
    """A speedup (original / rewritten); "within noise" when the arms' timings overlap."""
    if within_noise:
        return "within noise"
    return f"{value:.2f}x" if isinstance(value, int | float) else "-"


def spread_text(median: Any, low: Any, high: Any) -> str:
    """`median (min-max)`, or the median alone when the spread is unknown."""
    if not isinstance(low, int | float) or not isinstance(high, int | float):
        return seconds_text(median)
    return f"{seconds_text(median)} ({seconds_text(low)}-{seconds_text(high)})"


def within_noise(original: tuple[Any, Any], rewritten: tuple[Any, Any]) -> bool | None:
    """Whether the arms' [min, max] timings overlap, so a ratio of medians says nothing; None when a
    spread is unknown."""
    values = (*original, *rewritten)
    if not all(isinstance(value, int | float) for value in values):
        return None
    return bool(original[0] <= rewritten[1] and rewritten[0] <= original[1])


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
