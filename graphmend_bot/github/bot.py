"""`graphmend bot`: dispatch a GitHub Actions event. Never a traceback: a message and an exit status.

Exit status: 0 clean (or findings with `fail-on: never`), 1 findings that `fail-on` says fail the
check, 2 misconfiguration or an API error the bot cannot work around.
"""

from __future__ import annotations

from collections.abc import Mapping

from graphmend_bot.config import Config, ConfigError
from graphmend_bot.exit_codes import EXIT_CLEAN, EXIT_ERROR
from graphmend_bot.github.commands import handle_comment
from graphmend_bot.github.core.api import API_ERRORS, connect, describe
from graphmend_bot.github.core.context import ActionContext, ActionError, read_context
from graphmend_bot.github.core.identity import resolve_identity
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.core.results import scan_everything
from graphmend_bot.github.fixes.fix_after_review import fix_after_review
from graphmend_bot.github.fixes.fixing import on_pull_request_event
from graphmend_bot.github.fixes.narrow_round import is_narrowing_dispatch, narrowing_round
from graphmend_bot.github.review.analyse import load_action_config
from graphmend_bot.github.review.fork import post_bundle
from graphmend_bot.github.review.pull_request import review_pull_request
from graphmend_bot.github.scan import scheduled_scan

SCAN_EVENTS = frozenset({"schedule", "workflow_dispatch"})


def follow_up_fix(ctx: ActionContext, config: Config, log: Log) -> int:
    """After the review: the fix pull request (opened, updated, or closed with its source)."""
    if not ctx.inputs.token or (not ctx.inputs.fix_pr and ctx.event.get("action") != "closed"):
        return EXIT_CLEAN
    try:
        client = connect(ctx.api_url, ctx.inputs.token)
        repo = client.get_repo(ctx.repository)
        bot = resolve_identity(client, ctx.inputs.bot_login, log.warning)
        log.info(f"fix pull request: {on_pull_request_event(ctx, config, log, repo, bot)}")
    except API_ERRORS as error:
        log.warning(describe(error, "updating the fix pull request", needs="`contents: write` and `pull-requests: write`"))
    except ValueError as error:
        log.warning(f"fix pull request: {error}")
    return EXIT_CLEAN


def close_with_source(ctx: ActionContext, config: Config, log: Log) -> int:
    """`pull_request_target` (the base's workflow file, nothing checked out): only `closed` is read,
    to close the fix pull request of a pull request that closed."""
    if ctx.event.get("action") != "closed":
        log.info(f"pull_request_target {ctx.event.get('action')!r}: only `closed` is handled (nothing else runs "
                 "with the base's token)")
        return EXIT_CLEAN
    return follow_up_fix(ctx, config, log)


def run_bot(env: Mapping[str, str]) -> int:
    log = Log()
    try:
        ctx = read_context(env)
        # Two jobs follow another workflow, both before any config is read (nothing of the pull
        # request is checked out): the fix pull request after the review of a same-repository pull
        # request (`fix-pr`; the pull request's own config is read with its files), and posting a
        # fork's review bundle (the workspace holds an artifact, whose config is never read).
        if ctx.event_name == "workflow_run" and ctx.inputs.fix_pr and not ctx.inputs.review_bundle:
            return fix_after_review(ctx, log)
        if ctx.event_name == "workflow_run":
            return post_bundle(ctx, log)
        # The approval's dispatch after it recorded unproven fixes: nothing is checked out either.
        if ctx.event_name == "workflow_dispatch" and is_narrowing_dispatch(ctx.event):
            return narrowing_round(ctx, log)
        config = load_action_config(ctx)
        if ctx.event_name == "pull_request":
            return max(review_pull_request(ctx, config, log), follow_up_fix(ctx, config, log))
        if ctx.event_name == "pull_request_target":
            return close_with_source(ctx, config, log)
        if ctx.event_name == "issue_comment":
            return handle_comment(ctx, log)
        if ctx.event_name in SCAN_EVENTS:
            return scheduled_scan(ctx, config, log)
        log.info(f"event {ctx.event_name!r}: checking every file under {' '.join(ctx.inputs.paths)}")
        return scan_everything(ctx, config, log)
    except (ActionError, ConfigError) as error:
        log.error(f"graphmend bot: {error}")
        return EXIT_ERROR
    except Exception as error:  # KeyboardInterrupt is no Exception: the CLI says "Interrupted.", 130
        log.error(f"graphmend bot: internal error: {type(error).__name__}: {error} "
                  "(please report it at https://github.com/graphmend/action/issues)")
        return EXIT_ERROR
