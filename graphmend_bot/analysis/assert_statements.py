"""`assert` statements: the test is one conversion as a whole, like an `if` test; the message runs
only on failure. The kinds of the test's parts are kept while the hooks run (which operand Python
jumps on decides what GM101/GM201 say)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.analysis import breaking_reads
from graphmend_bot.analysis import checks as C

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_state import Env
    from graphmend_bot.analysis.function_statements import StatementVisitor


def walk(visitor: StatementVisitor, node: ast.Assert, env: Env) -> None:
    """Judge the test; a tensor test goes to the assertion hooks, any other to the object ones."""
    visitor._kinds = {}
    try:
        first_site = len(visitor.summary.calls)
        kind = visitor._test(node.test, env)
        breaking_reads.ask_test(visitor, node, first_site)
        if kind.is_tensor:
            for check_assert in C.ASSERTIONS:
                check_assert(visitor, node, kind)
        else:
            for check_object in C.OBJECT_ASSERTIONS:
                check_object(visitor, node, visitor.node.args.vararg)
    finally:
        visitor._kinds = None
