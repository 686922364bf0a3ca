"""GM617 exception-attribute-assignment: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0135_exception_attribute.py): in a handler Dynamo
traces (the exception was raised in traced code), assigning an attribute of the caught exception
breaks with GB0135, except the four Dynamo models: `__cause__`, `__context__`,
`__suppress_context__` and `__traceback__` (variables/misc.py; its own checks on their values).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR

MODELLED = frozenset({"__cause__", "__context__", "__suppress_context__", "__traceback__"})


def _caught_write(rule: Rule, checker: Checker, target: ast.Attribute) -> None:
    if target.attr not in MODELLED:
        checker.report(rule, target, f"setting `{target.attr}` on a caught exception in traced code breaks the graph",
                       TENSOR)


RULE = Rule(
    code="GM617",
    name="exception-attribute-assignment",
    family="not traceable",
    gb_id="GB0135",
    summary=(
        "Flags `err.NAME = value` on the exception an `except ... as err:` caught, in traced code "
        "(not `__cause__`, `__context__`, `__suppress_context__` or `__traceback__`)."
    ),
    why=(
        "TorchDynamo models an exception raised and caught in traced code by its type and "
        "arguments; it cannot add other attributes to it: the assignment ends the graph (GB0135, "
        "measured on torch 2.13) and the rest of the handler runs eagerly."
    ),
    example=(
        "try:\n"
        "    raise ValueError(\"bad input\")\n"
        "except ValueError as err:\n"
        "    err.detail = \"shape\"\n"
        "y = x * 2"
    ),
    use_instead=(
        "try:\n"
        "    raise ValueError(\"bad input\")\n"
        "except ValueError as err:\n"
        "    detail = \"shape\"  # keep the extra information beside the exception\n"
        "y = x * 2"
    ),
    fix_safety=(
        "No automatic fix: keep the information in a local or pass it to the exception's "
        "constructor (`raise Error(msg, detail)`), or handle the error outside the compiled function."
    ),
    detection=Detection(caught_exception_write=_caught_write),
    advice=("`{code}` adds an attribute to a caught exception while tracing: pass it to the exception's "
            "constructor or keep it in a local"),
)
