"""GM655 torch-optimizer-step: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/fixtures/rules/GM655_torch_optimizer_step.py,
tests/coverage_probes/gb0025_torch_optimizer_step.py): the `step()` of torch's own optimizers is
wrapped by `torch.optim.optimizer._use_grad_for_differentiable`, which calls
`torch._dynamo.graph_break()` before and after the update (pytorch#104053), so Dynamo breaks at the
call in traced code (GB0025, "Call to `torch._dynamo.graph_break()`"). Judged on an optimizer held
in `self.NAME` by `__init__` (built there, `self.opt = torch.optim.SGD(...)`, or stored from a
parameter annotated as a torch optimizer, `self.original_optimizer = optimizer` with
`optimizer: Optimizer`): the scope solver knows the builders (analysis/held_methods.py).
`zero_grad()` on one is `@torch._disable_dynamo` (GB0008), whichever the optimizer. Either break is
not logged after an earlier break of a frame holding no tensor: Dynamo skips the frame it would
resume in (analysis/tensorless_frames.py, tests/test_tensorless_frames.py; opacus' `DPOptimizer.zero_grad`).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR

GRAPH_BREAK_CALL = "GB0025"
# `Optimizer.zero_grad` is `@torch._disable_dynamo`: "Attempted to inline function marked as skipped".
DISABLED_CALL = "GB0008"

# torch.optim classes whose `step` carries `@_use_grad_for_differentiable` (each measured on
# torch 2.13: two breaks per call). Not `LBFGS`, `SparseAdam`, `Muon`, `Adafactor` (`@torch.no_grad`).
BREAKING_STEPS = frozenset({
    "SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop", "Rprop",
})  # fmt: skip
# The base class an annotation names: the wrapped optimizer of a wrapper (opacus' DPOptimizer,
# `optimizer: Optimizer`) is one of torch's in practice.
_BASE = "Optimizer"
# Every torch.optim optimizer inherits the base class's `zero_grad` (none overrides it, torch 2.13).
ZERO_GRAD_CLASSES = BREAKING_STEPS | {"LBFGS", "SparseAdam", "Muon", "Adafactor"}


def _optimizer_class(constructor: str) -> str | None:
    """`torch.optim.SGD`, `torch.optim.sgd.SGD`, `typed:torch.optim.Optimizer`: the class's name."""
    parts = constructor.removeprefix("typed:").split(".")
    if parts[:2] != ["torch", "optim"] or len(parts) < 3:
        return None
    return parts[-1]


def held_break(rule: Rule, constructor: str, method: str) -> tuple[str, str] | None:
    """The message and id of `self.NAME.step()` or `self.NAME.zero_grad()` on what `constructor` built, or None."""
    name = _optimizer_class(constructor)
    if name is None:
        return None
    typed = constructor.startswith("typed:")
    if method == "zero_grad" and (name in ZERO_GRAD_CLASSES or (typed and name == _BASE)):
        optimizer = "a torch optimizer's" if name == _BASE else f"`torch.optim.{name}`'s"
        return (
            f"{optimizer} `zero_grad()` is `@torch._disable_dynamo`: Dynamo cannot inline it and breaks the graph "
            "at the call", DISABLED_CALL,
        )
    if method != "step":
        return None
    if not (name in BREAKING_STEPS or (typed and name == _BASE)):
        return None
    optimizer = "a torch optimizer's `step()` (annotated `Optimizer`)" if name == _BASE else f"`torch.optim.{name}.step()`"
    return (
        f"{optimizer} calls `torch._dynamo.graph_break()` around its update: Dynamo breaks the graph at the call",
        GRAPH_BREAK_CALL,
    )


def _local_step(rule: Rule, checker: Checker, call: ast.Call, method: str) -> None:
    """`opt.step()` on an optimizer this function built (GM695 reports the constructor): its
    `graph_break()` is logged at the call even where the frame runs eagerly after an earlier break,
    since Dynamo compiles `step` as a frame of its own there. `zero_grad()` is not judged: after a
    constructor given a `.parameters()` generator Dynamo skips the frame it sits in and logs nothing."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if method != "step" or not isinstance(receiver, ast.Name):
        return
    built = checker.builder_of(receiver.id)
    if built is not None and (found := held_break(rule, built, method)) is not None:
        message, gb_id = found
        checker.report(rule, call, message, TENSOR, gb_id=gb_id, own_frame=True)


RULE = Rule(
    code="GM655",
    name="torch-optimizer-step",
    family="not traceable",
    gb_id=GRAPH_BREAK_CALL,
    other_gb_ids=(DISABLED_CALL,),
    summary=(
        "Flags `self.NAME.step()` in traced code on a torch optimizer held by the object: built in "
        "`__init__` (`self.opt = torch.optim.Adam(params)`: `SGD`, `Adam`, `AdamW`, `Adagrad`, "
        "`Adadelta`, `Adamax`, `ASGD`, `NAdam`, `RAdam`, `RMSprop`, `Rprop`) or stored there from a "
        "parameter annotated as one (`optimizer: Optimizer`, a wrapper's wrapped optimizer); and "
        "`NAME.step()` on a module global built as one (`OPTIMIZER = torch.optim.SGD(...)`) or on a "
        "local the function built as one (GM695 reports the constructor). "
        "`zero_grad()` on any of them, every torch optimizer's included (GB0008). Neither after an "
        "earlier break of a frame holding no tensor (no tensor local, no `torch` module named, "
        "`self` no nn.Module): Dynamo skips the frame it would resume in and logs nothing."
    ),
    why=(
        "torch's optimizers wrap `step` with `_use_grad_for_differentiable`, which calls "
        "`torch._dynamo.graph_break()` before and after the update so that AOTAutograd sees it run "
        "without grad (pytorch#104053): TorchDynamo breaks the graph at the call (GB0025, measured on "
        "torch 2.13). `LBFGS`, `SparseAdam`, `Muon` and `Adafactor` use `@torch.no_grad()` instead and "
        "their `step` is not reported. `Optimizer.zero_grad` is `@torch._disable_dynamo`: Dynamo refuses "
        "to inline it (GB0008 \"Attempted to inline function marked as skipped\")."
    ),
    example=(
        "W = nn.Parameter(torch.ones(3))\n"
        "OPTIMIZER = torch.optim.SGD([W], lr=0.1)\n"
        "\n"
        "loss = (x * W).sum()\n"
        "OPTIMIZER.step()"
    ),
    use_instead=(
        "W = nn.Parameter(torch.ones(3))\n"
        "OPTIMIZER = torch.optim.SGD([W], lr=0.1)\n"
        "\n"
        "loss = (x * W).sum()\n"
        "# and `OPTIMIZER.step()` outside the compiled function (or compile `OPTIMIZER.step` on its own)"
    ),
    fix_safety="No automatic fix: where the update runs is the caller's choice.",
    detection=Detection(held_torch_method=held_break, local_object_call=_local_step),
    advice="`{code}` breaks the graph inside torch.optim: call the optimizer's step outside the compiled function",
)
