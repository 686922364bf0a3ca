"""GM678 membership-in-held-dict-values: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_held_dict_views.py, tests/coverage_probes/gb0811_membership_in_held_dict_values.py):
`k in V` or `k not in V` where V is a dict's `values()` view built outside the compiled region, held
in `self` by `__init__` or in a module global, breaks with GB0811 ("missing tp_iter"): a values
view has no `__contains__`, so Python iterates it, and Dynamo has no iterator for the view it is
given (GM676, the same views iterated). A held `keys()` view traces, and so do a values view built
in the traced frame or a `list(...)` of it held instead. A held `items()` view breaks too, with
another id (GB4411, "missing sq_contains"): GM679.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def held_values(constructor: str) -> bool:
    """`networks.values`, `self.table.values`: what `X.values()` stored."""
    return "." in constructor and constructor.rpartition(".")[2] == "values"


def _contained(rule: Rule, checker: Checker, node: ast.expr) -> None:
    if isinstance(node, (ast.Attribute, ast.Name)):
        checker.report_if_held_context_refused(
            rule, node, "`in` on a dict's `values()` view built outside the compiled region (in `__init__` or at "
            "module level) iterates it, and Dynamo cannot iterate the view it is given: the graph breaks",
        )


RULE = Rule(
    code="GM678",
    name="membership-in-held-dict-values",
    family="not traceable",
    gb_id="GB0811",
    summary=(
        "Flags `k in self.NAME` or `k not in self.NAME` (or a global) in traced code when it holds a dict's "
        "`values()` view built outside the compiled region, by `__init__` or at module level."
    ),
    why=(
        "A `values()` view has no `__contains__`: Python answers `in` by iterating it. TorchDynamo models "
        "the views it builds while tracing, but a `values()` view that comes from outside is an object it "
        'has no iterator for: `in` on it breaks the graph (GB0811, "missing tp_iter", measured on torch 2.13).'
    ),
    example=(
        "class Net(nn.Module):\n"
        "    def __init__(self, sizes):\n"
        "        super().__init__()\n"
        "        self.sizes = sizes.values()\n"
        "    def forward(self, x):\n"
        "        return x * 2 if x.shape[-1] in self.sizes else x"
    ),
    use_instead=(
        "class Net(nn.Module):\n"
        "    def __init__(self, sizes):\n"
        "        super().__init__()\n"
        "        self.sizes = list(sizes.values())\n"
        "    def forward(self, x):\n"
        "        return x * 2 if x.shape[-1] in self.sizes else x"
    ),
    fix_safety=(
        "No automatic fix: a view follows later changes of its dict, a list does not. Store "
        "`list(d.values())` (or a set) where the dict does not change after `__init__`, or keep the dict "
        "and test `k in self.d.values()` in the traced code."
    ),
    detection=Detection(contained=_contained, held_context=held_values),
    advice="`{code}` tests membership in a dict's `values()` view built outside the compiled region: hold a list instead",
)
