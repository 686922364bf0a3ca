"""The one currency between layers: a Finding, with an optional Fix.

Rows and columns are 1-based, as in ruff's JSON output.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from graphmend_bot.line_code import line_code

Applicability = Literal["safe", "unsafe"]
# What a fix does to its graph break, as Dynamo would count it: "removes" rewrites away the
# construct Dynamo breaks on (or keeps it out of the graph with an is_compiling() guard);
# "moves" leaves the break in place elsewhere (`@torch.compiler.disable` on a helper: each call
# of the helper still breaks its caller). Only removals are counted as fixed.
Effect = Literal["removes", "moves"]
Frequency = Literal["every-call", "rare-branch"]
# A FileError's weight. "error": the file's code could not be checked (a syntax error, undecodable
# bytes, an unreadable file): the run fails with status 1, as ruff's E999/E902 do. "notice": a
# deliberate skip (a binary or oversized file, a symlink out of the workspace, a dependency not
# installed). "warning": the check ran, but something the user wrote does nothing (an unknown code in
# `# graphmend: ignore[...]`, an entry point that matches no function). Neither of the last two
# changes the exit status.
Severity = Literal["error", "notice", "warning"]
SEVERITIES: tuple[Severity, ...] = ("error", "notice", "warning")


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


# How a fix's assumptions read after its title: "(unsafe: a; b)", "; unsafe: a; b", "; a; b"
# (the assumptions continue the title's sentence) or "(a)".
AssumptionWording = Literal["unsafe-note", "unsafe-clause", "clause", "note"]
_WORDINGS: dict[str, str] = {
    "unsafe-note": "{title} (unsafe: {notes})",
    "unsafe-clause": "{title}; unsafe: {notes}",
    "clause": "{title}; {notes}",
    "note": "{title} ({notes})",
}


@dataclass(frozen=True)
class Fix:
    """A rewrite: its edits, what it does (`title`), what it assumes and its `effect` on the break.

    Build one with `Fix.of`: a fix that assumes nothing is safe, one that assumes anything is
    unsafe. The positional form `Fix(applicability, message, edits)` is what readers of
    serialised findings (bundles, shards) use: there the rendered message is all there is.
    """

    applicability: Applicability
    title: str
    edits: tuple[Edit, ...]
    assumptions: tuple[str, ...] = ()
    wording: AssumptionWording = "unsafe-note"
    effect: Effect = "removes"  # set by the strategy, never guessed from the text

    def __post_init__(self) -> None:
        if self.assumptions and self.applicability == "safe":
            raise ValueError("a fix that rests on assumptions cannot be safe")

    @classmethod
    def of(
        cls,
        title: str,
        edits: tuple[Edit, ...],
        assumptions: tuple[str, ...] = (),
        wording: AssumptionWording = "unsafe-note",
        effect: Effect = "removes",
    ) -> Fix:
        return cls("unsafe" if assumptions else "safe", title, edits, assumptions, wording, effect)

    def assuming(self, *more: str) -> Fix:
        """This fix, resting on `more` assumptions as well (so unsafe when there are any)."""
        if not more:
            return self
        return Fix.of(self.title, self.edits, (*self.assumptions, *more), self.wording, self.effect)

    @property
    def moves(self) -> bool:
        """The break stays, elsewhere: not a fix of the break (only of what surrounds it)."""
        return self.effect == "moves"

    @property
    def message(self) -> str:
        """The one-line description every report shows."""
        if not self.assumptions:
            return self.title
        return _WORDINGS[self.wording].format(title=self.title, notes="; ".join(self.assumptions))


@dataclass(frozen=True)
class Evidence:
    """What TorchDynamo said about a finding's lines while the project's tests ran (the census)."""

    status: Literal["confirmed", "ran-without-break"]
    test: str  # the pytest node id that showed the break ("" when the lines ran without one)
    reason: str  # Dynamo's one-line reason
    gb_id: str  # Dynamo's graph-break id, "" when it gave none

    def describe(self) -> str:
        if self.status == "confirmed":
            return f"confirmed by Dynamo in {self.test}" if self.test else "confirmed by Dynamo in the tests"
        return "ran in the tests without a graph break"


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
    evidence: Evidence | None = field(default=None, compare=False)  # from a census, when merged with one
    # "every-call": the line runs whenever its function does; "rare-branch": only on an error or
    # misconfiguration branch (analysis/frequency.py), so fixing it changes nothing on the hot path.
    frequency: Frequency = field(default="every-call", compare=False)
    # The public callable (`module.qualname`) whose call reaches this line, when only the library
    # or `auto`'s public-api or tensor-api scope makes it traced code (no forward or compile call reaches it).
    reached_through: str = field(default="", compare=False)
    # The parameters whose tensors make this line a break that some call in the tree does not pass a
    # tensor, each with that call (analysis/caller_arguments.py): a rewrite writing torch code on
    # them could raise there, so it is offered as unsafe.
    unproven_parameters: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    # "path:row" of the break, when the finding stands at the call a change added that brings the
    # function breaking there into traced code (analysis/added_calls.py); "" for a finding at its break.
    breaks_at: str = field(default="", compare=False)

    @property
    def rare(self) -> bool:
        return self.frequency == "rare-branch"

    @property
    def at(self) -> tuple[str, str]:
        """The break this finding is, as a pointer's `breaks_at` names it, and its rule."""
        return (f"{self.path}:{self.location.row}", self.code)

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.location.row, self.location.column, self.code)

    @property
    def identity(self) -> tuple[str, str, str, str]:
        """What tells this break from others but its occurrence: rule, file, function, line code."""
        return (self.code, self.path, self.symbol, line_code(self.source_line))

    @property
    def fingerprint(self) -> str:
        """Stable across unrelated edits: rule, file, function, the line's code (line_code.py: a
        comment edited on the line leaves it), occurrence."""
        basis = "\0".join((*self.identity, str(self.occurrence)))
        return hashlib.sha256(basis.encode("utf-8", "surrogateescape")).hexdigest()[:16]  # a path of any bytes


