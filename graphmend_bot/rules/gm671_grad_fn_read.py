"""GM671 grad-fn-read: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0104_*): reading `t.grad_fn` in traced code breaks
with GB0104 when `t` has one, i.e. it was computed with grad enabled from a tensor that requires
grad (an output of a module with parameters, a non-leaf input); on a tensor without one (a leaf
input, anything under `torch.no_grad()`) Dynamo answers `None` and traces. The finding names that
mode. Only a tensor computed in the function (or returned by a call) is judged: a parameter as it
came in may be the compiled function's own leaf input, which traces. Writing `grad_fn` raises in
eager, so only reads are looked at.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind
from graphmend_bot.vocabulary.mode_names import GRAD_ENABLED

GRAD_FN = "GB0104"  # "Tensor with grad_fn()"


def _grad_fn(rule: Rule, checker: Checker, node: ast.Attribute, owner: Kind) -> None:
    if isinstance(node.ctx, ast.Load) and (owner.always or owner.calls):
        checker.report(rule, node, "reading `.grad_fn` of a tensor that has one breaks the graph", owner,
                       gb_id=GRAD_FN, mode=GRAD_ENABLED)


RULE = Rule(
    code="GM671",
    name="grad-fn-read",
    family="not traceable",
    gb_id=GRAD_FN,
    summary="Flags `t.grad_fn` read in traced code, which breaks whenever `t` was computed with grad enabled.",
    why=(
        "Dynamo does not model autograd's graph nodes: on a tensor that has a `grad_fn` (computed with "
        "grad enabled from something that requires grad, like any output of a module with parameters "
        "in training) it ends the graph and reads it eagerly (measured on torch 2.13: GB0104). Under "
        "`torch.no_grad()` or on a leaf it answers `None` and traces, so the break comes and goes with "
        "the mode the model runs in."
    ),
    example="hidden = torch.tanh(x @ weight)\nif hidden.grad_fn is not None:\n    hidden = hidden * 2",
    use_instead="hidden = torch.tanh(x @ weight)\nif hidden.requires_grad:\n    hidden = hidden * 2",
    fix_safety=(
        "No automatic fix: `requires_grad` is the traceable question when the code asks whether "
        "gradients flow, but it differs for a leaf that requires grad (no `grad_fn`). Ask "
        "`t.requires_grad` (or `torch.is_grad_enabled()`) in traced code, and inspect `grad_fn` outside it."
    ),
    detection=Detection(tensor_attributes={"grad_fn": _grad_fn}),
    advice=("Dynamo cannot read `{code}` of a tensor computed with grad enabled: ask `requires_grad` in "
            "traced code, or inspect the autograd graph outside the compiled function"),
)
