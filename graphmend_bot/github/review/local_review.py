"""`graphmend review --base REF`: the pull-request review, printed instead of posted.

The working tree against REF stands for the pull request: git gives the changed files and their
patches (git_changes.py), the engine checks them with the whole tree as context, and
`prepare_review` (the bot's own planning) decides every comment, the review body and the summary
comment. No network and no token: as on a pull request the bot has not commented on yet.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from graphmend_bot.analysis.cache_trust import project_cache
from graphmend_bot.census.budget import BUDGET_FILE, Budget, parse_budget_bytes
from graphmend_bot.census.record import Census, CensusError, load_census
from graphmend_bot.config import Config
from graphmend_bot.engine import check_change
from graphmend_bot.fences import code_span
from graphmend_bot.findings import CheckResult, Finding, pointers
from graphmend_bot.github.review.analyse import read_sources, with_fixes
from graphmend_bot.github.review.base_baseline import with_base_baseline
from graphmend_bot.github.review.base_texts import texts_from_git
from graphmend_bot.github.review.diff import added_lines, replaced_calls
from graphmend_bot.github.review.git_changes import WorkingTreeChange, show_file, working_tree_change
from graphmend_bot.github.review.plan import (
    MAX_COMMENTS_PER_REVIEW,
    PreparedReview,
    prepare_review,
    summary_comment,
)
from graphmend_bot.report.terminal import terminal_text, visible
from graphmend_bot.report.untrusted_text import markdown_text

OUTPUT_FORMATS = ("text", "markdown", "json")


@dataclass(frozen=True)
class LocalReview:
    change: WorkingTreeChange
    prepared: PreparedReview
    gate_failure: str | None = None  # why `--fail-on new-breaks` fails; None: no census comparison was asked for

    @property
    def findings(self) -> list[Finding]:
        return self.prepared.view.findings


def review_working_tree(base: str, paths: Sequence[str], config: Config,
                        limit: int = MAX_COMMENTS_PER_REVIEW, census_file: Path | None = None,
                        use_cache: bool = False, census_base: Path | None = None) -> LocalReview:
    """Plan the review of the working tree against `base`; raises GitError with a message for the user.

    Runs from the repository's top, as the bot runs from its workspace, so that paths in findings
    are the paths in the diff. `census_file` (an absolute path): a `pytest --graphmend-census` file
    to merge, as the bot merges its `census-file` input; one it cannot use is a note, and the
    review is the static one. `use_cache`: keep summaries in the repository's summary cache.
    `census_base` (an absolute path): the base's census, for the summary's +N / -M table of the
    breaks the change added and removed; the budget is `graphmend-breaks.json` in `base`'s tree."""
    change = working_tree_change(Path.cwd(), base)
    roots = [os.path.relpath(os.path.abspath(p), change.root).replace(os.sep, "/") for p in paths or ["."]]
    os.chdir(change.root)
    changed = [f.path for f in change.files]
    cache = project_cache(Path(change.root), _warn) if use_cache else None
    patches = {f.path: f.patch for f in change.files}
    config = with_base_baseline(config, Path(change.root), partial(show_file, Path(change.root), change.base), _warn)
    # Files deleted or renamed away are in the base under their old paths (engine's Workspace.revert).
    before = texts_from_git(Path(change.root), change.base, [*changed, *change.gone])
    result = with_fixes(check_change(roots, config, changed, added_lines(patches), cache, replaced_calls(patches),
                                     patches, before, dict(change.renamed)),
                        config, _warn) if changed else CheckResult()
    notes: list[str] = []
    head_census: Census | None = None
    if census_file is not None:
        result, note, head_census = _with_census(result, census_file, config, change, changed)
        notes.append(note)
    sources = read_sources(changed, change.root)
    prepared = prepare_review(result, {f.path: f.patch for f in change.files}, sources, [], change.head, limit)
    prepared.view.notes = [*prepared.view.notes, *notes]
    gate = None
    if census_base is not None:
        prepared.view.breaks, gate = _break_table(census_base, head_census, change)
    return LocalReview(change, prepared, gate)


def _break_table(census_base: Path, head: Census | None, change: WorkingTreeChange) -> tuple[list[str], str]:
    """The summary's +N / -M table against the base's census and the budget in the base's tree, and
    why the gate fails ("" when it passes)."""
    from graphmend_bot.census.compare import compare, gate_failure
    from graphmend_bot.report.break_table import break_table

    if head is None:
        return [], "no usable census of the head (--census)"
    try:
        base = load_census(census_base)
        budget = base_budget(change)
    except CensusError as error:
        _warn(f"graph breaks not compared: {error}")
        return [f"> Graph breaks not compared: {markdown_text(str(error))}."], str(error)
    comparison = compare(base, head, budget)
    return break_table(comparison), gate_failure(comparison, "")


def base_budget(change: WorkingTreeChange) -> Budget | None:
    """`graphmend-breaks.json` in the base's tree, as the bot reads it (never the working tree's)."""
    data = show_file(Path(change.root), change.base, BUDGET_FILE)
    return parse_budget_bytes(data) if data is not None else None


