"""GM694 logger-query-in-traced-code: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_logger_queries.py, tests/coverage_probes/gb0291_logger_query.py):
Dynamo wraps a `logging.Logger` as a LoggingLoggerVariable whose every method call, outside
export, is refused (GB0291 "logging.Logger method not supported for non-export cases") unless
listed in `torch._dynamo.config.ignore_logging_functions`: not only the calls that emit a record
(GM402's) but `logger.isEnabledFor(logging.DEBUG)`, `getEffectiveLevel()`, `setLevel()`,
`hasHandlers()`, `getChild()`. The logger is recognised as GM402's is (what built the name:
`logging.getLogger(...)`, a module's own `get_logger`; its spelling when nothing binds it).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind
from graphmend_bot.vocabulary.known_names import LOGGER_QUERIES


def _query(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> None:
    method = name.rpartition(".")[2]
    if method in LOGGER_QUERIES:
        checker.report(rule, call, f"`Logger.{method}()` in traced code: Dynamo refuses every Logger method", TENSOR)


RULE = Rule(
    code="GM694",
    name="logger-query-in-traced-code",
    family="not traceable",
    gb_id="GB0291",
    summary=(
        "Flags the `logging.Logger` methods that emit no record in traced code: `logger.isEnabledFor(...)`, "
        "`getEffectiveLevel()`, `setLevel(...)`, `hasHandlers()`, `getChild(...)`, `addHandler(...)`, ..."
    ),
    why=(
        "TorchDynamo refuses every method call on a `logging.Logger` outside export (GB0291, measured on "
        "torch 2.13), a level check as much as a `logger.debug(...)`: the graph breaks at the call."
    ),
    example=("if logger.isEnabledFor(logging.DEBUG):\n    logger.debug('scale %s', scale)"),
    use_instead=(
        "DEBUG = logger.isEnabledFor(logging.DEBUG)  # read once, outside the compiled code\n"
        "...\n"
        "if DEBUG and not torch.compiler.is_compiling():\n    logger.debug('scale %s', scale)"
    ),
    fix_safety=(
        "No automatic fix: a level check's value decides what runs next, and `setLevel` or `addHandler` "
        "change state that later code reads. Read the level before the compiled call, or guard the block "
        "with `torch.compiler.is_compiling()`."
    ),
    detection=Detection(logger_call=_query),
    advice=(
        "Dynamo refuses every Logger method in `{code}`: read the level outside the compiled code, or "
        "guard the block with `torch.compiler.is_compiling()`"
    ),
)
