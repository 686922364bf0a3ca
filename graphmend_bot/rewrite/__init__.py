"""Rewrites that remove graph breaks: findings -> Fix (libcst codemods) -> edited source.

Each rule names its fix strategies in order (`Rule.fixes`); a strategy is a function
`build_fix(ctx, finding) -> Fix | None` (see `strategies`). None means "not provably safe", and
the finding stays a report with advice; the first Fix wins.

Only files with findings are parsed with libcst (detection is `ast`; libcst is much slower).
"""

from __future__ import annotations

import difflib
import multiprocessing
import os
import time
import tokenize
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import libcst as cst

from graphmend_bot.analysis.files import outside, read_source
from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.config import Config
from graphmend_bot.edits import apply_in_order, parses
from graphmend_bot.engine import Workspace
from graphmend_bot.findings import CheckResult, FileError, Finding, Fix
from graphmend_bot.line_code import line_code
from graphmend_bot.rewrite.context import FixContext, FixUnavailable
from graphmend_bot.rewrite.strategies import FIXABLE_CODES, strategies_for
from graphmend_bot.rewrite.well_typed import caller_assumptions
from graphmend_bot.source_lines import physical_lines

# Like ruff (MAX_ITERATIONS = 100): loop check -> fix until nothing changes, at most this many times.
MAX_PASSES = 100
# Parsing with libcst costs ~0.5 s per large file: below this many files one process is enough.
PARALLEL_FILES = 8
# A file the fixer would spend too long or too much memory on keeps its findings, without fixes:
# libcst needs hundreds of bytes of memory per byte of source (a 3 MB literal took 2.3 GB), and a
# pull request can hold any file. Both limits are per file and per pass.
FIX_MAX_BYTES = 1 << 20
FIX_SECONDS_PER_FILE = 60.0
FIXES_SKIPPED = "fixes skipped"  # how the messages of the limits, and of a file never written, start
OUTSIDE_PROJECT = (f"{FIXES_SKIPPED}: its real path is outside the project (a symlink out of it), "
                   "where a fix never writes")


@dataclass(frozen=True)
class FileChange:
    """A rewritten file and what its rewrites did to the breaks found in it.

    A break counts as removed only when a removing fix was applied to it and the rewritten code no
    longer reports it; a fix that moves its break (`Fix.effect`) is counted apart, never as fixed.
    """

    path: str
    before: str
    after: str
    breaks_removed: int = 0
    rare_breaks_removed: int = 0  # of those, breaks only on rare branches (Finding.frequency)
    breaks_moved: int = 0  # breaks a fix moved to the callers (still breaks there)
    still_reported: int = 0  # removing fixes applied whose break the rewritten code still reports


@dataclass
class FixOutcome:
    """What a fix run changed in the files and what it left (not the fix pull request's fate)."""

    changes: list[FileChange] = field(default_factory=list)
    remaining: CheckResult = field(default_factory=CheckResult)  # findings left after fixing, fixes attached
    passes: int = 0
    reachable: set[str] | None = None  # with `reach`: `module.qualname` of the functions fixes were limited to


def build_fixes(ctx: FixContext, findings: Iterable[Finding],
                deadline: float | None = None) -> tuple[list[Finding], list[FileError]]:
    """`findings` (all in ctx's file) with `fix` filled where a transformation can fix them; past
    `deadline` (time.monotonic()), none has a fix and the file's error says why."""
    findings = list(findings)
    ctx.findings = tuple(findings)
    out: list[Finding] = []
    errors: list[FileError] = []
    for finding in findings:
        if deadline is not None and time.monotonic() > deadline:
            message = (f"{FIXES_SKIPPED}: rewriting this file took over {FIX_SECONDS_PER_FILE:g} s, the fixer's "
                       "limit per file; its findings are reported without fixes")
            return [replace(f, fix=None) for f in findings], [*errors, FileError(ctx.path, message)]
        fix: Fix | None = None
        for name, build_fix in strategies_for(finding.code):
            try:
                fix = build_fix(ctx, finding)
            except FixUnavailable:
                fix = None
            except Exception as error:  # a broken fix must never stop the run
                errors.append(FileError(
                    finding.path,
                    f"internal error in the {name} rewrite at line {finding.location.row}: "
                    f"{type(error).__name__}: {error}",
                ))
                fix = None
            if fix is not None:
                fix = fix.assuming(*caller_assumptions(finding))
                break
        out.append(replace(finding, fix=fix) if fix is not None else finding)
    return out, errors


