"""GM666 break-in-consumed-generator: its documentation, in one place with how it is detected.

Measured on torch 2.13, Python 3.11 (tests/test_consumed_generators.py, analysis/consumed_generators.py):
`sum`, `any`, `all`, `set`, `dict` and `functools.reduce` step a generator expression they are handed
inside Dynamo's trace; when a call an element makes breaks, Dynamo cannot rebuild the generator to
resume at the consuming call and breaks there too ("Generator reconstruction with mutations",
GB8335). `list(...)`, `tuple(...)`, `min`, `max`, `sorted` and the others resume. Over a dict
iterator (a dict view, an nn.ModuleList) the consuming call breaks with GB0091 on some spellings
only (when its result is returned, measured): not reported. The traversal asks at each call an
element makes; the scope solver keeps the finding when the callee breaks."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _first_iterable(call: ast.Call) -> ast.expr | None:
    """What the generator expression the consuming `call` takes steps first."""
    generator = next((argument for argument in call.args if isinstance(argument, ast.GeneratorExp)), None)
    return generator.generators[0].iter if generator is not None else None


def _consumed_call(rule: Rule, checker: Checker, call: ast.Call, consumer: ast.expr) -> None:
    if not isinstance(consumer, ast.Call):
        return  # a comprehension over a dict iterator (GM624)
    first = _first_iterable(consumer)
    if first is None or checker.steps_dict_iterator(first):
        return  # over a dict iterator it breaks ("Read uninitialized cell") on some spellings only
    checker.report_if_callee_breaks(
        rule, call, "A call in this generator expression breaks, and the builtin consuming it steps it inside "
        "the trace: Dynamo cannot rebuild the generator to resume at the call, and breaks there too",
        at=consumer,  # Dynamo reports the consuming call's line
    )


RULE = Rule(
    code="GM666",
    name="break-in-consumed-generator",
    family="not traceable",
    gb_id="GB8335",
    summary=(
        "Flags `sum`, `any`, `all`, `set`, `dict` or `functools.reduce` given a generator expression "
        "in traced code when a call in its elements breaks (directly or in its callees): "
        "`sum(block(x) for block in blocks)` over a list or tuple."
    ),
    why=(
        "TorchDynamo steps the generator inside the builtin it traces. When a call in an element "
        "breaks the graph, Dynamo must resume at the builtin's call with the generator rebuilt, which "
        "it cannot do (measured on torch 2.13: \"Generator reconstruction with mutations\"), so that "
        "call breaks too and the rest of the frame runs eagerly. Built as a list (`sum([...])`, "
        "`list(...)`), Dynamo resumes."
    ),
    example=(
        "def scale(t):\n"
        "    print(\"scaling\")\n"
        "    return t * 2\n"
        "\n"
        "y = sum(scale(t) for t in [x, x + 1])"
    ),
    use_instead=(
        "def scale(t):\n"
        "    print(\"scaling\")\n"
        "    return t * 2\n"
        "\n"
        "y = sum([scale(t) for t in [x, x + 1]])  # a list: Dynamo resumes after the call"
    ),
    fix_safety=(
        "No automatic fix: remove the break in the callee (its own finding says how). Building a list "
        "first (`sum([...])`) lets Dynamo resume after the call, but a list comprehension over a "
        "ModuleList or a dict view breaks for its own reason (GM624) before Python 3.12."
    ),
    detection=Detection(dict_view_comprehension_call=_consumed_call),
    advice=("`{code}` steps a generator expression whose element breaks inside the trace: remove the break in "
            "the callee, or build a list first (`sum([...])`)"),
)
