"""`graphmend approve submit`: on a GitHub-hosted runner with `pull-requests: write`; runs no code
of the pull request and trusts nothing it did not fetch from the API itself.

1. Re-reads the pull request: refused when its head moved past the measured SHA, or when it no
   longer passes preflight's rule (`gate.refusal`).
2. Reads the measured report as untrusted JSON (`report.load_report`).
3. Recomputes GraphMend's rewrite of the base (the fix set `--fixes` names: `safe`, or `verified`
   with the unsafe fixes too; it comes from the maintainer's workflow), without the fixes the pull
   request's body records as unproven by an earlier measurement (narrowing.py: a record can only
   remove GraphMend's own fixes; one that names anything else is refused), and compares it with
   the pull request (`recompute.compare_with_rewrite`).
4. Submits one review pinned to the measured commit: APPROVE only when the pull request is exactly
   the rewrite and the measurement passes; COMMENT when it is not exactly the rewrite, or when some
   rewritten line never ran (the fixes holding those lines are then recorded in the fix pull
   request's body, and the bot's next run leaves them out); REQUEST_CHANGES when the measurement
   fails. Outputs `decision`, `breaks-removed` and, when some fixes are unproven, `unproven-fixes` (a
   JSON list of fix names).

Exit status: 0 approved, 1 not approved (comment or changes requested), 2 refused or failed.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from github import GithubException
from github.PullRequest import PullRequest
from github.Repository import Repository

from graphmend_bot.exit_codes import EXIT_APPROVED, EXIT_ERROR, EXIT_NOT_APPROVED
from graphmend_bot.github.approval.gate import PullFacts, refusal, valid_sha
from graphmend_bot.github.approval.recompute import compare_with_rewrite
from graphmend_bot.github.approval.report import load_report
from graphmend_bot.github.approval.verdict import (
    COMMENT,
    Decision,
    decide,
    review_body,
    verification_status,
    with_rewrite_check,
)
from graphmend_bot.github.core.api import API_ERRORS, connect, describe
from graphmend_bot.github.core.context import ActionError, read_context
from graphmend_bot.github.core.markers import is_fix_pr
from graphmend_bot.github.core.outputs import Log, append_summary, write_outputs
from graphmend_bot.github.fixes.fix_body_fit import fitted
from graphmend_bot.github.fixes.fix_pr import with_verification
from graphmend_bot.github.fixes.narrow_round import HEAD_INPUT, PULL_INPUT
from graphmend_bot.github.fixes.narrowing import (
    exclusions_in,
    uncovered_lines,
    unproven_fixes,
    with_exclusions,
)

OWN_PR_HELP = (
    "GitHub does not let an account approve or request changes on its own pull request. Run the GPU job "
    "with a different identity than the one that opened the fix pull request: fix pull requests opened "
    "with a GitHub App token, verification with the workflow's GITHUB_TOKEN (and \"Allow GitHub Actions to "
    "create and approve pull requests\" enabled in the repository settings)."
)


def submit(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    log = Log()

    def refuse(message: str) -> int:
        log.error(f"graphmend approve submit: refused: {message}")
        return EXIT_ERROR

    try:
        ctx = read_context(env)
    except ActionError as error:
        return refuse(str(error))
    if not ctx.inputs.token:
        return refuse("no token (set GITHUB_TOKEN or INPUT_GITHUB-TOKEN)")
    if not valid_sha(args.head_sha):
        return refuse(f"--head-sha {args.head_sha!r} is not a full commit SHA")
    report, problem = load_report(Path(args.report))
    if report is None:
        return refuse(problem)
    number = args.pull_request
    try:
        repo = connect(ctx.api_url, ctx.inputs.token).get_repo(ctx.repository)
        pr = repo.get_pull(number)
        facts = PullFacts.read(pr)
        if facts.head_sha != args.head_sha:
            return refuse(f"the head of #{number} moved from the measured {args.head_sha[:7]} to "
                          f"{facts.head_sha[:7]}: the run for the new head decides")
        reason = refusal(facts, ctx.repository, args.bot_login)
        if reason is not None:
            return refuse(reason)
        excluded, problem = exclusions_in(pr.body)
        comparison = compare_with_rewrite(repo, facts.base_sha, facts.head_sha, args.fixes, excluded)
        differences = [*comparison.differences, *([problem] if problem else [])]
        commit = repo.get_commit(facts.head_sha)
    except API_ERRORS as error:
        return refuse(describe(error, f"reading pull request #{number}"))
    decision = with_rewrite_check(decide(report), differences)
    if decision.event == COMMENT and not decision.differences and not decision.reasons:
        decision = replace(decision, unproven_fixes=unproven_fixes(comparison.changes, uncovered_lines(report)))
    body = review_body(report, decision, facts.head_sha)
    append_summary(ctx.summary_file, body)
    outputs = {"decision": decision.event, "breaks-removed": str(decision.removed)}
    if decision.unproven_fixes:
        outputs["unproven-fixes"] = json.dumps(decision.unproven_fixes)
    write_outputs(ctx.output_file, outputs)
    log.info(f"decision for #{number}: {decision.event}"
             + "".join(f"\n  - {r}" for r in [*decision.differences, *decision.reasons]))
    try:
        pr.create_review(commit=commit, body=body, event=decision.event)
    except GithubException as error:
        message = describe(error, "submitting the review")
        log.error(f"{message}. {OWN_PR_HELP}" if error.status == 422 and "own pull request" in message else message)
        return EXIT_ERROR
    except API_ERRORS as error:
        log.error(describe(error, "submitting the review"))
        return EXIT_ERROR
    if _mark_fix_pr(pr, decision, facts.head_sha, excluded, log) and args.narrow_workflow:
        _start_narrowing(repo, args.narrow_workflow, number, facts.head_sha, log)
    return EXIT_APPROVED if decision.approved else EXIT_NOT_APPROVED


def _mark_fix_pr(pr: PullRequest, decision: Decision, head_sha: str, excluded: list[str], log: Log) -> bool:
    """A fix pull request's description says how verification went, and records the fixes found
    unproven so far for the bot's next run to leave out. True when new unproven fixes were recorded."""
    if not is_fix_pr(pr.body):
        return False
    body = with_verification(pr.body, verification_status(decision, head_sha))
    if decision.unproven_fixes:
        body = with_exclusions(body, [*excluded, *decision.unproven_fixes])
    try:
        pr.edit(body=fitted(body))
    except API_ERRORS as error:
        log.warning(describe(error, "updating the fix pull request's verification status"))
        return False
    return bool(set(decision.unproven_fixes) - set(excluded))


def _start_narrowing(repo: Repository, workflow_file: str, number: int, head_sha: str, log: Log) -> None:
    """Dispatch the bot's fix workflow to narrow #`number` now (narrow_round.py), rather than wait for
    an unrelated event. This job only asks: the App, in that workflow, checks and pushes."""
    inputs = {PULL_INPUT: str(number), HEAD_INPUT: head_sha}
    try:
        repo.get_workflow(workflow_file).create_dispatch(repo.default_branch, inputs, throw=True)
    except API_ERRORS as error:
        log.notice(describe(error, f"starting `{workflow_file}` to narrow #{number} (it needs the workflow on the "
                                   "default branch with a workflow_dispatch trigger and `actions: write`); the "
                                   "bot's next run narrows it"))
        return
    log.info(f"started `{workflow_file}` to narrow #{number} to its proven fixes")
