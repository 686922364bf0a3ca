"""GM402 logger-in-traced-code: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast

from graphmend_bot.rules.advice import DEPRECATION_NOTICE, GUARD_ADVICE
from graphmend_bot.rules.detect import Checker, Detection, untraceable
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind
from graphmend_bot.vocabulary.known_names import LOG_METHODS

_REPORT = untraceable("Logger call `{name}` in traced code")


def _record_call(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> None:
    """A call of a method that emits a record; the Logger's other methods are GM694's."""
    if name.rpartition(".")[2] in LOG_METHODS:
        _REPORT(rule, checker, call, name, args)


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
        "export-only branches or on rare error branches. A deprecation notice (a message that says "
        "\"deprecated\": transformers' `logger.warning_once(\"Passing a tuple of `past_key_values` is "
        "deprecated ...\")`, which runs on every call of its seq2seq models; diffusers' "
        "`logger.warning(\"`scale` is deprecated and will be ignored ...\")`) is the project's call, "
        "set by `deprecation-notices` as for GM403 (which gives the reasoning): left with advice by "
        "default, since compiled callers need it too; `guard` guards the notice alone (UNSAFE), as "
        "transformers guards its own; `defer` routes it through a helper, also UNSAFE: `logger.warning_once(msg)` becomes "
        "`_log_after_graph(\"warning_once\", msg)`, a module-level helper registered in "
        "`torch._dynamo.config.reorderable_logging_functions` right below it, reused by every call "
        "in the module. For a standard Logger method (`debug` ... `critical`, `log`) the helper adds "
        "one to `stacklevel`, so the eager record names the same function and line as before; "
        "transformers' `warning_once` (a function on Logger that calls `self.warning`) names its own "
        "frame before and after, so it is passed as is. Measured on torch 2.13 "
        "(tests/rewrite/test_deprecation_deferral.py): no break with a constant message, `%`-args or "
        "an f-string; the record is emitted after the graph on the first and on cached compiled "
        "calls when the notice's function is the compiled frame, and dropped (as by a guard) from a "
        "frame Dynamo inlines into it (GM403 gives the measurement). Registering a logger's bound method (or `Logger.warning_once`) itself does not remove "
        "the break (\"logging.Logger method not supported\"), which is why the helper exists. "
        "Where the helper cannot be written (a logger that is not assigned at module level: "
        "`self.logger`, a local), the notice is left with this advice rather than hidden. "
        "`ignore_logging_functions` removes the break and the message: never right for a notice. "
        "A `*_once` notice (`logger.warning_once/info_once/warn_once(msg)`) takes a third form, "
        "whatever `deprecation-notices` says, since it hides nothing and moves nothing past the graph: "
        "`_warning_once(msg)`, a module-level helper decorated with "
        "`torch.compiler.assume_constant_result` that calls `logger.warning_once(*args)`. Dynamo "
        "runs it while tracing and bakes its None result, so the message is emitted once, compiled "
        "or not, and from a frame Dynamo inlines too (measured on torch 2.13, "
        "tests/rewrite/test_notice_once.py: no break with `fullgraph=True`; one record across calls, "
        "recompiles and a compile that falls back; the same record, since `warning_once` logs from "
        "its own frame). Only arguments proven to be Python strings or numbers are taken (a tensor "
        "would be formatted once while tracing and baked). SAFE where the once-per-process contract "
        "is proven: transformers' `logging.get_logger`, a `get_logger` module of the checked tree "
        "whose method is `lru_cache`d, or a module that installs an `lru_cache`d method on "
        "`logging.Logger`; elsewhere UNSAFE, resting on the method's name. Under compile the "
        "record is made while the call is traced, before the graph runs, not between its operations. "
        "Where the contract is proven, a `*_once` diagnostic (`\"use_cache=True\" ... is ignored`) takes "
        "this form too instead of the guard, which would hide it from compiled callers; unproven, "
        "the safe guard stays its fix."
    ),
    fixes=("python_io.io:build_logger_fix",),
    detection=Detection(
        module_functions={("logging", method): untraceable("`{name}` in traced code") for method in LOG_METHODS},
        logger_call=_record_call,
    ),
    advice=GUARD_ADVICE,
    advice_cases=(DEPRECATION_NOTICE,),
)
