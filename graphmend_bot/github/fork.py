"""`workflow_run`: post the review that a fork's read-only `pull_request` run could not.

See bundle.py for why the bundle is untrusted and how it is checked.
"""

from __future__ import annotations

from github.Repository import Repository

from graphmend_bot.config import Config
from graphmend_bot.github.api import API_ERRORS, connect, describe
from graphmend_bot.github.bundle import BundleError, read_bundle
from graphmend_bot.github.context import ActionContext
from graphmend_bot.github.outputs import Log
from graphmend_bot.github.pull_request import read_pull_request, review
from graphmend_bot.github.results import EXIT_ERROR


def _fetch_sources(repo: Repository, paths: list[str], sha: str) -> dict[str, str]:
    sources = {}
    for path in paths:
        content = repo.get_contents(path, ref=sha)
        if isinstance(content, list):
            continue
        try:
            sources[path] = content.decoded_content.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return sources


def post_bundle(ctx: ActionContext, config: Config, log: Log) -> int:
    """`workflow_run`: post the review that the `pull_request` run could not."""
    run = ctx.event.get("workflow_run")
    if not isinstance(run, dict) or not ctx.inputs.review_bundle:
        log.info("workflow_run: set the `review-bundle` input to the downloaded bundle to post its review")
        return 0
    if run.get("event") not in ("pull_request", None):
        log.info(f"workflow_run for a {run.get('event')!r} run: no pull request to review")
        return 0
    try:
        number, head_sha, result = read_bundle(ctx.workspace / ctx.inputs.review_bundle)
    except BundleError as error:
        log.info(f"nothing to post: {error}")
        return 0
    if head_sha != run.get("head_sha"):
        log.warning(f"the review bundle is for {head_sha[:12]!r}, not the run's commit "
                    f"{str(run.get('head_sha'))[:12]}: not posting it")
        return 0
    if not ctx.inputs.token:
        log.error("no GitHub token: pass `github-token: ${{ github.token }}` to the action")
        return EXIT_ERROR
    try:
        repo = connect(ctx.api_url, ctx.inputs.token).get_repo(ctx.repository)
        state = read_pull_request(repo, number)
        if state.head_sha != head_sha:
            log.info(f"pull request #{number} has moved on to {state.head_sha[:7]}: its own run posts the review")
            return 0
        if state.pr.state == "closed" or state.draft:
            log.info(f"pull request #{number} is {'closed' if state.pr.state == 'closed' else 'a draft'}: "
                     "not posting a review")
            return 0
        changed = {f.filename for f in state.python_files}
        result.findings = [f for f in result.findings if f.path in changed]
        sources = _fetch_sources(repo, sorted({f.path for f in result.findings}), head_sha)
    except API_ERRORS as error:
        log.error(describe(error, f"reading pull request #{number} of {ctx.repository}"))
        return EXIT_ERROR
    log.info(f"posting the review of pull request #{number} at {head_sha[:7]} from the review bundle")
    return review(ctx, repo, state, result, sources, log)