def _fixable(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.code in FIXABLE_CODES:
            by_path[finding.path].append(finding)
    return by_path


def _context(path: str, source: str, config: Config, findings: Sequence[Finding]) -> FixContext | FileError:
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > FIX_MAX_BYTES:
        return FileError(path, f"{FIXES_SKIPPED}: {size:,} bytes is over the fixer's limit of {FIX_MAX_BYTES:,} "
                               "bytes per file; its findings are reported without fixes")
    rows = {row for f in findings for row in range(f.location.row, f.end_location.row + 1)}
    try:
        return FixContext(source, config, path, focus_rows=rows)
    except cst.ParserSyntaxError as error:
        return FileError(path, f"cannot offer fixes: libcst cannot parse the file: {error.message}")
    except RecursionError:
        return FileError(path, "cannot offer fixes: nesting too deep")


FixMemo = tuple[str, dict[tuple[str, int, int, int, int], Fix | None]]  # (source, fix per finding)


def _key(finding: Finding) -> tuple[str, int, int, int, int]:
    start, end = finding.location, finding.end_location
    return (finding.code, start.row, start.column, end.row, end.column)


def attach_fixes(
    result: CheckResult,
    config: Config,
    root_paths: Iterable[str] = (),
    sources: Mapping[str, str] | None = None,
    memo: dict[str, FixMemo] | None = None,
    jobs: int | None = None,
) -> CheckResult:
    """`result` with Finding.fix filled wherever a transformation can fix the finding.

    `sources` overrides file contents by path (used while fixing in memory); other files are read
    from disk. `memo` remembers each file's fixes across calls: a file whose text and findings
    are unchanged is not parsed again. Files are parsed in `jobs` processes when there are many.
    `root_paths` is accepted for symmetry with `check` (paths are already in findings).
    """
    del root_paths
    sources = sources or {}
    memo = memo if memo is not None else {}
    fixed: dict[int, Finding] = {}
    errors = list(result.errors)
    work: list[tuple[str, str, list[Finding]]] = []
    for path, findings in _fixable(result.findings).items():
        try:
            source = sources[path] if path in sources else read_source(path)
        except (OSError, ValueError) as error:
            errors.append(FileError(path, f"cannot offer fixes: {error}"))
            continue
        remembered = memo.get(path)
        # The same findings, not a subset: a fix shared by several findings (one guard over a run of
        # I/O lines) covers only lines that are findings of this round.
        if remembered is not None and remembered[0] == source and {_key(f) for f in findings} == remembered[1].keys():
            for finding in findings:
                fixed[id(finding)] = replace(finding, fix=remembered[1][_key(finding)])
        else:
            work.append((path, source, findings))
    for (path, source, findings), (with_fixes, file_errors) in zip(work, _map_files(work, config, jobs), strict=True):
        errors.extend(file_errors)
        if with_fixes is None:
            continue
        memo[path] = (source, {_key(f): f.fix for f in with_fixes})
        for original, finding in zip(findings, with_fixes, strict=True):
            fixed[id(original)] = finding
    findings = [fixed.get(id(f), f) for f in result.findings]
    return replace(result, findings=findings, errors=errors)


FileFixes = tuple[list[Finding] | None, list[FileError]]


def _fix_file(item: tuple[str, str, list[Finding]], config: Config) -> FileFixes:
    path, source, findings = item
    ctx = _context(path, source, config, findings)
    if isinstance(ctx, FileError):
        return None, [ctx]
    return build_fixes(ctx, findings, deadline=time.monotonic() + FIX_SECONDS_PER_FILE)


def _map_files(work: list[tuple[str, str, list[Finding]]], config: Config, jobs: int | None) -> list[FileFixes]:
    """Parse and fix each file; in worker processes when there are enough files to pay for them."""
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(work) < PARALLEL_FILES or os.name != "posix":
        return [_fix_file(item, config) for item in work]
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs) as pool:
        return pool.starmap(_fix_file, [(item, config) for item in work], chunksize=1)


def apply_fixes(source: str, fixes: Sequence[Fix]) -> str:
    """Apply `fixes` in order, each all-or-nothing; a fix overlapping an accepted one is skipped.

    Identical edits from different fixes (the same `import torch` insertion) are applied once.
    Skipped fixes are picked up by the next pass of `fix_paths`.
    """
    return apply_in_order(source, fixes)[0]


