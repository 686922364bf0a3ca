"""GM402 logger-in-traced-code: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.analysis.vocabulary import LOG_METHODS
from graphmend_bot.rules.detect import Detection, untraceable
from graphmend_bot.rules.rule import Rule

RULE = Rule(
    code="GM402",
    name="logger-in-traced-code",
    family="Python I/O",
    gb_id="GB0291",
    summary=(
        "Flags logger calls (`logger.warning`, `logger.info`, `logger.warning_once`, "
        "`logging.warning`, ...) in traced code."
    ),
    why=(
        "Bound `logging.Logger` methods are not traceable; TorchDynamo breaks the graph for each."
    ),
    example="logger.warning('falling back to eager attention')",
    use_instead="""
if not torch.compiler.is_compiling():
    logger.warning('falling back to eager attention')
""",
    fix_safety=(
        "As GM401: a guard for diagnostics on the hot path; none in modules without torch, on "
        "export-only branches or on rare error branches. A message that says \"deprecated\" "
        "(transformers' `logger.warning_once(\"Passing a tuple of `past_key_values` is deprecated ...\")`, "
        "which runs on every call of its seq2seq models) gets the guard as an UNSAFE fix, assuming "
        "\"the deprecation notice still shows in eager runs; compiled calls skip it\" (GM403 gives "
        "the reasoning and transformers' own precedent). Measured on torch 2.13: registering a "
        "logger's bound method (or `Logger.warning_once`) in `reorderable_logging_functions` does not "
        "remove the break (\"logging.Logger method not supported\"), so deferral goes through a "
        "module-level helper (`io-strategy = \"defer\"`), which keeps the message after the graph; "
        "`ignore_logging_functions` removes the break and the message."
    ),
    fixes=("io",),
    detection=Detection(
        module_functions={("logging", method): untraceable("`{name}` in traced code") for method in LOG_METHODS},
        logger_call=untraceable("Logger call `{name}` in traced code"),
    ),
)
