"""`workflow_run`: post the review that a fork's read-only `pull_request` run could not.

See bundle.py for why the bundle is untrusted. Here it is bound to its pull request (repository,
number, head repository, branch and commit must all agree with what GitHub says about the run and
the pull request), its findings are limited to the files the pull request changes, and every
suggestion is recomputed by this (trusted) code from the files fetched from GitHub at the head
commit, with the base repository's configuration fetched at the base commit. Nothing in the
downloaded artifact but the findings (and the census's table of graph breaks) is read: a config file
shipped next to it is ignored.
"""

from __future__ import annotations

import os
import posixpath
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from github.Repository import Repository

from graphmend_bot.config import CONFIG_FILES, Config, ConfigError, load_config
from graphmend_bot.exit_codes import EXIT_CLEAN, EXIT_ERROR
from graphmend_bot.findings import BaseFindings, CheckResult
from graphmend_bot.github.core.api import API_ERRORS, connect, describe, fetch_file
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.identity import resolve_identity
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.review.analyse import analyse
from graphmend_bot.github.review.breaks import carried_breaks
from graphmend_bot.github.review.bundle import Bundle, BundleError, read_bundle
from graphmend_bot.github.review.diff import added_lines
from graphmend_bot.github.review.pull_request import PullRequestState, blob_url, read_pull_request, review


def _fetch_text(repo: Repository, path: str, sha: str) -> str | None:
    """A file's text at `sha`, or None when it is absent, a folder, or not UTF-8."""
    data = fetch_file(repo, path, sha)
    try:
        return data.decode("utf-8") if data is not None else None
    except UnicodeDecodeError:
        return None


def _fetch_sources(repo: Repository, paths: list[str], sha: str) -> dict[str, str]:
    sources = {}
    for path in paths:
        text = _fetch_text(repo, path, sha)
        if text is not None:
            sources[path] = text
    return sources


def base_config(ctx: ActionContext, repo: Repository, base_sha: str, scratch: Path) -> Config:
    """The base repository's configuration at `base_sha` (the `config` input, else the first
    config file at its root), or the defaults: never one from the pull request or the artifact."""
    names = [ctx.inputs.config] if ctx.inputs.config else list(CONFIG_FILES)
    for name in names:
        text = _fetch_text(repo, name, base_sha)
        if text is None:
            continue
        local = scratch / posixpath.basename(name)
        local.write_text(text, encoding="utf-8")
        if local.name == "pyproject.toml" and "graphmend" not in text:
            continue
        return load_config(local)
    return Config()


def _claims_problem(ctx: ActionContext, run: dict[str, Any], bundle: Bundle) -> str:
    """Why the bundle's own claims do not match this run, or "" (checked before any API call)."""
    if bundle.head_sha != run.get("head_sha"):
        return f"the review bundle is for {bundle.head_sha[:12]!r}, not the run's commit {str(run.get('head_sha'))[:12]}"
    if bundle.repository != ctx.repository:
        return f"the review bundle names the repository {bundle.repository[:100]!r}, not {ctx.repository}"
    listed = [p.get("number") for p in run.get("pull_requests") or [] if isinstance(p, dict)]
    if listed and bundle.pull_request not in listed:  # GitHub lists them for same-repository runs only
        return f"the review bundle is for #{bundle.pull_request}, but the run is for {listed}"
    return ""


def _head_problem(run: dict[str, Any], state: PullRequestState) -> str:
    """Why the pull request the API returns is not the one this run built, or ""."""
    raw_head_repo = run.get("head_repository")
    head_repo: dict[str, Any] = raw_head_repo if isinstance(raw_head_repo, dict) else {}
    pr_head_repo = state.pr.head.repo.full_name if state.pr.head.repo is not None else ""
    if head_repo.get("full_name") != pr_head_repo or run.get("head_branch") != state.pr.head.ref:
        return (f"pull request #{state.pr.number} comes from {pr_head_repo}:{state.pr.head.ref}, not from the "
                f"run's {head_repo.get('full_name')}:{run.get('head_branch')}")
    return ""


