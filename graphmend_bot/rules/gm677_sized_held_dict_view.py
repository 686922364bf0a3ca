"""GM677 sized-held-dict-view: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_held_dict_views.py, tests/coverage_probes/gb6012_len_of_held_dict_view.py):
`len()` or `bool()` of a dict's `values()` or `items()` view built outside the compiled region, held
in `self` by `__init__` or in a module global, breaks with GB6012 ("Cannot trace user-defined
__len__"): Dynamo wraps the view as an object it has no length for, as it has no iterator for it
(GM676, GB0811, the same views). A held `keys()` view traces, and so do the same views built in the
traced frame, or a `list(...)` of them held instead.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.gm676_iterated_held_dict_view import held_view
from graphmend_bot.rules.rule import Rule


def _sized(rule: Rule, checker: Checker, node: ast.expr) -> None:
    if isinstance(node, (ast.Attribute, ast.Name)):
        checker.report_if_held_context_refused(
            rule, node, "`len()` / `bool()` of a dict's `values()` / `items()` view built outside the compiled "
            "region (in `__init__` or at module level): Dynamo has no length for the view it is given and breaks the graph",
        )


RULE = Rule(
    code="GM677",
    name="sized-held-dict-view",
    family="not traceable",
    gb_id="GB6012",
    summary=(
        "Flags `len(self.NAME)` or `bool(self.NAME)` (or of a global) in traced code when it holds a dict's "
        "`values()` or `items()` view built outside the compiled region, by `__init__` or at module level."
    ),
    why=(
        "TorchDynamo models the dict views it builds while tracing, and a held `keys()` view, but a "
        "`values()` or `items()` view that comes from outside is an object whose length it cannot "
        'ask: `len()` of it breaks the graph (GB6012, "Cannot trace user-defined __len__", measured on torch 2.13).'
    ),
    example=(
        "class Net(nn.Module):\n"
        "    def __init__(self, nets):\n"
        "        super().__init__()\n"
        "        self.columns = nets.values()\n"
        "    def forward(self, x):\n"
        "        return x / len(self.columns)"
    ),
    use_instead=(
        "class Net(nn.Module):\n"
        "    def __init__(self, nets):\n"
        "        super().__init__()\n"
        "        self.columns = list(nets.values())\n"
        "    def forward(self, x):\n"
        "        return x / len(self.columns)"
    ),
    fix_safety=(
        "No automatic fix: a view follows later changes of its dict, a list does not. Store "
        "`list(d.values())` where the dict does not change after `__init__`, or keep the dict and "
        "take `len(self.d)` in the traced code."
    ),
    detection=Detection(sized=_sized, held_context=held_view),
    advice="`{code}` takes the length of a dict view built outside the compiled region: hold `list(d.values())` instead",
)