def repeat_counts(keys: Iterable[Hashable]) -> list[int]:
    """For each key in order, how many equal keys came before it. The one de-duplication behind
    fingerprints: identical lines here, and repeated fingerprints in the review's comment keys."""
    seen: Counter[Hashable] = Counter()
    counts = []
    for key in keys:
        counts.append(seen[key])
        seen[key] += 1
    return counts


def number_identical_lines(findings: Sequence[Finding]) -> list[Finding]:
    """Tell identical lines apart (same rule, file, function, text) so every finding has its own
    fingerprint."""
    counts = repeat_counts(f.identity for f in findings)
    return [replace(finding, occurrence=count) if count else finding for finding, count in zip(findings, counts)]


def lacked_by_base(findings: Sequence[Finding], base: Collection[str],
                   on_added_line: Callable[[Finding], bool]) -> set[int]:
    """The ids of `findings` a base with these fingerprints lacks. Identical lines are matched as a
    group, not by occurrence number: a `print("step")` added above one the base had numbers first,
    and would take the old one's fingerprint. Each group's surplus over the base goes to its
    findings on added lines first, then to its last lines (review13). A finding at a call that
    points at its break elsewhere (`breaks_at`) is that break: new when it is, when it is listed."""
    groups: dict[Hashable, list[Finding]] = {}
    breaks = {f.at: f for f in findings if not f.breaks_at}
    pointers = [f for f in findings if f.breaks_at and (f.breaks_at, f.code) in breaks]
    pointing = {id(f) for f in pointers}
    for finding in findings:
        if id(finding) not in pointing:
            groups.setdefault(finding.identity, []).append(finding)
    lacked: set[int] = set()
    for group in groups.values():
        surplus = sum(f.fingerprint not in base for f in group)
        if surplus:
            ranked = sorted(group, key=lambda f: (not on_added_line(f), -f.location.row))
            lacked.update(id(f) for f in ranked[:surplus])
    lacked.update(id(f) for f in pointers if id(breaks[(f.breaks_at, f.code)]) in lacked)
    return lacked


@dataclass(frozen=True)
class FileError:
    """A file that could not be analysed, or a warning about one; reported, never fatal to the run."""

    path: str
    message: str
    severity: Severity = "notice"

    @property
    def blocking(self) -> bool:
        """The file was not checked at all: the run must not pass as clean."""
        return self.severity == "error"

    @property
    def label(self) -> str:
        return "warning" if self.severity == "warning" else "error"


@dataclass
class CheckResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    files_checked: int = 0
    baselined: int = 0  # findings left out because the baseline holds them (baseline.py)
    base: BaseFindings | None = None  # a change's review: what its base commit had; None when not solved


@dataclass(frozen=True)
class BaseFindings:
    """The base commit's findings, as a change's review compares them (analysis/base_comparison.py)."""

    fingerprints: frozenset[str]  # every finding the base had: a head finding among them is not new
    removed: list[Finding] = field(default_factory=list)  # the base's findings the head no longer has


def pointed_at(findings: Iterable[Finding]) -> set[tuple[str, str]]:
    """The breaks (Finding.at) listed among `findings` that a finding at an added call points at:
    breaks a change brought into traced code, so new whatever line they are on."""
    findings = list(findings)
    return {(f.breaks_at, f.code) for f in findings if f.breaks_at} & {f.at for f in findings}


def pointers(findings: Iterable[Finding]) -> list[Finding]:
    """The findings at added calls whose break is listed too: the same break, counted once, at its line."""
    findings = list(findings)
    listed = pointed_at(findings)
    return [f for f in findings if f.breaks_at and (f.breaks_at, f.code) in listed]