def _with_census(result: CheckResult, census_file: Path, config: Config, change: WorkingTreeChange,
                 changed: Sequence[str]) -> tuple[CheckResult, str, Census | None]:
    """The census merged when it was recorded on the commit checked out, and the note saying so."""
    from graphmend_bot.census.merge import merge_census
    from graphmend_bot.github.core.census_input import describe_merge, unused_census_note
    from graphmend_bot.rules import RUNTIME_RULES, select_codes

    try:
        if not change.head:
            raise CensusError("the working tree changes Python files since HEAD, so no census (recorded on a commit) "
                              "matches what is reviewed; commit first")
        census = load_census(census_file, expected_commit=change.head)
    except CensusError as error:
        _warn(f"Dynamo's census was not used: {error}. The findings are the static analysis alone.")
        return result, unused_census_note(error), None
    merged = merge_census(result, census, change.root, changed, select_codes(config.select, config.ignore,
                                                                             RUNTIME_RULES))
    return merged, describe_merge(merged, census, change.head), census


def _warn(message: str) -> None:
    print(terminal_text(f"graphmend: warning: {visible(message)}"), file=sys.stderr)


def _location(path: str, line: int, start_line: int | None) -> str:
    return f"{path}:{start_line}-{line}" if start_line is not None else f"{path}:{line}"


def annotated(review: LocalReview) -> list[Finding]:
    """The findings the bot reports as annotations once its review is posted: those with no inline
    comment (not on a line of the diff, or over the per-review limit)."""
    inline = {id(c.finding) for c in review.prepared.plan.new_comments}
    return [f for f in review.findings if id(f) not in inline]


def _not_inline(review: LocalReview) -> list[str]:
    return [f"{f.path}:{f.location.row}:{f.location.column}: {f.code} {f.message}" for f in annotated(review)]


def _heading(review: LocalReview) -> str:
    change = review.change
    against = f"{change.head[:7]} against {change.base[:7]}" if change.head else \
        f"the working tree against {change.base[:7]}"
    return f"GraphMend review of {against}: {len(change.files)} changed Python file(s)"


def render_text(review: LocalReview) -> str:
    plan, prepared = review.prepared.plan, review.prepared
    out = [_heading(review), ""]
    if not review.prepared.view.worth_posting:
        out.append("No graph breaks in the changed Python files: the bot would post nothing.")
        return "\n".join(out) + "\n"
    out += [f"== Review: {len(plan.new_comments)} inline comment(s) ==", ""]
    if prepared.body:
        out += [prepared.body, ""]
    for comment in plan.new_comments:
        out += [f"--- {_location(comment.path, comment.line, comment.start_line)} ---", comment.body, ""]
    outside = _not_inline(review)
    if outside:
        out += [f"== Annotations (no inline comment): {len(outside)} ==", "", *outside, ""]
    out += ["== Summary comment ==", "", summary_comment(prepared.view).rstrip(), ""]
    out += ["== What the fix pull request would change ==", ""]
    out.append(prepared.view.fix_diff.rstrip("\n") or "No finding has a safe automatic rewrite.")
    return terminal_text("\n".join(out) + "\n")


def render_markdown(review: LocalReview) -> str:
    plan, prepared = review.prepared.plan, review.prepared
    out = [f"# {_heading(review)}", ""]
    if not review.prepared.view.worth_posting:
        out.append("No graph breaks in the changed Python files: the bot would post nothing.")
        return "\n".join(out) + "\n"
    out += [f"## Review: {len(plan.new_comments)} inline comment(s)", ""]
    if prepared.body:
        out += [prepared.body, ""]
    for comment in plan.new_comments:
        # File names and messages come from the change: a backtick in one must not end its code span.
        out += [f"### {code_span(_location(comment.path, comment.line, comment.start_line))}", "", comment.body, ""]
    outside = _not_inline(review)
    if outside:
        out += ["## Annotations (no inline comment)", "", *[f"- {code_span(line)}" for line in outside], ""]
    out += ["## Summary comment", "", summary_comment(prepared.view).rstrip(), ""]
    return terminal_text("\n".join(out) + "\n")


def render_json(review: LocalReview) -> str:
    plan, prepared = review.prepared.plan, review.prepared
    view = prepared.view
    document = {
        "base": review.change.base,
        "head": review.change.head or None,
        "changed_files": [f.path for f in review.change.files],
        "review": {
            "body": prepared.body,
            "comments": [dict(c.as_api()) for c in plan.new_comments],
        },
        "annotations": [{"path": f.path, "line": f.location.row, "code": f.code, "message": f.message}
                        for f in annotated(review)],
        "summary_comment": summary_comment(prepared.view) if review.prepared.view.worth_posting else None,
        "fix_diff": prepared.view.fix_diff,
        "findings": len(review.findings) - len(pointers(review.findings)),  # a pointer is no second break
        # New (the base's solve lacks them, or, the base not solved, on lines the change added), and
        # pre-existing: every other finding, the summary comment's two counts (review16's finding 9).
        "new": len(plan.new),
        "pre_existing": len(view.findings) - sum(f in view.new for f in view.findings) if view.new is not None
        else 0,
        # The new ones under their name from before the base was solved, and the pre-existing ones on
        # lines of the diff (inline comments labelled pre-existing), a part of `pre_existing`.
        "new_on_added_lines": len(plan.new),
        "pre_existing_on_context_lines": len(plan.preexisting),
        # Against the base commit's solve (None: not solved, as when no changed file is in the program).
        "removed": None if prepared.view.removed is None else [
            {"path": f.path, "line": f.location.row, "code": f.code, "message": f.message}
            for f in prepared.view.removed],
    }
    return json.dumps(document, indent=2) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}
