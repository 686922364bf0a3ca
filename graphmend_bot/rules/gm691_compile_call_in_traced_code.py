"""GM691 compile-call-in-traced-code: its documentation, in one place with how it is detected.

Measured on torch 2.13 (`TorchInGraphFunctionVariable`'s `handle_torch_compile`,
tests/coverage_probes/gb0223_*): in traced code Dynamo treats `torch.compile(fn, ...)` as a no-op
that returns `fn`, and breaks on every other call of it (GB0223 "torch.compile call with > 1
args", whose handler counts positional arguments): `torch.compile(backend="eager")`, the decorator
form with no function yet, and `torch.compile(model=fn)`. Two positional arguments raise TypeError in
eager too (the options are keyword-only), so only the calls with none are reported.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind


def _compile(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    if not call.args and all(
        keyword.arg is not None for keyword in call.keywords
    ):  # `**options` may hold `model`
        checker.report(
            rule,
            call,
            "`torch.compile(...)` without the function as its first positional argument breaks "
            "the graph in traced code",
            TENSOR,
        )
    return NOT_TENSOR


RULE = Rule(
    code="GM691",
    name="compile-call-in-traced-code",
    family="not traceable",
    gb_id="GB0223",
    summary=(
        "Flags `torch.compile(...)` called in traced code without the function as its positional "
        "argument: `torch.compile(backend=...)` (the decorator form) and `torch.compile(model=fn)`."
    ),
    why=(
        "Inside a compiled region Dynamo turns `torch.compile(fn, ...)` into `fn` itself: the outer "
        "compilation already covers it. Any other call of `torch.compile` it cannot model, so it ends "
        "the graph there and runs the call eagerly (GB0223, measured on torch 2.13)."
    ),
    example='scaled = torch.compile(backend="eager")(scale)',
    use_instead='scaled = torch.compile(scale, backend="eager")  # a no-op under the outer compile',
    fix_safety=(
        "No automatic fix: pass the function positionally (`torch.compile(fn, backend=...)`, which Dynamo "
        "treats as `fn`), or compile it once outside the compiled function."
    ),
    detection=Detection(calls={"torch.compile": _compile}),
    advice=(
        "`{code}` breaks the graph in traced code: pass the function positionally "
        "(`torch.compile(fn, ...)`), or compile it outside the compiled function"
    ),
)
