"""The approval policy of `graphmend approve` and the review it writes.

`decide` judges the measurement, a pure function over the JSON of `graphmend verify --json`: it
recomputes each entry point's verdict with the verify policy's own function
(`verify.judgement.judge_arms`: both arms ran, no graph added, outputs equivalent) rather than
believe the report's `verdict`, and adds only the approval's own rules: no graph break added, at
least one gone, and every rewritten line executed by an entry point (`verify.proof.rewrite_coverage`:
a fix no entry point ran is not proven). APPROVE only when all hold; REQUEST_CHANGES with the
reasons when the measurement fails, COMMENT naming the unproven lines when it passes but does not
cover the rewrite.
`with_rewrite_check` adds the other half, also pure: a pull request that is not exactly GraphMend's
rewrite of its base (as trusted code recomputed it) gets a COMMENT, never an approval.
The three steps that gather these inputs are in `graphmend_bot.github.approval`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from graphmend_bot.fences import code_span
from graphmend_bot.github.core.body_budget import GITHUB_BODY_LIMIT, body_size, clipped, lines_fitting
from graphmend_bot.github.core.markers import VERIFY_MARKER
from graphmend_bot.report.untrusted_text import markdown_text
from graphmend_bot.verify.judgement import (
    ERROR,
    NO_GRAPH_ADDED,
    Failure,
    ReportedArm,
    judge_arms,
    reported_arm,
    reported_equivalence,
)
from graphmend_bot.verify.proof import rewrite_coverage
from graphmend_bot.verify.table import markdown_table, outputs_text, pair_text, speedup_text, timing_text

MAX_PROVEN_LISTED = 30

APPROVE, REQUEST_CHANGES, COMMENT = "APPROVE", "REQUEST_CHANGES", "COMMENT"


@dataclass(frozen=True)
class Decision:
    event: str  # APPROVE, REQUEST_CHANGES, or COMMENT when the PR is not exactly the recomputed rewrite
    reasons: list[str] = field(default_factory=list)  # why the measurement does not pass
    removed: int = 0  # graph breaks that went away, over all entry points
    differences: list[str] = field(default_factory=list)  # how the PR departs from the recomputed rewrite
    unproven: list[str] = field(default_factory=list)  # why the measurement does not cover the rewrite
    proven_by: dict[str, list[str]] = field(default_factory=dict)  # "path:line" -> entry points that ran it
    unproven_fixes: list[str] = field(default_factory=list)  # the fixes holding the unproven lines (narrowing.py)

    @property
    def approved(self) -> bool:
        return self.event == APPROVE


def decide(report: Mapping[str, Any]) -> Decision:
    """APPROVE iff every entry point passes the verify policy (recomputed from its arms by
    `judge_arms`, the measurement's own function), no graph break was added, at least one went
    away, and every rewritten line ran; REQUEST_CHANGES with one reason per problem; COMMENT when
    the measurement passes but its coverage does not prove the rewrite."""
    entries = report.get("entry_points")
    if not isinstance(entries, list) or not entries:
        return Decision(REQUEST_CHANGES, ["no entry point was verified: list them under `verify: entry-points:` "
                                          "in the configuration"])
    reasons: list[str] = []
    removed = 0
    for entry in entries:
        if not isinstance(entry, dict):
            reasons.append("a malformed entry in the verify report")
            continue
        name = str(entry.get("name", "?"))
        original, rewritten = reported_arm(entry.get("original")), reported_arm(entry.get("rewritten"))
        verdict = judge_arms(original, rewritten, partial(reported_equivalence, entry))
        reasons += [f"`{name}`: {_approval_reason(failure, original, rewritten)}" for failure in verdict.failures]
        if verdict.outcome == ERROR:
            continue
        # The approval's own rule, beyond the verdict: graph breaks are what the rewrite is for.
        before, after = original.graph_break_count or 0, rewritten.graph_break_count or 0
        if after > before:
            reasons.append(f"`{name}`: graph breaks rose from {before} to {after}")
        removed += max(0, before - after)
    if removed == 0 and not reasons:
        reasons.append("no graph break went away on any entry point")
    proven_by, unproven = rewrite_coverage(report)
    event = REQUEST_CHANGES if reasons else COMMENT if unproven else APPROVE
    return Decision(event, reasons, removed, unproven=unproven, proven_by=proven_by)


def _approval_reason(failure: Failure, original: ReportedArm, rewritten: ReportedArm) -> str:
    """A failed rule of the verdict, in the review's words."""
    if failure.rule == NO_GRAPH_ADDED:
        return f"the graph count rose from {original.graph_count} to {rewritten.graph_count}"
    return failure.reason


def with_rewrite_check(measured: Decision, differences: list[str]) -> Decision:
    """The final decision: the measured one when the pull request is exactly the recomputed rewrite,
    else a COMMENT (never an approval, never a request for changes on code the bot did not write)."""
    if not differences:
        return measured
    return replace(measured, event=COMMENT, differences=list(differences))


def results_table(report: Mapping[str, Any]) -> str:
    """The verify results as a Markdown table (from the JSON the GPU job produced)."""
    headers = ["Entry point", "Graphs", "Breaks", "Cold start", "Speedup", "Steady state", "Speedup", "Outputs",
               "Verdict"]
    rows = []
    for entry in report.get("entry_points") or []:
        if not isinstance(entry, dict):
            continue
        o, r = entry.get("original") or {}, entry.get("rewritten") or {}
        device = o.get("device") or r.get("device") or "-"
        rows.append([
            f"{code_span(str(entry.get('name', '?')))} ({markdown_text(str(device))})",
            pair_text(o.get("graph_count"), r.get("graph_count")),
            pair_text(o.get("graph_break_count"), r.get("graph_break_count")),
            timing_text(o.get("cold_start_s"), r.get("cold_start_s")),
            speedup_text(entry.get("cold_start_speedup")),
            timing_text(o.get("steady_state_s"), r.get("steady_state_s")),
            speedup_text(entry.get("steady_state_speedup")),
            outputs_text(entry.get("outputs_equal")),
            markdown_text(str(entry.get("verdict", "-"))),
        ])
    return "\n".join(markdown_table(headers, rows))


def review_body(report: Mapping[str, Any] | None, decision: Decision, head_sha: str) -> str:
    if decision.approved:
        verdict = (f":white_check_mark: **Verified on a GPU**: {decision.removed} graph break(s) removed, no graph "
                   "count rose, every output equivalent, every rewritten line executed by an entry point. The "
                   "changes are exactly GraphMend's rewrite of the base.")
    elif decision.differences:
        verdict = (":warning: **Not approved: this pull request is not exactly GraphMend's rewrite of its base.** "
                   + _sentences(decision.differences, MAX_VERDICT // 2))
        if decision.reasons:
            verdict += "\n\nThe measurement also found: " + _sentences(decision.reasons, MAX_VERDICT // 2)
    elif decision.reasons:
        verdict = ":x: **Not approved.** " + _sentences(decision.reasons, MAX_VERDICT)
    else:
        verdict = (":grey_question: **Not approved: not every fix is proven.** The measurement passed, but "
                   + _sentences(decision.unproven, MAX_VERDICT // 2)
                   + " Add a `verify: entry-points:` entry that runs them, or drop those fixes.")
        if decision.unproven_fixes:
            verdict += (f"\n\nThe {len(decision.unproven_fixes)} fix(es) holding them are recorded in the fix pull "
                        "request; GraphMend's next run leaves them out (they stay review suggestions), and the "
                        "narrowed pull request is verified again: "
                        + _within([code_span(name) for name in decision.unproven_fixes[:MAX_PROVEN_LISTED]],
                                  MAX_VERDICT // 2, ", ") + ".")
    # Up to 200 entry points, each with texts of up to 4,000 characters: the verdict (above, whole
    # sentences and code spans only) and the table are cut to what GitHub accepts, or the review is
    # refused and maintainers see no verdict.
    parts = [f"### GraphMend GPU verification of `{head_sha[:7]}`", "", verdict, ""]
    tail = [*proven_lines(decision), VERIFY_MARKER]
    if report is not None:
        original, rewritten = report.get("original") or {}, report.get("rewritten") or {}
        parts += [f"Original: {code_span(str(original.get('label', 'base'))[:MAX_LABEL])}; rewritten: "
                  f"{code_span(str(rewritten.get('label', 'head'))[:MAX_LABEL])}. Speedup = original / rewritten.", ""]
        table = results_table(report).split("\n")
        room = GITHUB_BODY_LIMIT - body_size([*parts, *tail]) - 100
        shown = lines_fitting(table, room)
        parts += table[:shown]
        if shown < len(table):
            parts.append(f"| ... {len(table) - shown} more entry point(s) in the job's log |")
        parts.append("")
    return "\n".join([*parts, *tail]) + "\n"


MAX_VERDICT = 20_000
MAX_LABEL = 200


def _sentences(texts: list[str], room: int) -> str:
    """Untrusted texts as sentences, as many as fit in `room` rendered characters. A text is cut
    before it is rendered, never after: a cut inside the Markdown would leave a code span's backtick
    unmatched and let the span's untrusted content render as Markdown (mentions, links, images)."""
    pieces = []
    for text in texts:
        piece = f"{markdown_text(text)}."
        cut = len(text)
        while len(piece) > room and cut > 0:  # one text alone over the room: its start, rendered
            cut //= 2
            piece = f"{markdown_text(clipped(text, cut))}."
        pieces.append(piece)
    return _within(pieces, room, " ")


def _within(pieces: list[str], room: int, separator: str) -> str:
    """Whole rendered `pieces` joined while they fit in `room`, and how many more there are."""
    shown: list[str] = []
    used = 0
    for piece in pieces:
        used += len(piece) + len(separator)
        if used > room:
            break
        shown.append(piece)
    more = len(pieces) - len(shown)
    return separator.join(shown) + (f"{separator}({more} more in the job's log)" if more else "")


def proven_lines(decision: Decision) -> list[str]:
    """Which rewritten lines were proven, and by which entry points (a folded list)."""
    if not decision.proven_by:
        return []
    rows = [f"- {code_span(where)}: {', '.join(code_span(name) for name in names)}"
            for where, names in list(decision.proven_by.items())[:MAX_PROVEN_LISTED]]
    if len(decision.proven_by) > MAX_PROVEN_LISTED:
        rows.append(f"- and {len(decision.proven_by) - MAX_PROVEN_LISTED} more")
    return [f"<details><summary>{len(decision.proven_by)} rewritten line(s) executed by an entry point</summary>",
            "", *rows, "", "</details>", ""]


def verification_status(decision: Decision, head_sha: str) -> str:
    """The line a fix pull request's description carries about its verification."""
    short = head_sha[:7]
    if decision.approved:
        return f"Verified on a GPU at `{short}`: {decision.removed} graph break(s) removed, outputs equal. Approved."
    if decision.differences:
        return (f"GPU verification at `{short}` did not approve: the changes are not exactly GraphMend's rewrite "
                "of the base (" + _listed(decision.differences) + ").")
    if decision.reasons:
        return f"GPU verification at `{short}` requested changes: " + _listed(decision.reasons) + "."
    narrowing = (f" GraphMend's next run leaves out the {len(decision.unproven_fixes)} unproven fix(es)."
                 if decision.unproven_fixes else "")
    return f"GPU verification at `{short}` did not approve: " + _listed(decision.unproven) + "." + narrowing


# The fix pull request's description holds this line; the review holds every reason in full.
MAX_STATUS = 3_000


def _listed(texts: list[str]) -> str:
    return markdown_text(clipped("; ".join(texts), MAX_STATUS))
