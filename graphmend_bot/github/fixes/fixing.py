"""When to open, update, push or close a fix: the pull-request event, commands and scans.

Each function returns one sentence for the log or for the reply to a `/graphmend` command, and
raises the API's exceptions for the caller to describe.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass

from github.PullRequest import PullRequest
from github.Repository import Repository

from graphmend_bot.config import Config
from graphmend_bot.fences import code_span
from graphmend_bot.findings import Finding
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.identity import BotIdentity
from graphmend_bot.github.core.markers import REPLY_MARKER
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.fixes.fix_pr import (
    FixPlan,
    breaks_changed,
    close_fix,
    find_fix_pull,
    fix_body,
    fix_branch_for,
    fix_branch_for_pull,
    is_fix_branch,
    plan_fix,
    publish_fix,
    push_to_branch,
    valid_branch,
)
from graphmend_bot.github.fixes.fix_set import bot_fix_set
from graphmend_bot.github.fixes.narrowing import exclusions_in, narrow
from graphmend_bot.github.review.analyse import analyse


class Refused(Exception):
    """The fix cannot be made here (a fork, a closed pull request, a branch name): the message says why."""


def is_fork(pr: PullRequest, repository: str) -> bool:
    head_repo = pr.head.repo
    return head_repo is None or head_repo.full_name != repository


def python_files(pr: PullRequest) -> list[str]:
    return [f.filename for f in pr.get_files() if f.filename.endswith(".py") and f.status != "removed"]


def compute_plan(ctx: ActionContext, config: Config, log: Log, only: list[str] | None,
                 safe_only: bool = False, exclude: Collection[str] = ()) -> FixPlan:
    """The rewrites of the workspace (limited to `only`), with the findings they fix: the safe
    ones, and with `fixes: verified` the unsafe ones too (the verify workflow checks their
    assumptions), limited to what the verify entry points reach (fix_set.py), without the fixes
    an approval found unproven (`exclude`, narrowing.py)."""
    fixes = "safe" if safe_only else ctx.inputs.fixes
    result = analyse(ctx, config, log, only=only)  # also enters the workspace
    fix_set = bot_fix_set(ctx.inputs.paths, config, fixes)
    if fix_set.note:
        log.notice(fix_set.note)
    triples = [(os.path.relpath(os.path.abspath(c.path), ctx.workspace).replace(os.sep, "/"), c.before, c.after)
               for c in fix_set.changes]
    narrowed = narrow(triples, exclude)
    if narrowed.unknown:
        log.notice(f"{len(narrowed.unknown)} recorded unproven fix(es) are no longer in the rewrite (the source "
                   "moved): ignored, the fix is verified afresh")
    if narrowed.dropped:
        log.notice(f"left out {len(narrowed.dropped)} fix(es) no verify entry point executed: "
                   + ", ".join(narrowed.dropped))
    findings = [finding for finding in result.findings
                if fix_set.includes(finding.symbol) and not _in_dropped(finding, narrowed.dropped, ctx.workspace)]
    plan = plan_fix(narrowed.changes, findings, ctx.workspace, set(only) if only is not None else None,
                    fix_set.unsafe)
    plan.dropped = narrowed.dropped
    for path in plan.skipped:
        log.notice(f"{path}: the bot never changes workflow files; fix it by hand")
    return plan


def _in_dropped(finding: Finding, dropped: Collection[str], workspace: str | os.PathLike[str]) -> bool:
    """The finding lies in a fix left out of the fix pull request (it stays a review suggestion)."""
    path = os.path.relpath(os.path.abspath(finding.path), workspace).replace(os.sep, "/")
    for name in dropped:
        where, _, lines = name.rpartition(":")
        first, _, last = lines.partition("-")
        if where == path and int(first) <= finding.location.row <= max(int(first), int(last)):
            return True
    return False


def recorded_exclusions(repo: Repository, branch: str, log: Log, bot: BotIdentity) -> list[str]:
    """The fixes an approval recorded as unproven in the bot's open fix pull request on `branch`
    (narrowing.py). Only the bot's own pull request counts; a record can only remove fixes."""
    pull = find_fix_pull(repo, branch)
    if pull is None or not bot.wrote(pull.user):
        return []
    names, problem = exclusions_in(pull.body)
    if problem:
        log.warning(f"#{pull.number}: {problem}; the fix pull request is rebuilt in full")
    return names


@dataclass(frozen=True)
class Source:
    """What a fix is for: a pull request, or a branch for scheduled scans."""

    label: str  # "#12" or "`main`"
    branch: str  # the fix branch
    base: str  # where the fix pull request goes
    sha: str  # the commit the fix starts from


