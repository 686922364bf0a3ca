"""GM657 breaking-property-read: its documentation, in one place with how it is detected.

The traversal asks after each assignment, expression or `return` statement, and after each `if`,
`elif`, `while` and `assert` test, that read a property of the tree
(`self.NAME`, `self.held.NAME`: property_reads.getter_ref) outside any `try` or `with` block and loop,
after two tensor operations at the top of the function (where Dynamo keeps a point it can resume
at); the scope solver keeps the finding when a getter breaks other than on an error or
misconfiguration branch and nothing broke since the first of those two operations, and drops what
the frame runs after the statement (an `if`'s or `while`'s arms too; analysis/breaking_reads.py has
the measurements). A `functools.cached_property` read before 3.12 is GM612's: its lock breaks first.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _read(rule: Rule, checker: Checker, node: ast.stmt, sites: tuple[int, ...]) -> None:
    checker.report_if_read_breaks(
        rule, node, sites, "A property read in this statement breaks inside its getter: Dynamo cannot resume at an "
        "attribute load, so it compiles the graph up to this statement and runs the rest of the function eagerly"
    )


RULE = Rule(
    code="GM657",
    name="breaking-property-read",
    family="not traceable",
    gb_id="",
    break_reason="step_unsupported",
    summary=(
        "Flags a statement reading a property of the checked tree (`self.NAME`, `self.held.NAME`) whose "
        "getter has a graph break other than on an error or misconfiguration branch, outside any `try` "
        "or `with` block and loop, after two tensor operations of the function with no graph break "
        "since the first of them; what the function runs after the statement is then not reported."
    ),
    why=(
        "TorchDynamo inlines the getter, so a break inside it happens on the attribute load of the "
        "read, an instruction it cannot resume after. It goes back to the last point of the function "
        "it can resume at, the start of the statement, compiles the graph up to it and runs the rest "
        "of the function eagerly (measured on torch 2.13: the census records \"step_unsupported\" at "
        "the statement's first line, beside the break in the getter). With fewer than two operations "
        "in the graph there is no such point, and Dynamo skips the whole function."
    ),
    example=(
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = nn.Parameter(torch.ones(4))\n\n"
        "    @property\n"
        "    def scale(self):\n"
        "        print(\"reading scale\")\n"
        "        return self.w * 2\n\n"
        "    def forward(self, x):\n"
        "        x = x * 2\n"
        "        x = x + 1\n"
        "        s = self.scale\n"
        "        return x * s"
    ),
    use_instead=(
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = nn.Parameter(torch.ones(4))\n\n"
        "    def scale(self):\n"
        "        print(\"reading scale\")\n"
        "        return self.w * 2\n\n"
        "    def forward(self, x):\n"
        "        x = x * 2\n"
        "        x = x + 1\n"
        "        s = self.scale()  # a call Dynamo resumes after: the rest of forward is still compiled\n"
        "        return x * s"
    ),
    fix_safety=(
        "No automatic fix: remove the break in the getter (its own finding has the advice), or make the "
        "property a method, whose call Dynamo resumes after."
    ),
    detection=Detection(breaking_read=_read),
    advice=(
        "A property read in `{code}` breaks inside its getter, so Dynamo compiles only up to here and runs "
        "the rest of the function eagerly: remove the break in the getter, or make the property a method"
    ),
)
