"""GM603 explicit-graph-break: its documentation, in one place with how it is detected and fixed.

Measured on torch 2.13 (tests/coverage_probes/gb0025_*, gb4297_*): `torch._dynamo.graph_break()`
breaks with GB0025, `torch._dynamo.skip_frame()` with GB4297 (Dynamo then runs the whole frame
eagerly), `torch._dynamo.step_unsupported()` with GB4636 after at least two traced ops of the frame
(gb4636_*; before them, or in an inlined call, Dynamo names it GB0275 "with empty checkpoint" and
skips the frame: the same line breaks either way). A module-level alias bound once
(`_sync = torch._dynamo.graph_break`) resolves as the name it aliases (analysis/module_aliases.py;
gb0025_graph_break_alias).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection, untraceable
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

SKIP_FRAME = "GB4297"  # "Call to `torch._dynamo.skip_frame()`"
STEP_UNSUPPORTED = "GB4636"  # "Call to `torch._dynamo.step_unsupported()`"


def _skip_frame(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    checker.report(rule, call, "Explicit `torch._dynamo.skip_frame()`: Dynamo runs this whole function eagerly",
                   TENSOR, gb_id=SKIP_FRAME)
    return NOT_TENSOR


def _step_unsupported(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    checker.report(rule, call, "Explicit `torch._dynamo.step_unsupported()`: Dynamo breaks the graph here",
                   TENSOR, gb_id=STEP_UNSUPPORTED)
    return NOT_TENSOR


RULE = Rule(
    code="GM603",
    name="explicit-graph-break",
    family="not traceable",
    gb_id="GB0025",
    other_gb_ids=(SKIP_FRAME, STEP_UNSUPPORTED),
    summary=(
        "Flags `torch._dynamo.graph_break()`, `torch._dynamo.skip_frame()` and "
        "`torch._dynamo.step_unsupported()`, also through a module-level alias "
        "(`_sync = torch._dynamo.graph_break`)."
    ),
    why=(
        "It asks for a graph break (`skip_frame()`: for the whole function, which then runs "
        "eagerly); usually a leftover from debugging."
    ),
    example="torch._dynamo.graph_break()",
    use_instead="# Remove the call.",
    fix_safety="No automatic fix: the break may be intentional.",
    detection=Detection(calls={
        "torch._dynamo.graph_break": untraceable("Explicit `torch._dynamo.graph_break()`"),
        "torch._dynamo.skip_frame": _skip_frame,
        "torch._dynamo.step_unsupported": _step_unsupported,
    }),
    advice="Remove `{code}` unless the graph break is intended",
)