def recompute_fixes(ctx: ActionContext, config: Config, log: Log, result: CheckResult,
                    sources: dict[str, str]) -> CheckResult:
    """The bundle's findings with the fixes that this code computes from `sources` (GitHub's copy
    of the changed files): a finding the local check does not reproduce gets no suggestion.

    No baseline here: the bundle's findings are already filtered by the pull request's run, and a
    baseline read now would come from a scratch folder (the base config's) or the fetched files."""
    config = replace(config, baseline=None)
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="graphmend-fork-") as scratch:
        root = Path(scratch).resolve()
        for path, text in sources.items():
            file = (root / path).resolve()
            if file.is_relative_to(root):
                file.parent.mkdir(parents=True, exist_ok=True)
                file.write_text(text, encoding="utf-8")
        local_ctx = replace(ctx, workspace=root, inputs=replace(ctx.inputs, paths=["."]))
        try:
            local = analyse(local_ctx, config, log, only=sorted(sources))
        finally:
            os.chdir(here)
    fixes = {(f.path, f.code, f.location, f.end_location): f.fix for f in local.findings}
    findings = [replace(f, fix=fixes.get((f.path, f.code, f.location, f.end_location))) for f in result.findings]
    return replace(result, findings=findings)


def post_bundle(ctx: ActionContext, log: Log) -> int:
    """`workflow_run`: post the review that the `pull_request` run could not."""
    run = ctx.event.get("workflow_run")
    if not isinstance(run, dict) or not ctx.inputs.review_bundle:
        log.info("workflow_run: set the `review-bundle` input to the downloaded bundle to post its review")
        return EXIT_CLEAN
    if run.get("event") not in ("pull_request", None):
        log.info(f"workflow_run for a {run.get('event')!r} run: no pull request to review")
        return EXIT_CLEAN
    try:
        bundle = read_bundle(ctx.workspace / ctx.inputs.review_bundle)
    except BundleError as error:
        log.info(f"nothing to post: {error}")
        return EXIT_CLEAN
    number, head_sha = bundle.pull_request, bundle.head_sha
    problem = _claims_problem(ctx, run, bundle)
    if problem:
        log.warning(f"{problem}: not posting it")
        return EXIT_CLEAN
    if not ctx.inputs.token:
        log.error("no GitHub token: pass `github-token: ${{ github.token }}` to the action")
        return EXIT_ERROR
    try:
        client = connect(ctx.api_url, ctx.inputs.token)
        repo = client.get_repo(ctx.repository)
        state = read_pull_request(repo, number, resolve_identity(client, ctx.inputs.bot_login, log.warning))
        if state.head_sha != head_sha:
            log.info(f"pull request #{number} has moved on to {state.head_sha[:7]}: its own run posts the review")
            return EXIT_CLEAN
        problem = _head_problem(run, state)
        if problem:
            log.warning(f"{problem}: not posting it")
            return EXIT_CLEAN
        if state.pr.state == "closed" or state.draft:
            log.info(f"pull request #{number} is {'closed' if state.pr.state == 'closed' else 'a draft'}: "
                     "not posting a review")
            return EXIT_CLEAN
        changed = {f.filename for f in state.python_files}
        result = bundle.result
        result.findings = [f for f in result.findings if f.path in changed]
        result.base = trusted_base(result, {f.filename: f.patch for f in state.python_files})
        sources = _fetch_sources(repo, sorted({f.path for f in result.findings}), head_sha)
        with tempfile.TemporaryDirectory(prefix="graphmend-config-") as scratch:
            config = base_config(ctx, repo, state.pr.base.sha, Path(scratch))
    except API_ERRORS as error:
        log.error(describe(error, f"reading pull request #{number} of {ctx.repository}"))
        return EXIT_ERROR
    except ConfigError as error:
        log.error(f"the base repository's GraphMend configuration is invalid: {error}")
        return EXIT_ERROR
    try:
        result = recompute_fixes(ctx, config, log, result, sources)
    except ConfigError as error:
        log.warning(f"no suggestions: the base repository's GraphMend configuration cannot be used for them ({error})")
    log.info(f"posting the review of pull request #{number} at {head_sha[:7]} from the review bundle")
    breaks = carried_breaks(bundle.breaks, blob_url(ctx, state)) if bundle.breaks is not None else None
    return review(ctx, repo, state, result, sources, log, breaks=breaks)


def trusted_base(result: CheckResult, patches: dict[str, str | None]) -> BaseFindings | None:
    """The bundle's base comparison, kept within what the trusted diff shows: a finding on a line
    the pull request added is new whatever the bundle says (it could call it pre-existing), and a
    removed break is one of a changed file (it could invent removals anywhere). Leaving a finding
    out of the bundle hides more than either, so nothing else of it can be checked here."""
    if result.base is None:
        return None
    added = added_lines(patches)
    on_added_lines = {f.fingerprint for f in result.findings if f.location.row in added.get(f.path, ())}
    return BaseFindings(result.base.fingerprints - on_added_lines,
                        [f for f in result.base.removed if f.path in patches])
