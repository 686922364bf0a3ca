"""GM626 module-reinit-through-super: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0162_module_reinit_through_super.py): in traced
code, `super().__init__()` in a method of an nn.Module subclass other than `__init__` (a `reset()`
that starts the module afresh) breaks with GB0162 ("Unsupported super().__init__() call"): Dynamo
runs torch.nn.Module's `__init__` only on a module it is building in the traced frame. Reported
when the first class after the method's own in the MRO (of its class and of each subclass of the
tree) that defines `__init__` is nn.Module (analysis/super_calls.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.known_names import MODULE_REINIT


def _super_reinit(rule: Rule, checker: Checker, call: ast.Call) -> None:
    checker.report_if_super_reaches_object(
        rule, call, MODULE_REINIT, "`super().__init__()` re-runs `nn.Module.__init__` on a module already built, "
        "which Dynamo cannot trace: it breaks the graph",
    )


# The documented example and its fix share the class and its use.
_COUNTER = (
    "class Counter(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.count = 0\n"
    "\n"
    "    def reset(self):\n"
)
_RESET_BY_INIT = "        super().__init__()\n        self.count = 0\n"
_RESET_ITSELF = "        self.count = 0  # reset the state itself; nn.Module's bookkeeping stays\n"
_USE = "\ncounter = Counter()\ncounter.reset()\ny = x + counter.count"


RULE = Rule(
    code="GM626",
    name="module-reinit-through-super",
    family="not traceable",
    gb_id="GB0162",
    summary=(
        "Flags `super().__init__()` in a method of an nn.Module subclass other than `__init__` (a "
        "`reset()`), in traced code, when the `__init__` it reaches is torch.nn.Module's."
    ),
    why=(
        "TorchDynamo traces `nn.Module.__init__` only for a module it is building in the traced "
        "frame; re-running it on a module that exists (its parameters, buffers and hooks dropped) "
        "ends the graph (GB0162, measured on torch 2.13)."
    ),
    example=_COUNTER + _RESET_BY_INIT + _USE,
    use_instead=_COUNTER + _RESET_ITSELF + _USE,
    fix_safety=(
        "No automatic fix: re-running `nn.Module.__init__` drops the module's parameters, buffers, "
        "submodules and hooks; reset the attributes that need it instead, or build a new module "
        "outside the compiled function."
    ),
    detection=Detection(super_reinit=_super_reinit),
    advice=("`{code}` re-initialises an nn.Module inside the compiled region, which Dynamo cannot trace: reset "
            "the attributes themselves"),
)
