"""GM635 tensor-subclass-init-unbound: its documentation, in one place with how it is detected.

Dynamo builds a torch.Tensor subclass by tracing its `__new__` with the call's arguments and then
its `__init__` with the keyword arguments alone (analysis/subclass_inits.py). The traversal drafts
each call of a capitalized name that passes no `**mapping`; the scope solver keeps those that build
a tensor subclass of the tree, with a `__new__` and an `__init__` of the tree, whose `__init__` the
call's keywords do not bind. Measured on torch 2.13 (tests/coverage_probes/gb7312_tensor_subclass_init.py,
tests/fixtures/rules/GM635_tensor_subclass_init.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule

UNBOUND = "{unbound}"  # analysis/subclass_inits.py (UNBOUND) puts the parameters no keyword binds here


def _built(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    if any(keyword.arg is None for keyword in call.keywords):
        return  # `Cls(x, **options)`: which keywords reach `__init__` is not known
    checker.report_if_builds_tensor_subclass(
        rule,
        call,
        f"building the tensor subclass `{name.rpartition('.')[2]}` breaks the graph: Dynamo runs its "
        f"`__init__` with the keyword arguments only, which leaves {UNBOUND} unbound",
    )


RULE = Rule(
    code="GM635",
    name="tensor-subclass-init-unbound",
    family="not traceable",
    gb_id="GB7312",
    summary=(
        "Flags a call, in traced code, of a `torch.Tensor` subclass of the checked tree (with a `__new__` "
        "of its own, or called with one tensor) whose `__init__` needs a parameter the call does not pass by keyword."
    ),
    why=(
        "TorchDynamo builds a tensor subclass by tracing its `__new__` with the call's arguments, "
        "then its `__init__` with the new tensor and the call's keyword arguments only (the "
        "positional ones are not passed). An `__init__(self, x, labels)` then fails to bind "
        '(GB7312 "failed to bind arguments when attempting to inline", measured on torch 2.13) and '
        "the construction runs eagerly. `__init__(self, *args, **kwargs)`, parameters that all "
        "have defaults, and a subclass with no `__init__` of its own trace."
    ),
    example=(
        "class Labelled(torch.Tensor):\n"
        "    @staticmethod\n"
        "    def __new__(cls, x, labels):\n"
        "        return super().__new__(cls, x)\n\n"
        "    def __init__(self, x, labels):\n"
        "        self.labels = labels\n\n"
        "y = Labelled(x, ['a'])"
    ),
    use_instead=(
        "class Labelled(torch.Tensor):\n"
        "    @staticmethod\n"
        "    def __new__(cls, x, labels):\n"
        "        return super().__new__(cls, x)\n\n"
        "    def __init__(self, *args, **kwargs):  # binds whatever Dynamo passes\n"
        "        self.labels = args[1] if len(args) > 1 else kwargs.get('labels')\n\n"
        "y = Labelled(x, ['a'])"
    ),
    fix_safety=(
        "No automatic fix: give `__init__` defaults or `*args, **kwargs` (and set the attributes in "
        "`__new__`), or build the tensor outside the compiled function."
    ),
    detection=Detection(class_call=_built),
    advice=(
        "`{code}` builds a tensor subclass whose `__init__` Dynamo cannot bind: set its attributes in "
        "`__new__` and let `__init__` take `*args, **kwargs`"
    ),
)
