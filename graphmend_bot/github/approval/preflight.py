"""`graphmend approve preflight`: on a GitHub-hosted runner with a read token, before any checkout.

Passes the pull request number, head and base SHAs on as step outputs when the pull request may be
verified; otherwise exits 2 with one `::error::` line that names the reason.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from graphmend_bot.exit_codes import EXIT_ALLOWED, EXIT_REFUSED
from graphmend_bot.github.approval.gate import PullFacts, refusal
from graphmend_bot.github.core.api import API_ERRORS, connect, describe
from graphmend_bot.github.core.context import ActionError, read_context
from graphmend_bot.github.core.outputs import Log, write_outputs


def preflight(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    log = Log()
    try:
        ctx = read_context(env)
    except ActionError as error:
        log.error(f"graphmend approve preflight: {error}")
        return EXIT_REFUSED
    if not ctx.inputs.token:
        log.error("graphmend approve preflight: no token (set GITHUB_TOKEN or INPUT_GITHUB-TOKEN)")
        return EXIT_REFUSED
    number = args.pull_request
    try:
        facts = PullFacts.read(connect(ctx.api_url, ctx.inputs.token).get_repo(ctx.repository).get_pull(number))
    except API_ERRORS as error:
        log.error(f"graphmend approve preflight: {describe(error, f'reading pull request #{number}')}")
        return EXIT_REFUSED
    reason = refusal(facts, ctx.repository, args.bot_login)
    if reason is not None:
        log.error(f"graphmend approve preflight: refused: {reason}")
        return EXIT_REFUSED
    write_outputs(ctx.output_file, {"pull-request": str(facts.number), "head-sha": facts.head_sha,
                                    "base-sha": facts.base_sha})
    log.info(f"#{facts.number} may be verified: head {facts.head_sha[:7]}, base {facts.base_sha[:7]}")
    return EXIT_ALLOWED
