"""The review summary's table of the graph breaks a pull request added and removed (Dynamo's census).

Every value in it comes from census files, which a pull request's tests may have written: paths,
functions, targets and test ids go through `code_span`, reasons and errors through `markdown_text`,
and a graph-break id is linked only after the census reader checked its form (GB and four digits).
A target whose explain failed on the head is said to have failed to compile, never counted as 0
breaks.
"""

from __future__ import annotations

from urllib.parse import quote

from graphmend_bot.census.compare import Comparison, TargetChange, TargetSummary
from graphmend_bot.census.record import BreakRecord
from graphmend_bot.fences import code_span
from graphmend_bot.report.untrusted_text import markdown_text
from graphmend_bot.rules import gb_url

MAX_ROWS = 50
MAX_ERROR = 200
# Characters for each list of the table (notes, rows, targets): the census's text is the pull
# request's, and the summary is cut past report/markdown.MAX_BODY, so the table must leave room for
# the findings and the gate's verdict that follow it.
MAX_LIST_CHARS = 6_000


def break_heading(comparison: Comparison) -> str:
    return f"Graph breaks in this PR (Dynamo census): +{len(comparison.added)} / -{len(comparison.removed)}"


def break_table(comparison: Comparison, blob_url: str = "", base_label: str = "") -> list[str]:
    """Markdown lines: the heading, the added and removed breaks, the targets that failed to
    compile on the head, and graphs, breaks, recompiles and fallbacks per target (base -> head).
    `blob_url`: the head's blob URL, for links to added lines; `base_label`: where the base came from
    (Markdown the caller made safe)."""
    lines = [f"### {break_heading(comparison)}", ""]
    base = f"`{comparison.base_commit[:12]}`" if comparison.base_commit else "the budget alone"
    lines.append(f"Compared with {base}{f' ({base_label})' if base_label else ''}; breaks are matched by file, "
                 "graph-break id, function and line text, so moved lines are neither added nor removed.")
    failed = comparison.failed_on_head
    notes = _fitting([_failed_note(change) for change in failed[:MAX_ROWS]])
    if len(failed) > len(notes):  # every failure unlisted still makes 0 breaks unclean: say how many
        notes.append(f"> ... and {len(failed) - len(notes)} more target(s) failed to compile on the head "
                     "(`graphmend census --compare`): their graph breaks are unknown too.")
    notes += _fitting([_missing_note(change) for change in comparison.missing_on_head[:MAX_ROWS]])
    for note in notes:
        lines += ["", note]
    lines += _fitting([f"> {markdown_text(problem[:1].upper() + problem[1:])}." for problem in comparison.problems])
    if comparison.accepted:
        lines += ["", f"{len(comparison.accepted)} new break(s) are in the budget (`graphmend-breaks.json` at the "
                  "base): accepted, not counted as added."]
    rows = [("+", record, blob_url) for record in comparison.added] + [("-", record, "")
                                                                        for record in comparison.removed]
    if rows:
        lines += ["", "| | Location | Reason | Graph break | Test | Function |", "|---|---|---|---|---|---|"]
        shown = _fitting([_row(sign, record, link) for sign, record, link in rows[:MAX_ROWS]])
        lines += shown
        if len(rows) > len(shown):
            lines.append(f"| | ... | {len(rows) - len(shown)} more (`graphmend census --compare`) | | | |")
    if comparison.targets:
        lines += ["", "<details><summary>Per census target (base → head)</summary>", "",
                  "| Target | Graphs | Breaks | Recompiles | Fallbacks to eager |", "|---|---:|---:|---:|---:|"]
        targets = _fitting([_target_row(change) for change in comparison.targets[:MAX_ROWS]])
        lines += targets
        if len(comparison.targets) > len(targets):
            lines.append(f"| ... {len(comparison.targets) - len(targets)} more | | | | |")
        lines += ["", "</details>"]
    return lines


def _fitting(lines: list[str]) -> list[str]:
    """The first of `lines` that fit in MAX_LIST_CHARS together."""
    total = 0
    for count, line in enumerate(lines):
        total += len(line) + 1
        if total > MAX_LIST_CHARS:
            return lines[:count]
    return lines


def _failed_note(change: TargetChange) -> str:
    assert change.head is not None
    error = markdown_text(change.head.error[:MAX_ERROR])
    return (f"> **{code_span(change.target)} failed to compile on the head** ({error}): its graph breaks are "
            "unknown, so 0 is not clean.")


def _missing_note(change: TargetChange) -> str:
    return (f"> {code_span(change.target)} was not called by the head's tests: its graph breaks there are unknown, "
            "and a break of it listed as removed may only not have run.")


def _row(sign: str, record: BreakRecord, blob_url: str) -> str:
    where = code_span(f"{record.path}:{record.line}")
    if blob_url:
        where = f"[{where}]({blob_url}/{quote(record.path)}#L{record.line})"
    gb = f"[{record.gb_id}]({gb_url(record.gb_id)})" if record.gb_id else "no id"
    test = code_span(record.test) if record.test else ""
    function = code_span(record.function) if record.function else "(module level)"
    return f"| {sign} | {where} | {markdown_text(record.reason)} | {gb} | {test} | {function} |"


def _target_row(change: TargetChange) -> str:
    cells = [f"{_side(change.base, name)} → {_side(change.head, name)}"
             for name in ("graphs", "breaks", "recompiles", "fallbacks")]
    return f"| {code_span(change.target)} | {' | '.join(cells)} |"


def _side(summary: TargetSummary | None, name: str) -> str:
    if summary is None:
        return "–"
    if summary.failed and summary.calls == summary.failed:
        return "failed to compile"
    value = str(getattr(summary, name))
    return f"{value} (+{summary.failed} failed)" if summary.failed else value
