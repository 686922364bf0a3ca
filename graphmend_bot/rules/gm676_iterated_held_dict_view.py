"""GM676 iterated-held-dict-view: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_held_dict_views.py, tests/coverage_probes/gb0811_iterated_held_dict_view.py;
pina's `MIONet.forward`, `zip(self.models, self._indeces)` after `self._indeces = networks.values()`):
a dict's `values()` or `items()` view built outside the compiled region, held in `self` by `__init__`
or in a module global, is an object Dynamo wraps without an iterator: iterating it breaks with GB0811
("missing tp_iter ... `UserDefinedObjectVariable(dict_values)`"), in a `for`, a comprehension, `zip`,
`enumerate`, `list(...)`, `tuple(...)`, `sorted(...)`, `set`/`frozenset`/`dict(...)` or a reduction
(`sum`, `max`, `min`, `any`, `all`) (`zip` as a comprehension's iterable broke on stepping the zip instead in the sample,
GB4347, pina's with GB0811: the finding says GB0811). A held `keys()` view traces (Dynamo models it), and so do the same views built in
the traced frame, or a `list(...)` of them held instead. The builders are known only to the scope
solver (analysis/held_contexts.py, which judges GM653's held iterators the same way).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule

_VIEWS = frozenset({"values", "items"})
def held_view(constructor: str) -> bool:
    """`networks.values`, `self.table.items`: what `X.values()` / `X.items()` stored."""
    return "." in constructor and constructor.rpartition(".")[2] in _VIEWS


def _iterated(rule: Rule, checker: Checker, node: ast.expr) -> None:
    if isinstance(node, (ast.Attribute, ast.Name)):
        checker.report_if_held_context_refused(
            rule, node, "Iterating a dict's `values()` / `items()` view built outside the compiled region "
            "(in `__init__` or at module level): Dynamo cannot iterate the view it is given and breaks the graph",
        )


RULE = Rule(
    code="GM676",
    name="iterated-held-dict-view",
    family="not traceable",
    gb_id="GB0811",
    summary=(
        "Flags iterating `self.NAME` or a global in traced code (a `for`, a comprehension, `zip`, "
        "`enumerate`, `list()`, `tuple()`, `sorted()`, `set()`, `dict()`, `sum()`, `max()`, `min()`, `any()`, "
        "`all()`) when it holds a dict's `values()` or `items()` view built outside the compiled "
        "region, by `__init__` or at module level."
    ),
    why=(
        "TorchDynamo models the dict views it builds while tracing, and a held `keys()` view, but a "
        "`values()` or `items()` view that comes from outside is an object it has no iterator for: "
        'iterating it breaks the graph (GB0811, "missing tp_iter", measured on torch 2.13).'
    ),
    example=(
        "class Net(nn.Module):\n"
        "    def __init__(self, nets):\n"
        "        super().__init__()\n"
        "        self.models = nn.ModuleList(nets.keys())\n"
        "        self.columns = nets.values()\n"
        "    def forward(self, x):\n"
        "        return [m(x[..., c]) for m, c in zip(self.models, self.columns)]"
    ),
    use_instead=(
        "class Net(nn.Module):\n"
        "    def __init__(self, nets):\n"
        "        super().__init__()\n"
        "        self.models = nn.ModuleList(nets.keys())\n"
        "        self.columns = list(nets.values())\n"
        "    def forward(self, x):\n"
        "        return [m(x[..., c]) for m, c in zip(self.models, self.columns)]"
    ),
    fix_safety=(
        "No automatic fix: a view follows later changes of its dict, a list does not. Store "
        "`list(d.values())` where the dict does not change after `__init__`, or keep the dict and "
        "iterate `self.d.values()` in the traced code."
    ),
    # `iterated` also sees the argument of a builtin that iterates it (checks.ITERATING_BUILTINS)
    detection=Detection(iterated=_iterated, held_context=held_view),
    advice="`{code}` iterates a dict view built outside the compiled region: hold `list(d.values())` instead",
)
