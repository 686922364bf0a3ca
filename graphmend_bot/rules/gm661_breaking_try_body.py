"""GM661 breaking-try-body: its documentation, in one place with how it is detected.

The traversal asks at each `try` statement outside any `try` or `with` block and loop, after two
tensor operations at the top of the function (where Dynamo keeps a point it can resume at); the
scope solver keeps the finding when the body breaks other than on an error or misconfiguration
branch (a finding there, or a call there whose callee breaks) and nothing broke since the first of
those two operations (analysis/skipped_frames.py records both, as it does for GM611, on every Python).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _try(rule: Rule, checker: Checker, node: ast.Try) -> None:
    checker.report_if_try_body_breaks(
        rule, node, "This `try` body breaks the graph: Dynamo cannot resume inside a `try` block, so it compiles "
        "the graph up to here and runs the rest of the function eagerly"
    )


RULE = Rule(
    code="GM661",
    name="breaking-try-body",
    family="not traceable",
    gb_id="",
    break_reason="step_unsupported",
    summary=(
        "Flags a `try:` in traced code whose body has a graph break (a finding there, or a call "
        "whose callee breaks) other than on an error or misconfiguration branch, entered outside "
        "any other `try` or `with` block and loop after two tensor operations of the function with "
        "no graph break since the first of them."
    ),
    why=(
        "TorchDynamo cannot resume in the middle of a `try` block. At a graph break inside one it "
        "goes back to the last point of the function it can resume at, the `try` statement, "
        "compiles the graph up to it and runs the rest of the function eagerly (measured on torch "
        "2.13: the census records \"step_unsupported\" at the `try` line, beside the break inside). "
        "With fewer than two operations in the graph there is no such point (after a break Dynamo "
        "resumes with an empty graph), and Dynamo skips the whole function."
    ),
    example=(
        "x = x * 2\n"
        "x = x + 1\n"
        "try:\n"
        "    scale = x.sum().item()\n"
        "except RuntimeError:\n"
        "    scale = 1.0\n"
        "x = x * scale"
    ),
    use_instead=(
        "x = x * 2\n"
        "x = x + 1\n"
        "scale = x.sum()\n"
        "x = x * scale"
    ),
    fix_safety=(
        "No automatic fix: remove the break inside the body (its own finding has the advice), or "
        "move the `try` out of the compiled function."
    ),
    detection=Detection(breaking_try=_try),
    advice=(
        "`{code}` holds a graph break in its body, so Dynamo compiles only up to here and runs the rest "
        "of the function eagerly: remove the break inside, or move the `try` out of the compiled function"
    ),
)
