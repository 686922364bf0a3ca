"""GM637 untraceable-autograd-function: its documentation, in one place with how it is detected.

Measured on torch 2.13 (`AutogradFunctionVariable.call_apply`, `AutogradFunctionContextVariable`;
tests/coverage_probes/gb0144_*, gb0145_*, gb0085_*, gb2019_*):
- `Fn.apply(...)` of an in-tree autograd.Function whose class body binds `vjp` (GB0145; the old
  alias `vjp = backward` too) or `jvp` (GB0144) breaks with grad enabled and an input that
  requires grad; without grad Dynamo inlines `forward` and never looks at them (message: `(with
  grad enabled)`). One whose `forward` is bound by an assignment, not a `def`
  (`forward = staticmethod(partial(...))`), breaks in every mode (GB0085; GB0346 with grad).
  The scope solver decides which class a call's owner is (analysis/autograd_functions.py).
- `ctx.mark_dirty(...)` in a static `forward(ctx, ...)` breaks at that line when no input requires
  grad (inference, `torch.no_grad()`: GB2019): the context Dynamo builds then has no graph proxy.
  With grad it traces (when the dirty tensor is returned, as eager requires).
- A `forward(ctx, ...)` that sets `ctx._materialize_non_diff_grads` (as torch's own AOT runtime
  does) breaks `Fn.apply(...)` with grad (GB0347); without grad forward is inlined and traces.
- `Fn.helper(...)` on a method the class defines with neither `@staticmethod` nor `@classmethod`
  breaks at the call in every mode (GB0140); on a static or class method it traces.
Left out, measured: `ctx.set_materialize_grads(False)`, `ctx.save_for_backward` of `None` or an
int, `ctx.mark_non_differentiable`, `@once_differentiable` and a `setup_context` all trace.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR

MARK_DIRTY = "GB2019"  # "Unsupported autograd.Function context `mark_dirty`"


def _apply(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    # The message and id are the class's, set by the scope solver when the draft stands.
    checker.report_if_apply_breaks(rule, call, f"`{name}(...)` applies an autograd.Function Dynamo cannot trace")


def _context_call(rule: Rule, checker: Checker, call: ast.Call, method: str) -> None:
    if method == "mark_dirty":
        checker.report(
            rule, call, "`ctx.mark_dirty(...)` breaks the graph when no input of this autograd.Function requires "
            "grad (inference, `torch.no_grad()`)", TENSOR, gb_id=MARK_DIRTY,
        )


RULE = Rule(
    code="GM637",
    name="untraceable-autograd-function",
    family="not traceable",
    gb_id="GB0144",
    other_gb_ids=("GB0145", "GB0085", MARK_DIRTY, "GB0347", "GB0140"),
    summary=(
        "Flags `Fn.apply(...)` in traced code where `Fn` is a torch.autograd.Function of the checked "
        "tree that binds its own `jvp` or `vjp` (with grad enabled) or a `forward` that is not a "
        "`def` or that sets `ctx._materialize_non_diff_grads` (with grad enabled); `Fn.helper(...)` on a "
        "method defined with neither `@staticmethod` nor `@classmethod`; and `ctx.mark_dirty(...)` in an "
        "autograd.Function's `forward` (when no input requires grad)."
    ),
    why=(
        "TorchDynamo traces an autograd.Function by inlining its `forward` (no input requires grad) "
        "or by tracing `forward` and `backward` into one graph (grad enabled). It cannot trace a "
        "custom `jvp` or `vjp` (GB0144, GB0145), a `forward` that is no function (GB0085) or that "
        "sets `ctx._materialize_non_diff_grads` (GB0347), or call a method of the class that is "
        "neither static nor a class method (`Fn.helper(x)`, GB0140), and "
        "the context it builds without grad cannot mark tensors dirty (GB2019, at the `mark_dirty` "
        "line): each ends the graph and runs the call eagerly (measured on torch 2.13)."
    ),
    example=(
        "class Double(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * 2\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        return grad * 2\n\n"
        "    vjp = backward\n\n"
        "y = Double.apply(x)"
    ),
    use_instead=(
        "class Double(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * 2\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):  # `backward` only: `vjp` is torch's alias of it\n"
        "        return grad * 2\n\n"
        "y = Double.apply(x)"
    ),
    fix_safety=(
        "No automatic fix: drop the `vjp` alias or the custom `jvp` (forward-mode AD then needs "
        "another route), define `forward` with `def`, leave `ctx._materialize_non_diff_grads` alone "
        "(`ctx.set_materialize_grads(False)` traces), decorate helpers with `@staticmethod`, or return a "
        "new tensor instead of marking the input dirty."
    ),
    detection=Detection(autograd_apply=_apply, autograd_context_call=_context_call),
    advice=("`{code}` is an autograd.Function use Dynamo cannot trace: keep to `forward`/`backward` "
            "defined with `def`, or call it outside the compiled function"),
)
