"""GM603 explicit-graph-break: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection, untraceable
from graphmend_bot.rules.rule import Rule

RULE = Rule(
    code="GM603",
    name="explicit-graph-break",
    family="not traceable",
    gb_id="GB0025",
    summary="Flags `torch._dynamo.graph_break()`.",
    why="It asks for a graph break; usually a leftover from debugging.",
    example="torch._dynamo.graph_break()",
    use_instead="# Remove the call.",
    fix_safety="No automatic fix: the break may be intentional.",
    detection=Detection(calls={"torch._dynamo.graph_break": untraceable("Explicit `torch._dynamo.graph_break()`")}),
    advice="Remove `{code}` unless the graph break is intended",
)
