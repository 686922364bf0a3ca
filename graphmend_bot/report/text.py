"""ruff-like terminal output: location, code, message, the source line and a caret."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphmend_bot.findings import CheckResult, FileError, Finding
from graphmend_bot.report.terminal import terminal_text, visible

if TYPE_CHECKING:
    from graphmend_bot.rewrite import FileChange

PUBLIC_API_NOTE = ("traced as public API: a user who compiles `{root}` runs this line "
                   "(no forward or compile call of the package reaches it; `scope` in the configuration)")
RARE_NOTE = "only on a branch valid inputs rarely take (an error or misconfiguration path): not on every call"


def render_text(result: CheckResult) -> str:
    """The report; file names, messages and source lines come from the checked tree, so every
    control character in them is shown escaped and no line is a workflow command (terminal.py)."""
    out: list[str] = []
    for finding in result.findings:
        out.append(_finding(finding))
    for error in result.errors:
        out.append(error_line(error))
    out.append(summary_line(result))
    return terminal_text("\n".join(out) + "\n")


def error_line(error: FileError) -> str:
    return f"{visible(error.path)}: {error.label}: {visible(error.message)}"


def _finding(finding: Finding) -> str:
    loc = finding.location
    gb_id = f" [{finding.gb_id}]" if finding.gb_id else ""  # GM660's break has no id in the registry
    head = f"{visible(finding.path)}:{loc.row}:{loc.column}: {finding.code} {visible(finding.message)}{gb_id}"
    if not finding.source_line:
        return head
    gutter = str(loc.row)
    line = finding.source_line.expandtabs(4)
    if finding.end_location.row == loc.row:
        width = max(1, finding.end_location.column - loc.column)
    else:
        width = max(1, len(line.rstrip()) - loc.column + 1)
    # The caret under the escaped line: an escape before or inside the span widens it.
    start, end = loc.column - 1, loc.column - 1 + width
    indent = len(visible(line[:start])) + max(0, start - len(line))
    caret = " " * indent + "^" * (len(visible(line[start:end])) + max(0, end - max(start, len(line))))
    line = visible(line)
    pad = " " * len(gutter)
    fix = f"\n{pad} = fix ({finding.fix.applicability}): {finding.fix.message}" if finding.fix else _help(finding, pad)
    note = f"\n{pad} = note: {finding.evidence.describe()}" if finding.evidence else ""
    if finding.rare:
        note += f"\n{pad} = note: {RARE_NOTE}"
    if finding.reached_through:
        note += f"\n{pad} = note: {PUBLIC_API_NOTE.format(root=finding.reached_through)}"
    return f"{head}\n{pad} |\n{gutter} | {line}\n{pad} | {caret}\n{pad} = see {_url(finding)}{note}{fix}\n"


def _help(finding: Finding, pad: str) -> str:
    """Advice for a finding without a fix, about its own code (its rule's `advice`)."""
    from graphmend_bot.rules import advice_for

    text = advice_for(finding)
    return f"\n{pad} = help: {text}" if text else ""


def _url(finding: Finding) -> str:
    from graphmend_bot.rules import gb_url

    return gb_url(finding.gb_id)


def summary_line(result: CheckResult, census_shown: bool = False) -> str:
    """`census_shown`: Dynamo's census table is shown above, so no finding is not "no graph breaks"."""
    count = len(result.findings)
    if not count and census_shown:
        text = f"No static findings in {result.files_checked} file(s); the census table above has Dynamo's graph breaks."
    elif not count:
        text = f"No graph breaks found in {result.files_checked} file(s)."
    else:
        files = len({f.path for f in result.findings})
        fixable = Counter(f.fix.applicability for f in result.findings if f.fix and not f.fix.moves)
        movable = sum(1 for f in result.findings if f.fix and f.fix.moves)
        text = f"Found {count} graph break(s) in {files} file(s)."
        rare = sum(f.rare for f in result.findings)
        if rare:
            text = text[:-1] + f": {count - rare} on every call, {rare} only on rare error/misconfiguration branches."
        if fixable["safe"]:
            text += f" {fixable['safe']} fixable with `--fix`."
        if fixable["unsafe"]:
            text += f" {fixable['unsafe']} more with `--unsafe-fixes`."
        if movable:
            text += (f" {movable} can only be moved to the callers with `--unsafe-fixes` "
                     "(`@torch.compiler.disable`: each call still breaks, reported as GM620).")
        if not fixable and not movable:
            text += " `--show-fixes` or `--diff` shows the rewrites on offer."
    if result.baselined:
        text += f" {result.baselined} more in the baseline, not shown."
    unanalysed = sum(error.severity != "warning" for error in result.errors)
    if unanalysed:
        text += f" {unanalysed} file(s) could not be analysed."
    warnings = len(result.errors) - unanalysed
    if warnings:
        text += f" {warnings} warning(s)."
    return text


MOVED_NOTE = ("to the callers of helpers run eagerly (`@torch.compiler.disable`): each call still breaks, "
              "and the next check reports it there (GM620)")


def fix_summary(changes: Sequence[FileChange], dry_run: bool = False) -> str:
    """What `--fix` (or `--diff`, `dry_run`) did, in lines: fixed counts only the breaks removed."""
    removed = sum(change.breaks_removed for change in changes)
    rare = sum(change.rare_breaks_removed for change in changes)
    moved = sum(change.breaks_moved for change in changes)
    kept = sum(change.still_reported for change in changes)
    files = sum(1 for change in changes if change.breaks_removed)
    # Breaks only on error or misconfiguration branches are counted apart: fixing them changes
    # nothing on the hot path (Finding.frequency).
    split = f" ({removed - rare} on every call, {rare} only on rare branches)" if rare else ""
    lines = [f"{'Would fix' if dry_run else 'Fixed'} {removed} graph break(s){split} in {files} file(s)."]
    if moved:
        lines.append(f"{'Would move' if dry_run else 'Moved'} {moved} graph break(s) {MOVED_NOTE}; not counted as fixed.")
    if kept:
        lines.append(f"{kept} rewrite(s) {'would leave' if dry_run else 'left'} their graph break reported; "
                     "not counted as fixed.")
    if len(changes) > files:  # files rewritten with no removal confirmed are written all the same
        lines.append(f"{'Would rewrite' if dry_run else 'Rewrote'} {len(changes)} file(s) in all.")
    return "\n".join(lines) + "\n"