def sync_fix(repo: Repository, source: Source, plan: FixPlan, log: Log, on: PullRequest | None = None) -> str:
    """Open or update the fix pull request, or close it when nothing is left to fix."""
    if plan.empty:
        outcome = close_fix(repo, source.branch, f"Nothing left to fix in {source.label} at `{source.sha[:7]}`: "
                            "its graph breaks are fixed or gone. Closing.", log)
        kind = "" if plan.verified else "safe "
        return (f"No {kind}rewrite is left; closed the fix pull request." if outcome.closed
                else f"No graph break here has a {kind}automatic rewrite; nothing to open.")
    count = len(plan.rewrites) or len(plan.files)
    title = f"GraphMend: {breaks_changed(plan)} in {source.label}"
    kind = "Rewrites (unsafe ones unproven until verified)" if plan.unsafe else "Safe rewrites"
    message = (f"GraphMend: {breaks_changed(plan, 'torch.compile graph break(s)')}\n\n"
               f"{kind} for {source.label} at {source.sha[:7]}, made by graphmend bot.")
    body = fix_body(plan, source.label, source.sha)
    outcome = publish_fix(repo, source.branch, source.base, source.sha, plan, title, body, message, log)
    assert outcome.pull is not None
    what = f"{count} safe rewrite(s)"
    if plan.unsafe:
        what = f"{count} rewrite(s), {len(plan.unsafe)} of them unsafe until verified,"
    if outcome.created and on is not None:
        on.create_issue_comment(f"GraphMend opened #{outcome.pull.number} with {what} for this "
                                f"pull request; merge it into `{source.base}` to apply them.\n\n{REPLY_MARKER}")
    verb = "Opened" if outcome.created else "Updated" if outcome.pushed else "Checked"
    return f"{verb} #{outcome.pull.number} ({what} on `{source.branch}`)."


def pull_source(pr: PullRequest) -> Source:
    return Source(f"#{pr.number}", fix_branch_for_pull(pr.number), pr.head.ref, pr.head.sha)


def fix_pull_request(ctx: ActionContext, config: Config, log: Log, repo: Repository, pr: PullRequest,
                     bot: BotIdentity, push: bool = False, announce: bool = True) -> str:
    """The fix for a pull request whose head is checked out in the workspace; raises Refused."""
    if is_fix_branch(pr.head.ref):
        raise Refused("This is GraphMend's own fix pull request: nothing to fix here.")
    if is_fork(pr, ctx.repository):
        raise Refused("The pull request comes from a fork: the bot cannot open a pull request into its branch or "
                      "push to it. Apply the suggestions in the review, or run `graphmend check --fix` locally.")
    if pr.state != "open":
        raise Refused(f"#{pr.number} is {pr.state}: nothing to fix.")
    if not valid_branch(pr.head.ref):
        raise Refused(f"The branch name {code_span(pr.head.ref[:200])} is not one the bot will write to.")
    # A push goes straight onto the contributor's branch, past the verification that gates unsafe
    # fixes in a fix pull request: it carries the safe ones only.
    source = pull_source(pr)
    exclude = [] if push else recorded_exclusions(repo, source.branch, log, bot)
    plan = compute_plan(ctx, config, log, python_files(pr), safe_only=push, exclude=exclude)
    if not push:
        return sync_fix(repo, source, plan, log, on=pr if announce else None)
    if plan.empty:
        return "No safe rewrite to commit."
    count = len(plan.rewrites) or len(plan.files)
    sha = push_to_branch(repo, pr.head.ref, pr.head.sha, plan.files,
                         f"GraphMend: fix {count} torch.compile graph break(s)\n\nSafe rewrites requested with "
                         f"/graphmend fix --push on #{pr.number}, made by graphmend bot.")
    close_fix(repo, source.branch, f"The rewrites were committed to #{pr.number} directly ({sha[:7]}).", log)
    return f"Committed {count} safe rewrite(s) to `{pr.head.ref}` as {sha[:7]}."


def on_pull_request_event(ctx: ActionContext, config: Config, log: Log, repo: Repository, bot: BotIdentity) -> str:
    """After the review: open/update the fix (`fix-pr: true`), or close it when the PR closed."""
    event = ctx.event
    payload_pr = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else {}
    assert isinstance(payload_pr, dict)
    number = event.get("number", payload_pr.get("number"))
    if not isinstance(number, int):
        return "no pull request number in the event"
    action = str(event.get("action", ""))
    head_ref = str((payload_pr.get("head") or {}).get("ref", ""))
    if is_fix_branch(head_ref):
        return "this is a fix pull request: the bot does not fix its own fixes"
    if action == "closed":
        outcome = close_fix(repo, fix_branch_for_pull(number), f"#{number} was closed: this fix is no longer "
                            "needed. Closing.", log)
        return "closed the fix pull request" if outcome.closed else "no fix pull request to close"
    if not ctx.inputs.fix_pr:
        return "`fix-pr: false`: no fix pull request"
    if bot.is_own_actor(event.get("sender")):
        return "the push came from the bot itself: no new fix (no loops)"
    if payload_pr.get("draft"):
        return "draft pull request: the fix pull request waits until it is ready for review"
    pr = repo.get_pull(number)
    if pr.head.sha != (payload_pr.get("head") or {}).get("sha", pr.head.sha):
        return "the pull request has moved on: the run for the newer commit makes the fix"
    try:
        return fix_pull_request(ctx, config, log, repo, pr, bot)
    except Refused as refused:
        return str(refused)


def fix_default_branch(ctx: ActionContext, config: Config, log: Log, repo: Repository, bot: BotIdentity) -> str:
    """Scheduled scans: a fix pull request against the default branch checked out in the workspace."""
    branch = repo.default_branch
    sha = ctx.sha or repo.get_branch(branch).commit.sha
    if not valid_branch(branch):
        return f"the default branch name {branch!r} is not one the bot will write to"
    plan = compute_plan(ctx, config, log, None, exclude=recorded_exclusions(repo, fix_branch_for(branch), log, bot))
    return sync_fix(repo, Source(f"`{branch}`", fix_branch_for(branch), branch, sha), plan, log)

