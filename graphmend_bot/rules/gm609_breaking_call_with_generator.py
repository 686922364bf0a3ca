"""GM609 breaking-call-with-generator: its documentation, in one place with how it is detected.

The traversal asks at each call that may land in the tree and has a generator expression among
its arguments; the scope solver keeps the finding when the callee, or what it calls, has a
finding (analysis/scope.py), as for GM605."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _generator_argument(rule: Rule, checker: Checker, call: ast.Call) -> None:
    """Measured on torch 2.13: `f(*(g(c) for g in gs))`, `f(g for ...)` and `f(items=(g for ...))`
    break at the call line ("Failed to handle graph break gracefully ... Cannot reconstruct a
    generator", or zuko's "read a cell variable that has not been populated yet") when `f` (a
    function or a class's `__init__`) breaks inside, whether or not it consumed the generator
    first; not when `f` does not break, and not for `f(*tuple(...))` or `f(*[...])`."""
    checker.report_if_callee_breaks(
        rule, call, "the callee breaks inside, and with a generator expression among its arguments "
        "Dynamo cannot resume at the call; pass a tuple or list"
    )


RULE = Rule(
    code="GM609",
    name="breaking-call-with-generator",
    family="not traceable",
    gb_id="GB8335",
    summary=(
        "Flags a call given a generator expression (`f(*(t(c) for t in ts))`, `f(x for x in xs)`) "
        "when the function or constructor called has a graph break inside."
    ),
    why=(
        "To break the graph at a call, TorchDynamo rebuilds the call's arguments on the Python stack "
        "and resumes after it. A generator it was tracing cannot be rebuilt, so Dynamo gives up on "
        "the whole calling function (measured on torch 2.13: \"Failed to handle graph break "
        "gracefully\"), which then runs eagerly."
    ),
    example=(
        "class Composed:\n"
        "    def __init__(self, *parts):\n"
        "        print(\"composed\", len(parts))\n"
        "        self.parts = parts\n\n"
        "y = Composed(*(x * s for s in (1.0, 2.0))).parts[1] * 2"
    ),
    use_instead=(
        "class Composed:\n"
        "    def __init__(self, *parts):\n"
        "        print(\"composed\", len(parts))\n"
        "        self.parts = parts\n\n"
        "y = Composed(*[x * s for s in (1.0, 2.0)]).parts[1] * 2"
    ),
    fix_safety=(
        "No automatic fix. Pass a list or tuple (`f(*[t(c) for t in ts])`): the call then breaks "
        "only where the callee does, and Dynamo resumes after it. Better, remove the break inside "
        "the callee (its own finding says how)."
    ),
    detection=Detection(generator_argument_call=_generator_argument),
    advice=(
        "`{code}` hands a generator expression to a call that breaks, and Dynamo cannot rebuild the "
        "generator to resume there: pass a tuple or list (`*tuple(...)`, `[...]`), or remove the break "
        "inside the call"
    ),
)
