"""Whether a check sits in a `try` of its own function that has handlers.

Under torch.compile, a check kept in the graph (`torch._assert_async`, or an `assert` Dynamo lowers
to one) fails when the graph runs, not where Dynamo traced it: the failure leaves the compiled
frame, and the handler that caught the eager `raise` or `assert` never runs. Measured on torch 2.13
(tests/rewrite/test_caught_checks.py): linear_operator's `try: ... if approx_eigs.min() <= 0: raise
RuntimeError / except RuntimeError: approx_eigs = linear_op._diagonal()` falls back eagerly and
compiled as written, and raises RuntimeError compiled once the guard is lowered. A raise a handler
catches is control flow, not validation, so it gets no lowering. (A handler in a caller compiled
with it is the same case; it cannot be seen from here, and the fixes' assumptions say the check
raises under torch.compile.)
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.rewrite.context import FixContext


def inside_try_with_handlers(ctx: FixContext, node: cst.CSTNode) -> bool:
    """`node` is in the body of a `try` (or `try`/`except*`) with handlers, in the same function."""
    child = node
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, cst.FunctionDef | cst.Lambda | cst.ClassDef):
            return False
        if isinstance(ancestor, cst.Try | cst.TryStar) and child is ancestor.body and ancestor.handlers:
            return True
        child = ancestor
    return False
