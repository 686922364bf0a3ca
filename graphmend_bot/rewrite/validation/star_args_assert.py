"""`assert args` on a function's own `*args` becomes `assert len(args) > 0` (GM203).

Dynamo lowers `assert x, msg` to `torch._assert(x, msg)`; a tuple of objects or tensors is no graph
value, so it breaks there (zuko's `ComposedTransform(*transforms)`: `assert transforms, "..."`).
`len(args) > 0` is a constant under Dynamo (measured on torch 2.13: no break, and zuko's flows
compile whole).

Why it is the same check: `*args` is always a tuple, and a tuple's truth value is exactly
`len(t) > 0`. The message, the exception type and `python -O` (which drops both) are unchanged.
Preconditions: the asserted expression is the bare name of the enclosing function's `*args`
parameter, the function never rebinds that name, and `len` is the builtin.
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.findings import Edit, Finding, Fix
from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function
from graphmend_bot.rewrite.context import FixContext


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    test = ctx.node_at(finding)
    if not isinstance(test, cst.Name):
        return None
    statement = ctx.parent(test)
    if not isinstance(statement, cst.Assert) or statement.test is not test:
        return None
    function = enclosing_function(ctx, statement)
    if function is None:
        return None
    star = function.params.star_arg
    if not isinstance(star, cst.Param) or star.name.value != test.value:
        return None
    facts = LocalFacts.of(ctx, function)
    if facts.values(test.value) or facts.values("len") or "len" in ctx.top_level_functions:
        return None  # the name is rebound (it may no longer be the tuple), or `len` is not the builtin
    name = test.value
    return Fix.of(
        f"Assert `len({name}) > 0`: the same check on the `*{name}` tuple, a constant under Dynamo",
        (Edit(f"len({name}) > 0", *ctx.span(test)),),
    )
