"""GM104 data-dependent-while: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection, conversion
from graphmend_bot.rules.rule import BRANCH_WHY, Rule

RULE = Rule(
    code="GM104",
    name="data-dependent-while",
    family="data-dependent branch",
    gb_id="GB0170",
    summary="Flags a `while` loop whose condition depends on a tensor's values.",
    why=BRANCH_WHY + " A loop breaks the graph on every iteration.",
    example="""
while x.norm() > 1:
    x = x / 2
""",
    use_instead="""
# Compute the trip count without a data-dependent loop, or move the loop out of the
# compiled region; torch._higher_order_ops.while_loop covers loops with static shapes.
""",
    fix_safety="No automatic fix: a loop's trip count changes what it computes.",
    detection=Detection(conversions={"while": conversion("`while` loop depends on tensor values")}),
    advice=(
        "`{code}` decides the trip count from tensor values: compute it without a data-dependent loop, "
        "or keep the loop in Python and compile its body (a solver's step function), or use "
        "`torch._higher_order_ops.while_loop`"
    ),
)
