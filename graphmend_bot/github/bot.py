"""`graphmend bot`: dispatch a GitHub Actions event. Never a traceback: a message and an exit status.

Exit status: 0 clean (or findings with `fail-on: never`), 1 findings that `fail-on` says fail the
check, 2 misconfiguration or an API error the bot cannot work around.
"""

from __future__ import annotations

from collections.abc import Mapping

from graphmend_bot.config import ConfigError
from graphmend_bot.github.analyse import load_action_config
from graphmend_bot.github.context import ActionError, read_context
from graphmend_bot.github.fork import post_bundle
from graphmend_bot.github.outputs import Log
from graphmend_bot.github.pull_request import review_pull_request
from graphmend_bot.github.results import EXIT_ERROR, scan_everything


def run_bot(env: Mapping[str, str]) -> int:
    log = Log()
    try:
        ctx = read_context(env)
        config = load_action_config(ctx)
        if ctx.event_name == "pull_request":
            return review_pull_request(ctx, config, log)
        if ctx.event_name == "workflow_run":
            return post_bundle(ctx, config, log)
        log.info(f"event {ctx.event_name!r}: checking every file under {' '.join(ctx.inputs.paths)}")
        return scan_everything(ctx, config, log)
    except (ActionError, ConfigError) as error:
        log.error(f"graphmend bot: {error}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
    except Exception as error:
        log.error(f"graphmend bot: internal error: {type(error).__name__}: {error} "
                  "(please report it at https://github.com/graphmend/action/issues)")
        return EXIT_ERROR
