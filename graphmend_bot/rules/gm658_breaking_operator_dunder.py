"""GM658 breaking-operator-dunder: its documentation, in one place with how it is detected.

The traversal records the dunder an operator (`box + 1`, `-box`, `box += 1`), an `in`, an unpacking
(`a, b = box`), a `for` or a truth test (`if box:`, `not box`, `box or x`: `__bool__`, else `__len__`)
runs on an object of a known class (operator_dunders.py, function_objects
`_implicit_call`), and asks after each statement, as for GM657's property reads, when one ran after
a point Dynamo can resume at, outside any `try` or `with` block and loop; the scope solver keeps the
finding when the dunder breaks other than on an error or misconfiguration branch and nothing broke
since the first of the last two operations, and drops what the frame runs after the statement
(analysis/breaking_reads.py; measurements in tests/test_breaking_dunders.py and
test_breaking_implicit_dunders.py). `assert box` is no truth test of the object for Dynamo: it breaks at
the `assert` (GB0055) without running `__bool__`.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _dunder(rule: Rule, checker: Checker, node: ast.stmt, sites: tuple[int, ...]) -> None:
    checker.report_if_read_breaks(
        rule, node, sites, "An operator, `in`, `for`, unpacking or truth test in this statement runs a dunder that "
        "breaks: Dynamo cannot resume after that instruction, so it compiles the graph up to this statement and runs "
        "the rest of the function eagerly"
    )


RULE = Rule(
    code="GM658",
    name="breaking-operator-dunder",
    family="not traceable",
    gb_id="",
    break_reason="step_unsupported",
    summary=(
        "Flags a statement whose operator (`box + 1`, `-box`, `box += 1`), `in`, unpacking (`a, b = box`), "
        "`for` or truth test (`if box:`, `not box`, `box or x`) runs a dunder of a class of the checked tree "
        "(`__add__`, `__neg__`, `__iadd__`, `__contains__`, `__iter__`, `__bool__` or else `__len__`) "
        "that has a graph break other than on an error or misconfiguration branch, outside any `try` or "
        "`with` block and loop, after two tensor operations of the function with no graph break since "
        "the first of them; what the function runs after the statement is then not reported."
    ),
    why=(
        "TorchDynamo inlines the dunder on the instruction of the syntax (BINARY_OP, UNARY_NEGATIVE, "
        "CONTAINS_OP, UNPACK_SEQUENCE, GET_ITER, POP_JUMP_IF and UNARY_NOT for a truth test), none of "
        "which it can resume after: its resumable "
        "instructions are calls, comparisons, subscripts and stores. It goes back to the start of the "
        "statement, compiles the graph up to it and runs the rest of the function eagerly (measured on "
        "torch 2.13: the census records \"step_unsupported\" at the statement's first line, beside the "
        "break in the dunder). `box[0]`, `len(box)` and `box(x)` are resumed after."
    ),
    example=(
        "class Offset:\n"
        "    def __init__(self):\n"
        "        self.v = torch.ones(4)\n\n"
        "    def __neg__(self):\n"
        "        print(\"negating\")\n"
        "        return -self.v\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.offset = Offset()\n\n"
        "    def forward(self, x):\n"
        "        x = x * 2\n"
        "        x = x + 1\n"
        "        o = -self.offset\n"
        "        return x + o"
    ),
    use_instead=(
        "class Offset:\n"
        "    def __init__(self):\n"
        "        self.v = torch.ones(4)\n\n"
        "    def negated(self):\n"
        "        print(\"negating\")\n"
        "        return -self.v\n\n"
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.offset = Offset()\n\n"
        "    def forward(self, x):\n"
        "        x = x * 2\n"
        "        x = x + 1\n"
        "        o = self.offset.negated()  # a call Dynamo resumes after: the rest of forward is still compiled\n"
        "        return x + o"
    ),
    fix_safety=(
        "No automatic fix: remove the break in the dunder (its own finding has the advice), or call a "
        "method instead of the operator, whose call Dynamo resumes after."
    ),
    detection=Detection(breaking_dunder=_dunder),
    advice=(
        "An operator in `{code}` runs a dunder that breaks, so Dynamo compiles only up to here and runs the "
        "rest of the function eagerly: remove the break in the dunder, or call a method instead"
    ),
)
