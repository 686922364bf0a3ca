"""GM642 autograd-functional-call: its documentation, in one place with how it is detected.

Measured on torch 2.13.0 (tests/fixtures/rules/GM642_autograd_functional_call.py,
tests/coverage_probes/gb0055_autograd_functional_jacobian.py): Dynamo's trace rules list
`torch.autograd.functional.jacobian`, `hessian`, `vjp`, `jvp`, `hvp` and `vhp` as functions to put
in the graph whole, and the function to differentiate (a lambda, a nested or a module-level
function) has no graph value, so each call breaks with GB0055 "Failed to convert args/kwargs to
proxy", under `no_grad` and with grad enabled alike. Their `torch.func` counterparts (`jacrev`,
`jacfwd`, `hessian`, `vjp`, `jvp`) trace.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind

# Each function with the torch.func spelling that traces (measured).
_TORCH_FUNC_INSTEAD = {
    "jacobian": "torch.func.jacrev(f)(x)",
    "hessian": "torch.func.hessian(f)(x)",
    "vjp": "torch.func.vjp(f, x)",
    "jvp": "torch.func.jvp(f, (x,), (v,))",
    "hvp": "torch.func.jvp(torch.func.grad(f), (x,), (v,))",
    "vhp": "torch.func.vjp(torch.func.grad(f), x)",
}


def _functional(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    leaf = name.rsplit(".", 1)[-1]
    checker.report(
        rule,
        call,
        f"`torch.{name}` breaks the graph: Dynamo cannot pass it the function to differentiate; "
        f"`{_TORCH_FUNC_INSTEAD[leaf]}` traces",
        TENSOR,
    )
    return TENSOR


RULE = Rule(
    code="GM642",
    name="autograd-functional-call",
    family="not traceable",
    gb_id="GB0055",
    summary=(
        "Flags `torch.autograd.functional.jacobian`, `hessian`, `vjp`, `jvp`, `hvp` and `vhp` in "
        "traced code (linearising a model or a dynamics function: Kalman filters, physics losses)."
    ),
    why=(
        "TorchDynamo keeps the `torch.autograd.functional` helpers as single calls in the graph "
        "instead of tracing into them, and a graph call can only take tensors and constants: the "
        "Python function to differentiate has no graph value, so Dynamo breaks the graph with GB0055 "
        "(measured on torch 2.13, for a lambda, a nested and a module-level function, with grad on "
        "or off). The `torch.func` transforms (`jacrev`, `jacfwd`, `hessian`, `vjp`, `jvp`) trace."
    ),
    example=(
        "from torch.autograd.functional import jacobian\n"
        "def forward(self, x):\n"
        "    return jacobian(lambda s: self.step(s), x)"
    ),
    use_instead="def forward(self, x):\n    return torch.func.jacrev(lambda s: self.step(s))(x)",
    fix_safety=(
        "No automatic fix: `torch.func` returns the same derivatives for tensor inputs, but the "
        "keywords differ (`create_graph`, `strict`, `vectorize`, `strategy` have no counterpart, and "
        "`vjp`/`jvp` return their outputs in another shape), so the call is rewritten by hand."
    ),
    detection=Detection(
        torch_functions={f"autograd.functional.{leaf}": _functional for leaf in _TORCH_FUNC_INSTEAD}
    ),
    advice=(
        "`{code}` is kept whole in the graph and cannot take the function it differentiates: use the "
        "`torch.func` transform (`jacrev`, `jacfwd`, `hessian`, `vjp`, `jvp`), which Dynamo traces"
    ),
)
