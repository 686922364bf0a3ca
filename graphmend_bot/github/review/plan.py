"""Decide what to post on a pull request: pure, no network. Event -> plan -> API calls.

Given this run's findings, the diff and the bot's comments from earlier runs (known by their author,
never by a marker alone: anyone can type one), the plan says which
findings get a new inline comment (at most `limit` per review), which were already commented
(hidden fingerprint), which go to annotations (not on a line in the diff) and which old comments
are stale (their finding is gone): deleted, or marked resolved when someone replied to them.

A break is new when the base commit's solve lacks it (analysis/base_comparison.py): on a line the
pull request added, or on an unchanged line its data flow now breaks (blamed on the changed call).
One the base has too (an `.item()` on a context line three lines above an added `print`, a line
only moved) was there before: its comment, its line in the review body and the summary's counts
say pre-existing, and new ones get the comment slots first. Where the base was not solved (a
file renamed or deleted, the API short of reads), a break is new on a line the change added or
where an added call brought it in; a fork's bundle carries its base's answer, held to the trusted
diff (fork.trusted_base).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphmend_bot.edits import apply_in_order
from graphmend_bot.findings import (
    CheckResult,
    Finding,
    Fix,
    lacked_by_base,
    pointed_at,
    pointers,
    repeat_counts,
)
from graphmend_bot.github.core.markers import SUMMARY_MARKER, finding_marker, parse_finding_marker
from graphmend_bot.github.review.diff import DiffFile, parse_patch
from graphmend_bot.github.review.suggestion import suggestion_for
from graphmend_bot.report.markdown import (
    SummaryView,
    finding_comment,
    findings_review_body,
    resolved_comment,
    summary_markdown,
)
from graphmend_bot.source_lines import physical_lines

if TYPE_CHECKING:  # PyGithub is loaded only where the bot talks to GitHub (not by `graphmend review`)
    from github.PullRequest import ReviewComment

MAX_COMMENTS_PER_REVIEW = 30


@dataclass(frozen=True)
class ExistingComment:
    """A review comment already on the pull request, as the API listed it."""

    id: int
    body: str
    in_reply_to_id: int | None = None
    by_bot: bool = False  # written by the bot's own login: only then does its fingerprint count


@dataclass(frozen=True)
class PlannedComment:
    finding: Finding
    key: str
    path: str
    line: int
    start_line: int | None
    body: str
    new: bool = True  # on a line the pull request added; False: an unchanged context line

    def as_api(self) -> ReviewComment:
        """The `comments[]` item of `POST /repos/{owner}/{repo}/pulls/{n}/reviews`."""
        item: ReviewComment = {"path": self.path, "line": self.line, "side": "RIGHT", "body": self.body}
        if self.start_line is not None:
            item["start_line"] = self.start_line
            item["start_side"] = "RIGHT"
        return item


@dataclass
class ReviewPlan:
    new_comments: list[PlannedComment] = field(default_factory=list)
    overflow: list[PlannedComment] = field(default_factory=list)  # in the diff, over the per-review limit
    already_commented: list[Finding] = field(default_factory=list)
    outside_diff: list[Finding] = field(default_factory=list)  # -> annotations
    delete: list[int] = field(default_factory=list)  # stale comments nobody replied to
    resolve: list[tuple[int, str]] = field(default_factory=list)  # stale comments with replies: new body
    new: list[Finding] = field(default_factory=list)  # on lines the pull request added
    preexisting: list[Finding] = field(default_factory=list)  # on unchanged lines shown in the diff

    @property
    def inline(self) -> int:
        return len(self.new_comments) + len(self.already_commented)


def finding_keys(findings: Sequence[Finding]) -> list[str]:
    """One key per finding: its fingerprint, numbered when identical lines repeat in one function."""
    order = sorted(range(len(findings)), key=lambda i: findings[i].sort_key)
    keys = [""] * len(findings)
    for index, before in zip(order, repeat_counts(findings[i].fingerprint for i in order)):
        fingerprint = findings[index].fingerprint
        keys[index] = f"{fingerprint}.{before + 1}" if before else fingerprint
    return keys


def _shown(finding: Finding, diff: DiffFile | None, source: str | None) -> bool:
    """The finding's line is in the diff, as the checkout has it (else: the checkout is not the
    commit the diff is about)."""
    row = finding.location.row
    if diff is None or source is None:
        return False
    lines = physical_lines(source)
    return row <= len(lines) and diff.commentable(row, row) and diff.matches(row, lines[row - 1])


def _on_added_line(finding: Finding, diff: DiffFile | None) -> bool:
    return diff is not None and finding.location.row in diff.added


def _place(finding: Finding, key: str, diff: DiffFile | None, source: str | None,
           unsafe: bool = False, new: bool = True, suggested: dict[tuple[str, Fix], int] | None = None,
           ) -> PlannedComment | None:
    """Where a finding's comment goes in the diff, with a suggestion when the fix fits there
    (an unsafe fix's too with `unsafe`, labelled with what it assumes); `new`: the change made
    it (else its comment says pre-existing). `suggested`: the fixes already suggested in this
    review, by the line of their comment (filled in here): a fix shared by several findings (one
    guard over adjacent prints) is suggested once, the other comments point at it."""
    if diff is None or source is None or not _shown(finding, diff, source):
        return None
    row = finding.location.row
    lines = physical_lines(source)
    marker = finding_marker(key)
    suggested = {} if suggested is None else suggested
    shared = (finding.path, finding.fix)  # a Fix is a value: equal edits in two files are two fixes
    if finding.fix is not None and shared in suggested:
        body = finding_comment(finding, marker, preexisting=not new, suggested_at=suggested[shared])
        return PlannedComment(finding, key, finding.path, row, None, body, new)
    suggestion = suggestion_for(finding, source, unsafe)
    if suggestion is not None and diff.commentable(suggestion.first_line, suggestion.last_line) and all(
        diff.matches(r, lines[r - 1]) for r in range(suggestion.first_line, suggestion.last_line + 1)
    ):
        first, last = suggestion.first_line, suggestion.last_line
        body = finding_comment(finding, marker, suggestion.text, preexisting=not new)
        if finding.fix is not None:
            suggested[(finding.path, finding.fix)] = last
        return PlannedComment(finding, key, finding.path, last, first if first != last else None, body, new)
    return PlannedComment(finding, key, finding.path, row, None, finding_comment(finding, marker, preexisting=not new),
                          new)


def plan_review(
    findings: Sequence[Finding],
    diffs: Mapping[str, DiffFile],
    sources: Mapping[str, str],
    existing: Sequence[ExistingComment],
    head_sha: str,
    limit: int = MAX_COMMENTS_PER_REVIEW,
    unsafe: bool = False,
    before: frozenset[str] | None = None,
) -> ReviewPlan:
    """`unsafe` (`fixes: verified`): unsafe fixes are suggested too, each labelled with its assumptions.
    `before`: the fingerprints of the base commit's findings (CheckResult.base): a finding is new
    when the base lacks it, wherever it is; None (the base was not solved): when it is on a line the
    change added, or an added call brought it into traced code."""
    plan = ReviewPlan()
    keys = finding_keys(findings)
    current = set(keys)
    commented: dict[str, ExistingComment] = {}
    for comment in existing:
        parsed = parse_finding_marker(comment.body) if comment.by_bot else None
        if parsed is not None and comment.in_reply_to_id is None:
            key, resolved = parsed
            if not resolved:
                commented.setdefault(key, comment)
    placed_in_diff: list[PlannedComment] = []
    suggested: dict[tuple[str, Fix], int] = {}
    # A break an added call brought into traced code is new wherever its line is; the finding at
    # the call only points at it (findings.pointers): one break, counted at its line.
    brought, pointing = pointed_at(findings), {id(f) for f in pointers(findings)}
    lacked = lacked_by_base(findings, before, lambda f: _on_added_line(f, diffs.get(f.path))) if before is not None \
        else set()
    for finding, key in zip(findings, keys, strict=True):
        diff, source = diffs.get(finding.path), sources.get(finding.path)
        if before is not None:  # the base's solve says, for a break an added call brought in too
            new = id(finding) in lacked
        elif finding.at in brought:
            new = True
        else:
            new = diff is not None and finding.location.row in diff.added
        # Counted once, at its own line (not at a pointer); outside the diff only when known new.
        counted = (new and (before is not None or finding.at in brought)) or _shown(finding, diff, source)
        if id(finding) not in pointing and counted:
            (plan.new if new else plan.preexisting).append(finding)
        if key in commented:
            plan.already_commented.append(finding)
            continue
        placed = _place(finding, key, diff, source, unsafe, new, suggested=suggested)
        if placed is None:
            plan.outside_diff.append(finding)
        else:
            placed_in_diff.append(placed)
    # New breaks take the comment slots first; the order of the comments stays the findings' order.
    chosen = {id(c) for c in sorted(placed_in_diff, key=lambda c: not c.new)[:limit]}
    plan.new_comments = [c for c in placed_in_diff if id(c) in chosen]
    plan.overflow = [c for c in placed_in_diff if id(c) not in chosen]
    replied = {c.in_reply_to_id for c in existing if c.in_reply_to_id is not None}
    for key, comment in commented.items():
        if key in current:
            continue
        if comment.id in replied:
            plan.resolve.append((comment.id, resolved_comment(comment.body, finding_marker(key, True), head_sha)))
        else:
            plan.delete.append(comment.id)
    return plan


def fix_diff(findings: Sequence[Finding], sources: Mapping[str, str]) -> str:
    """Unified diff of every safe fix applied: what the fix pull request would change. The fixes are
    applied as one pass of `--fix` applies them (edits.apply_in_order), a fix shared by several
    findings (one guard over adjacent prints) once."""
    chunks = []
    for path in sorted({f.path for f in findings}):
        source = sources.get(path)
        fixes = list(dict.fromkeys(f.fix for f in findings if f.path == path and f.fix and f.fix.applicability == "safe"))
        if source is None or not fixes:
            continue
        try:
            fixed = apply_in_order(source, fixes)[0]
        except ValueError:
            continue  # an edit past the end of the file: the checkout is not the commit analysed
        if fixed != source:
            chunks.append("".join(difflib.unified_diff(
                physical_lines(source, keepends=True), physical_lines(fixed, keepends=True), f"a/{path}", f"b/{path}")))
    return "".join(chunks)


@dataclass
class PreparedReview:
    """Everything a review run would post, before any API call: the bot posts it, `graphmend review`
    prints it. One function builds it for both, so the local preview cannot drift from the bot."""

    plan: ReviewPlan
    view: SummaryView  # the summary comment's content; `inline` is what was planned
    body: str  # the body of the review that holds the new comments ("" when there are none)


def prepare_review(
    result: CheckResult,
    patches: Mapping[str, str | None],
    sources: Mapping[str, str],
    existing: Sequence[ExistingComment],
    head_sha: str,
    limit: int = MAX_COMMENTS_PER_REVIEW,
    blob_url: str = "",
    unsafe: bool = False,
) -> PreparedReview:
    """`patches`: each changed Python file's unified-diff hunks (the `patch` of `GET .../pulls/{n}/files`).
    `unsafe`: also offer unsafe fixes as labelled suggestions (`fixes: verified`)."""
    diffs = {path: parse_patch(path, patch) for path, patch in patches.items()}
    before = result.base.fingerprints if result.base is not None else None
    plan = plan_review(result.findings, diffs, sources, existing, head_sha, limit, unsafe=unsafe, before=before)
    pointing = {id(f) for f in pointers(result.findings)}
    view = SummaryView(
        findings=[f for f in result.findings if id(f) not in pointing], errors=result.errors, files_checked=result.files_checked,
        changed_files=len(patches), head_sha=head_sha, blob_url=blob_url, inline=plan.inline,
        fix_diff=fix_diff(result.findings, sources), new=frozenset(plan.new), baselined=result.baselined,
        removed=result.base.removed if result.base is not None else None,
    )
    body = findings_review_body(plan.new_comments, plan.overflow, limit) if plan.new_comments else ""
    return PreparedReview(plan, view, body)


def summary_comment(view: SummaryView) -> str:
    """The summary comment's body as posted: the Markdown and the marker that finds it next time."""
    return f"{summary_markdown(view).rstrip()}\n\n{SUMMARY_MARKER}\n"