def fix_paths(paths: Iterable[str], config: Config, unsafe: bool = False, jobs: int | None = None,
              reach: Sequence[str] | None = None) -> list[FileChange]:
    """The rewritten text of every file `--fix` would change (nothing is written)."""
    return fix_outcome(paths, config, unsafe, jobs, with_remaining=False, reach=reach).changes


def fix_outcome(
    paths: Iterable[str],
    config: Config,
    unsafe: bool = False,
    jobs: int | None = None,
    with_remaining: bool = True,
    reach: Sequence[str] | None = None,
    only: Sequence[str] | None = None,
    cache: SummaryCache | None = None,
    write_root: str | None = None,
) -> FixOutcome:
    """Loop check -> attach fixes -> apply until nothing changes; also return what remains.

    `remaining` holds the findings of the rewritten sources, with the fixes still on offer
    (unsafe ones when only safe fixes were applied); `with_remaining=False` skips computing it.
    `reach` ("module:callable" roots): fix only findings in functions reachable from exactly
    these roots (Program.reachable_from), e.g. what `graphmend verify` entry points can prove.
    `only`: fix and report only these files; the rest of `paths` is context (project.py).
    `write_root` (a real path): a file whose real path is outside it (a symlink out of the project)
    is not rewritten; its findings stay, with an error saying why.
    """
    workspace = Workspace(list(paths), config, jobs, roots=reach or (), cache=cache)
    original: dict[str, str] = {}
    current: dict[str, str] = {}
    tally = BreakTally()
    extra_errors: dict[tuple[str, str], FileError] = {}
    pending: set[str] | None = set(only) if only is not None else None  # files worth re-fixing; None: all
    reachable: set[str] | None = None
    memo: dict[str, FixMemo] = {}  # fixes per file, reused while its text is unchanged
    passes = 0
    while passes < MAX_PASSES:
        passes += 1
        result = workspace.result(only=pending)
        if reach is not None:  # recomputed each pass: a rewrite can add functions (torch.cond branches)
            reachable = workspace.reachable()
            result = replace(result, findings=[f for f in result.findings if f.symbol in reachable])
        if passes == 1:
            tally.found(result.findings)
        result = attach_fixes(result, config, sources=current, memo=memo, jobs=jobs)
        changed: set[str] = set()
        by_path: dict[str, list[Finding]] = defaultdict(list)
        for finding in result.findings:
            if finding.fix and (finding.fix.applicability == "safe" or unsafe):
                by_path[finding.path].append(finding)
        for error in result.errors:
            extra_errors.setdefault((error.path, error.message), error)
        for path, fixed_findings in by_path.items():
            if write_root is not None and outside(path, write_root):
                extra_errors.setdefault((path, OUTSIDE_PROJECT), FileError(path, OUTSIDE_PROJECT))
                continue
            source = current[path] if path in current else read_source(path)
            new, applied = apply_in_order(source, [f.fix for f in fixed_findings if f.fix])
            if new == source:
                continue
            if not parses(new):
                message = (
                    "a later rewrite produced code that does not parse and was dropped; the earlier rewrites were written"
                    if path in original else "a rewrite produced code that does not parse; fixes for this file were dropped"
                )
                extra_errors.setdefault((path, message), FileError(path, message))
                continue
            original.setdefault(path, source)
            current[path] = new
            tally.applied(f for f, done in zip(fixed_findings, applied, strict=True) if done)
            workspace.update(path, new)
            changed.add(path)
        if not changed:
            break
        pending = changed
    remaining = workspace.result(only=only)
    tally.left(remaining.findings)
    if with_remaining:
        remaining = attach_fixes(remaining, config, sources=current, memo=memo, jobs=jobs)
        unwritten = {path for path, message in extra_errors if message == OUTSIDE_PROJECT}
        remaining.findings = [replace(f, fix=None) if f.path in unwritten else f for f in remaining.findings]
    known = {(e.path, e.message) for e in remaining.errors}
    remaining.errors.extend(e for key, e in extra_errors.items() if key not in known)
    remaining.errors.sort(key=lambda e: e.path)
    changes = [
        FileChange(path, original[path], current[path], *tally.of(path))
        for path in sorted(current)
        if current[path] != original[path]
    ]
    changes, aliases = _one_change_per_file(changes)
    remaining.errors.extend(FileError(alias, f"{FIXES_SKIPPED}: it is {kept} under another path, and only the fixes "
                                             "made there were written", "warning") for alias, kept in aliases)
    return FixOutcome(changes=changes, remaining=remaining, passes=passes, reachable=reachable)


