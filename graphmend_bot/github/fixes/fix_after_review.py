"""`workflow_run` after the review workflow: the fix pull request for a same-repository pull request.

This runs from the default branch's copy of the workflow, where the App key is guarded by an
environment, never from a `pull_request` run (whose workflow file the pull request controls). The
event only names candidates: the pull request is looked up through the API, it must come from a
branch of this repository, and its head must still be the commit the review ran on. Its files are
read as data through the tarball API; nothing from it runs. See docs/security.md.
"""

from __future__ import annotations

import tarfile
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from github.PullRequest import PullRequest
from github.Repository import Repository

from graphmend_bot.config import ConfigError
from graphmend_bot.exit_codes import EXIT_CLEAN, EXIT_ERROR
from graphmend_bot.github.core.api import API_ERRORS, connect, describe
from graphmend_bot.github.core.archive import download_head
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.identity import BotIdentity, resolve_identity
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.fixes.fix_pr import branch_sha, find_fix_pull, fix_branch_for_pull, is_fix_branch
from graphmend_bot.github.fixes.fixing import Refused, fix_pull_request, is_fork
from graphmend_bot.github.review.analyse import load_action_config


def candidate_numbers(run: dict[str, Any]) -> list[int]:
    """The pull request numbers the run names (GitHub lists only same-repository pull requests here,
    but the list is checked through the API anyway)."""
    pulls = run.get("pull_requests")
    if not isinstance(pulls, list):
        return []
    return [p["number"] for p in pulls if isinstance(p, dict) and isinstance(p.get("number"), int)]


def reviewed_pull_request(ctx: ActionContext, repo: Repository, run: dict[str, Any], log: Log) -> PullRequest | None:
    """The open, same-repository pull request whose head is the run's commit, or None (logged why)."""
    head_sha = str(run.get("head_sha", ""))
    for number in candidate_numbers(run):
        pr = repo.get_pull(number)
        if pr.base.repo.full_name != ctx.repository or is_fork(pr, ctx.repository):
            log.info(f"#{number} is not a pull request between branches of {ctx.repository}: no fix pull request")
        elif pr.head.sha != head_sha:
            log.info(f"#{number} has moved on from {head_sha[:7]} to {pr.head.sha[:7]}: the newer run makes the fix")
        elif is_fix_branch(pr.head.ref):
            log.info(f"#{number} is GraphMend's own fix pull request: nothing to fix there")
        elif pr.draft:
            log.info(f"#{number} is a draft: the fix pull request waits until it is ready for review")
        else:
            return pr
    return None


def fix_after_review(ctx: ActionContext, log: Log) -> int:
    """`workflow_run` with `fix-pr: true`: open or update the fix pull request, then ask for GPU verification."""
    run = ctx.event.get("workflow_run")
    if not isinstance(run, dict) or run.get("event") != "pull_request":
        log.info("workflow_run: the triggering run was not for a pull request; no fix pull request")
        return EXIT_CLEAN
    head_repository = run.get("head_repository")
    if not isinstance(head_repository, dict) or head_repository.get("full_name") != ctx.repository:
        log.info("workflow_run: the pull request comes from a fork; the bot cannot write to its branch")
        return EXIT_CLEAN
    if not ctx.inputs.token:
        log.error("no GitHub token: pass the App token as `github-token` to open fix pull requests")
        return EXIT_ERROR
    try:
        client = connect(ctx.api_url, ctx.inputs.token)
        bot = resolve_identity(client, ctx.inputs.bot_login, log.warning)
        if bot.is_own_actor(run.get("triggering_actor")) or bot.is_own_actor(run.get("actor")):
            log.info("workflow_run: the run was started by the bot itself; no new fix (no loops)")
            return EXIT_CLEAN
        repo = client.get_repo(ctx.repository)
        pr = reviewed_pull_request(ctx, repo, run, log)
        if pr is None:
            if not candidate_numbers(run):
                log.info("workflow_run: the run names no pull request of this repository")
            return EXIT_CLEAN
        log.info(f"fix pull request: {_fix_and_verify(ctx, repo, pr, log, bot)}")
    except API_ERRORS as error:
        log.warning(describe(error, "updating the fix pull request", needs="Contents and Pull requests write access"))
    except (tarfile.TarError, OSError) as error:
        log.warning(f"fix pull request: cannot read the pull request's files: {type(error).__name__}: {error}")
    except ConfigError as error:
        log.warning(f"fix pull request: the GraphMend configuration in the pull request is invalid: {error}")
    except ValueError as error:
        log.warning(f"fix pull request: {error}")
    return EXIT_CLEAN


def _fix_and_verify(ctx: ActionContext, repo: Repository, pr: PullRequest, log: Log, bot: BotIdentity) -> str:
    branch = fix_branch_for_pull(pr.number)
    before = branch_sha(repo, branch)
    with tempfile.TemporaryDirectory(prefix="graphmend-pr-") as scratch:
        workspace = download_head(repo, pr.head.sha, Path(scratch))
        head_ctx = replace(ctx, workspace=workspace,
                           inputs=replace(ctx.inputs, sarif_file=str(Path(scratch) / "graphmend.sarif")))
        try:
            outcome = fix_pull_request(head_ctx, load_action_config(head_ctx), log, repo, pr, bot)
        except Refused as refused:
            return str(refused)
    after = branch_sha(repo, branch)
    if after is not None and after != before:
        fix = find_fix_pull(repo, branch)
        if fix is not None:
            dispatch_verify(ctx, repo, fix.number, log)
    return outcome


def dispatch_verify(ctx: ActionContext, repo: Repository, number: int, log: Log) -> None:
    """Start the GPU verification workflow for a fix pull request, when one is named and the token may."""
    workflow_file = ctx.inputs.verify_workflow
    if not workflow_file:
        log.info("no `verify-workflow`: the fix pull request is not verified on a GPU")
        return
    try:
        workflow = repo.get_workflow(workflow_file)
        workflow.create_dispatch(repo.default_branch, {"pull-request": str(number)}, throw=True)
    except API_ERRORS as error:
        log.notice(describe(error, f"starting `{workflow_file}` for #{number} (GPU verification; it needs the "
                                   "workflow in the default branch and a token with Actions write access)"))
        return
    log.info(f"started `{workflow_file}` for #{number}: GPU verification")
