"""GM801 dynamo-graph-break: a break TorchDynamo itself reported while the project's tests ran.

A runtime rule: nothing in the static analysis reports it. `graphmend census` records the breaks
Dynamo meets in the tests, and merging that census into a check turns each one that no static
finding covers into a GM801 finding, with Dynamo's own reason and graph-break id.
"""

from __future__ import annotations

from graphmend_bot.rules.rule import Rule

RULE = Rule(
    code="GM801",
    name="dynamo-graph-break",
    family="runtime",
    gb_id="",  # Dynamo's own id, per finding
    summary="Reports a graph break TorchDynamo met while the project's tests ran (`graphmend census`) on a line "
            "the static rules do not flag.",
    why="Dynamo ended the graph here on a real call: a device sync, lost fusion and more compile time on every "
        "call that takes this path. The finding carries Dynamo's reason and graph-break id and names the test.",
    example="# Any line where `pytest --graphmend-census` recorded a graph break, e.g.\n"
            "import bisect\n"
            "index = bisect.bisect(boundaries, float(t))",
    use_instead="# What the break's id page advises; for a skipped function, call it outside the compiled\n"
                "# region or use a tensor operation (torch.bucketize for bisect).",
    fix_safety="No automatic fix: the static analysis does not model this construct yet, so no rewrite can be "
               "shown safe.",
    advice=(
        "Dynamo broke the graph on `{code}` in the tests: its graph-break page says what it supports; "
        "move the line out of the compiled region or rewrite it with tensor operations"
    ),
)
