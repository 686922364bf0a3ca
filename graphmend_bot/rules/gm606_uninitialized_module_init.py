"""GM606 uninitialized-module-init: its documentation, in one place with how it is detected.

The traversal asks at each `super().__init__(...)` in an `__init__`; the scope solver keeps the
finding when the class is an nn.Module subclass whose `__init__` breaks, directly or in what it
calls, and up the chain of in-tree base `__init__`s it then runs (analysis/scope.py). An `__init__`
that uses `self` before `super().__init__()` (`self.n = n`) breaks at that first use instead, and is
reported there (analysis/uninitialized_modules.py)."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _super_init(rule: Rule, checker: Checker, call: ast.Call) -> None:
    """Measured on torch 2.13 ("Attempted to trace an uninitialized nn.Module of type ...", in the
    graph_breaks log): reported on the `super().__init__` line of the module's `__init__` and of
    each in-tree base `__init__`, whether the break inside comes before or after it; not when the
    `__init__` does not break, and not for classes that are not nn.Modules."""
    checker.report_if_module_init_breaks(
        rule, call, "This nn.Module is built in traced code and its `__init__` breaks: Dynamo then "
        "traces `__init__` on its own, and cannot trace a module before `super().__init__` ran"
    )


RULE = Rule(
    code="GM606",
    name="uninitialized-module-init",
    family="not traceable",
    gb_id="GB0119",
    summary=(
        "Flags `super().__init__(...)` in the `__init__` of an nn.Module subclass that is built in "
        "traced code and whose `__init__` (or anything it calls) has a graph break; at the first use of "
        "`self` before that call when there is one (`self.n = n`), where Dynamo breaks instead."
    ),
    why=(
        "When building the module breaks, TorchDynamo runs the constructor call eagerly and traces "
        "`__init__` as a frame of its own. There `self` is an nn.Module whose `__init__` has not "
        "run yet, which Dynamo refuses to trace (\"Attempted to trace an uninitialized nn.Module\"), "
        "so each `super().__init__` up the class chain is one more break."
    ),
    example=(
        "class Wrapper(nn.Module):\n"
        "    def __init__(self, scale):\n"
        "        super().__init__()\n"
        "        if scale.sum() > 0:\n"
        "            scale = scale - 1\n"
        "        self.scale = scale\n\n"
        "wrapped = Wrapper(x)"
    ),
    use_instead=(
        "class Wrapper(nn.Module):\n"
        "    def __init__(self, scale):\n"
        "        super().__init__()\n"
        "        self.scale = torch.where(scale.sum() > 0, scale - 1, scale)\n\n"
        "wrapped = Wrapper(x)"
    ),
    fix_safety=(
        "No automatic fix. Remove the break inside `__init__` (its own finding says how), or build "
        "the module once outside the compiled function and pass it in."
    ),
    detection=Detection(super_init=_super_init),
    advice=(
        "This module's `__init__` breaks while it is built in the compiled region, so Dynamo traces "
        "`{code}` on an uninitialized module: remove the break in `__init__`, or build the module "
        "outside the compiled function and pass it in"
    ),
)
