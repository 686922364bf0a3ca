"""Which break of one census is which break of another, when lines moved between them.

A break is identified by what it is and where it lives, not by its line number: its file, its
graph-break id (its reason when Dynamo gave none), the function it is in (qualified name), the text
of its line with whitespace normalised, and its occurrence among breaks alike in every other way
(two `print(x)` calls in one function). Lines added above a break move it, and leave its
fingerprint alone.

The function and the line's text are read from the source when the break is recorded (the census
runs where the code is); a census without them (an older one) falls back to the line number.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple, Protocol, TypeVar

from graphmend_bot.line_code import line_code


class Fingerprint(NamedTuple):
    path: str
    kind: str  # "GB0170", or Dynamo's reason when it gave no id
    function: str  # "Net.forward"; "" at module level
    source: str  # the line's code (line_code.py), whitespace normalised; "line 12" when unknown
    occurrence: int  # 0 for the first break alike in all the above, by line


class Located(Protocol):
    path: str
    line: int
    reason: str
    gb_id: str
    function: str
    source: str


def normalised_source(text: str) -> str:
    """A line's text with its indentation and runs of whitespace made one space."""
    return " ".join(text.split())


@functools.lru_cache(maxsize=256)
def _functions(path: str) -> tuple[tuple[int, int, str], ...]:
    """(first line, last line, qualified name) of each function in the file, outermost first."""
    try:
        tree = ast.parse(Path(path).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return ()
    found: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found.append((child.lineno, child.end_lineno or child.lineno, name))
                    visit(child, f"{name}.<locals>.")
                else:
                    visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return tuple(found)


def enclosing_function(path: str, line: int) -> str:
    """The qualified name of the innermost function of `path` around `line`, "" when none."""
    inside = [name for first, last, name in _functions(path) if first <= line <= last]
    return inside[-1] if inside else ""


LocatedT = TypeVar("LocatedT", bound=Located)


def fingerprints(breaks: Iterable[LocatedT]) -> dict[Fingerprint, LocatedT]:
    """Each break under its fingerprint; alike breaks are numbered in line order."""
    seen: dict[tuple[str, str, str, str], int] = {}
    result: dict[Fingerprint, LocatedT] = {}
    for record in sorted(breaks, key=lambda b: (b.path, b.line)):
        # matched by code, not comments or spacing (line_code.py), whichever version recorded the text
        source = normalised_source(line_code(record.source)) if record.source else f"line {record.line}"
        key = (record.path, record.gb_id or record.reason, record.function, source)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        result[Fingerprint(*key, occurrence)] = record
    return result
