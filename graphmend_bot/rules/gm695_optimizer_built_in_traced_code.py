"""GM695 optimizer-built-in-traced-code: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_local_optimizers.py, tests/coverage_probes/gb0008_optimizer_built_from_a_list.py):
building any torch.optim optimizer in a compiled frame breaks at the constructor call. The id
depends on the process's history, not on the line: the first optimizer of a class a process builds
wraps the class's `step` (`Optimizer._patch_step_function` sets `cls.step`), which Dynamo refuses
with GB0467 ("setattr() on unsupported type"; GB0088 for `LBFGS` and `SparseAdam`); every later one
breaks on a skipped function inside the constructor, GB0008. A program that trains builds its own
optimizer first, so GB0008 is the id reported. What the optimizer then does (`step()`) is GM655's.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

INLINED_SKIPPED = "GB0008"

# torch.optim's optimizer classes on torch 2.13, each by the module that defines it (`torch.optim.adam.Adam`).
OPTIMIZER_MODULES = {
    "SGD": "sgd", "Adam": "adam", "AdamW": "adamw", "Adagrad": "adagrad", "Adadelta": "adadelta",
    "Adamax": "adamax", "ASGD": "asgd", "NAdam": "nadam", "RAdam": "radam", "RMSprop": "rmsprop",
    "Rprop": "rprop", "LBFGS": "lbfgs", "SparseAdam": "sparse_adam", "Adafactor": "_adafactor", "Muon": "_muon",
}  # fmt: skip


def _built(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    optimizer = name.rsplit(".", 1)[-1]
    checker.report(
        rule, call, f"`torch.optim.{optimizer}(...)` built in traced code: Dynamo cannot trace an optimizer's "
        "constructor and breaks the graph at the call", TENSOR,
    )
    return NOT_TENSOR


RULE = Rule(
    code="GM695",
    name="optimizer-built-in-traced-code",
    family="not traceable",
    gb_id=INLINED_SKIPPED,
    summary=(
        "Flags a torch.optim optimizer (`torch.optim.Adam(...)`, `optim.SGD(...)`, any of torch's) "
        "built in traced code: an inner optimisation loop, an adversarial attack or test-time fitting "
        "written inside a compiled function."
    ),
    why=(
        "An optimizer's constructor calls functions TorchDynamo skips, and the first one of its class "
        "a process builds also patches the class's `step`: it breaks the graph at the call (measured "
        "on torch 2.13 for every torch.optim class: GB0008 \"Attempted to inline function marked as "
        "skipped\"; GB0467 \"setattr() on unsupported type\", or GB0088 for `LBFGS` and `SparseAdam`, "
        "when it is the first of its class). The optimizer's `step()` breaks again (GM655)."
    ),
    example=(
        "delta = torch.zeros_like(x, requires_grad=True)\n"
        "opt = torch.optim.Adam([delta], lr=0.01)\n"
        "for _ in range(steps):\n"
        "    loss = model(x + delta).sum()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()"
    ),
    use_instead=(
        "loss = model(x + delta).sum()  # compile this; build the optimizer and run its loop outside"
    ),
    fix_safety="No automatic fix: where the optimisation loop runs is the caller's choice.",
    detection=Detection(
        torch_functions={
            spelled: _built
            for optimizer, module in OPTIMIZER_MODULES.items()
            for spelled in (f"optim.{optimizer}", f"optim.{module}.{optimizer}")
        },
    ),
    advice="`{code}` builds an optimizer inside the compiled region: run the optimisation loop outside it",
)
