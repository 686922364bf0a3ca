"""GM679 membership-in-held-dict-items: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_held_dict_views.py, tests/coverage_probes/gb4411_membership_in_held_dict_items.py):
`(k, v) in V` or `not in` where V is a dict's `items()` view built outside the compiled region, held
in `self` by `__init__` or in a module global, breaks with GB4411 ("missing sq_contains"): Dynamo
wraps the view as an object whose C membership slot it does not model (GM678 is the same test on a
held `values()` view, which breaks with GB0811). A held `keys()` view traces, and so do an items
view built in the traced frame or a `list(...)` of it held instead.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def held_items(constructor: str) -> bool:
    """`networks.items`, `self.table.items`: what `X.items()` stored."""
    return "." in constructor and constructor.rpartition(".")[2] == "items"


def _contained(rule: Rule, checker: Checker, node: ast.expr) -> None:
    if isinstance(node, (ast.Attribute, ast.Name)):
        checker.report_if_held_context_refused(
            rule, node, "`in` on a dict's `items()` view built outside the compiled region (in `__init__` or at "
            "module level): Dynamo does not model the view's membership test and breaks the graph",
        )


RULE = Rule(
    code="GM679",
    name="membership-in-held-dict-items",
    family="not traceable",
    gb_id="GB4411",
    summary=(
        "Flags `pair in self.NAME` or `pair not in self.NAME` (or a global) in traced code when it holds a "
        "dict's `items()` view built outside the compiled region, by `__init__` or at module level."
    ),
    why=(
        "TorchDynamo models the dict views it builds while tracing, and a held `keys()` view, but an "
        "`items()` view that comes from outside is an object whose membership slot it does not model: "
        '`in` on it breaks the graph (GB4411, "missing sq_contains", measured on torch 2.13).'
    ),
    example=(
        "class Net(nn.Module):\n"
        "    def __init__(self, sizes):\n"
        "        super().__init__()\n"
        "        self.pairs = sizes.items()\n"
        "    def forward(self, x):\n"
        "        return x * 2 if ('a', 1) in self.pairs else x"
    ),
    use_instead=(
        "class Net(nn.Module):\n"
        "    def __init__(self, sizes):\n"
        "        super().__init__()\n"
        "        self.pairs = list(sizes.items())\n"
        "    def forward(self, x):\n"
        "        return x * 2 if ('a', 1) in self.pairs else x"
    ),
    fix_safety=(
        "No automatic fix: a view follows later changes of its dict, a list does not. Store "
        "`list(d.items())` where the dict does not change after `__init__`, or keep the dict and "
        "test `self.d.get(k) == v` in the traced code."
    ),
    detection=Detection(contained=_contained, held_context=held_items),
    advice="`{code}` tests membership in a dict's `items()` view built outside the compiled region: hold a list instead",
)