def _one_change_per_file(changes: list[FileChange]) -> tuple[list[FileChange], list[tuple[str, str]]]:
    """One change per file: a file reached by two paths in the tree (`alias.py -> m.py`) is analysed
    under both (each is a module Python can import), but written and counted once, under its own
    real path when that is one of them. Returns the changes kept and (dropped path, kept path) for
    each dropped change that would have written other text (its fixes are lost: said, not hidden)."""
    by_file: dict[tuple[int, int] | str, list[FileChange]] = defaultdict(list)
    for change in changes:
        by_file[_file_identity(change.path)].append(change)
    kept: list[FileChange] = []
    dropped: list[tuple[str, str]] = []
    for same in by_file.values():
        first = min(same, key=lambda c: (os.path.realpath(c.path) != os.path.abspath(c.path), c.path))
        kept.append(first)
        dropped.extend((change.path, first.path) for change in same if change.after != first.after)
    return sorted(kept, key=lambda c: c.path), dropped


def _file_identity(path: str) -> tuple[int, int] | str:
    try:
        status = os.stat(path)
    except OSError:
        return path
    return status.st_dev, status.st_ino


BreakKey = tuple[str, str, str, bool]  # (code, function, line code, rare): stable across line shifts


def _break_key(finding: Finding) -> BreakKey:
    return (finding.code, finding.symbol, line_code(finding.source_line), finding.rare)


class BreakTally:
    """Counts what the applied fixes did to the breaks found in the original files.

    A removal is confirmed by the re-check: of the breaks with one key, at most as many count as
    removed as the rewritten file reports fewer, and in all no more than its findings went down by.
    Findings the rewrites created and fixed in a later pass were never in the original, so they are
    not counted.
    """

    def __init__(self) -> None:
        self.before: dict[str, Counter[BreakKey]] = defaultdict(Counter)
        self.after: dict[str, Counter[BreakKey]] = defaultdict(Counter)
        self.removing: dict[str, Counter[BreakKey]] = defaultdict(Counter)
        self.moved: Counter[str] = Counter()

    def found(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            self.before[finding.path][_break_key(finding)] += 1

    def applied(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            key = _break_key(finding)
            if key not in self.before[finding.path]:
                continue  # a break an earlier rewrite made
            if finding.fix is not None and finding.fix.moves:
                self.moved[finding.path] += 1
            else:
                self.removing[finding.path][key] += 1

    def left(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            self.after[finding.path][_break_key(finding)] += 1

    def of(self, path: str) -> tuple[int, int, int, int]:
        """(removed, of those rare, moved, still reported) for the file at `path`."""
        removed = rare = tried = 0
        for key, count in self.removing[path].items():
            attempts = min(count, self.before[path][key])
            confirmed = min(attempts, max(0, self.before[path][key] - self.after[path][key]))
            tried += attempts
            removed += confirmed
            rare += confirmed if key[3] else 0
        # A rewrite that trades its break for a new one (another rule on the rewritten line) is no
        # removal: never more than the file's findings went down by.
        net = max(0, self.before[path].total() - self.after[path].total())
        if removed > net:
            rare, removed = min(rare, net), net
        return removed, rare, self.moved[path], tried - removed


def write_changes(changes: Iterable[FileChange]) -> None:
    """Write rewritten files in the encoding they were read with (PEP 263 cookie, BOM); their line
    ends were kept when the edits were applied (edits.apply_spans)."""
    for change in changes:
        path = Path(change.path)
        with path.open("rb") as handle:
            encoding, _ = tokenize.detect_encoding(handle.readline)
        path.write_bytes(change.after.encode(encoding))


def unified_diff(change: FileChange) -> str:
    """The change as a unified diff, `a/` and `b/` prefixed like git's."""
    lines = difflib.unified_diff(
        physical_lines(change.before, keepends=True),
        physical_lines(change.after, keepends=True),
        fromfile=f"a/{change.path}",
        tofile=f"b/{change.path}",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
