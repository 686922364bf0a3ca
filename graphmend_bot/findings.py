"""The one currency between layers: a Finding, with an optional Fix.

Rows and columns are 1-based, as in ruff's JSON output.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal

Applicability = Literal["safe", "unsafe"]


@dataclass(frozen=True, order=True)
class Location:
    row: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace the text between two locations with `content`."""

    content: str
    location: Location
    end_location: Location


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    path: str
    location: Location
    end_location: Location
    gb_id: str
    symbol: str = ""  # qualified name of the traced function the line lives in
    source_line: str = ""
    # Which of several identical lines (same code, function and text) this is, from the top.
    occurrence: int = 0
    fix: Fix | None = field(default=None, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.location.row, self.location.column, self.code)

    @property
    def fingerprint(self) -> str:
        """Stable across unrelated edits: rule, file, function, stripped source line, occurrence."""
        basis = "\0".join(
            (self.code, self.path, self.symbol, self.source_line.strip(), str(self.occurrence))
        )
        return hashlib.sha256(basis.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class FileError:
    """A file that could not be analysed; reported, never fatal."""

    path: str
    message: str


@dataclass
class CheckResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    files_checked: int = 0
