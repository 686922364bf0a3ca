"""GM634 autograd-apply-arity: its documentation, in one place with how it is detected.

Measured on torch 2.13 (vocabulary/apply_binding.py; tests/coverage_probes/gb0170_autograd_apply_*):
with no input requiring grad, Dynamo binds `Fn.apply(...)` one place over when the call passes as
many arguments as `forward(ctx, ..., *args)` declares parameters, `ctx` and `*args` counted once
each. The first `if` on a flag parameter then tests the tensor bound to it and breaks (GB0170).
Only the first: after that break Dynamo runs `forward` as a frame of its own, bound right.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.apply_binding import first_flag_test, shifted
from graphmend_bot.vocabulary.kind import Kind
from graphmend_bot.vocabulary.mode_names import NO_INPUT_REQUIRES_GRAD


def _forward(rule: Rule, checker: Checker, node: ast.FunctionDef) -> None:
    found = first_flag_test(node)
    if found is None:
        return
    test, flag, after_ctx_store = found
    # With a store on `ctx` before it, the test breaks only when `ctx` got an object or a tensor:
    # a constant breaks at the store (GB0467).
    deps = Kind.of_param(shifted(flag, onto_object=True))
    if not after_ctx_store:
        deps = deps | Kind.of_param(shifted(flag))
    checker.report(
        rule,
        test,
        f"Dynamo binds `apply`'s arguments one place over (as many as `forward` has parameters, "
        f"`*args` counted once): `{flag}` gets a tensor and this branch depends on its values "
        f"({NO_INPUT_REQUIRES_GRAD})",
        deps,
    )


RULE = Rule(
    code="GM634",
    name="autograd-apply-arity",
    family="not traceable",
    gb_id="GB0170",
    summary=(
        "Flags the first `if` on a flag parameter of an autograd.Function's static "
        "`forward(ctx, flag, *args)` when traced code applies it with exactly as many arguments as "
        "`forward` declares parameters (`ctx` and `*args` counted once each) and the flag's place "
        "one over holds a tensor."
    ),
    why=(
        "When no input requires grad (inference, `torch.no_grad()`), TorchDynamo inlines `forward` "
        "and drops its own `ctx` if the call's argument count equals the number of `forward`'s "
        "parameters, a check meant for a `forward` without `ctx`. `*args` counts as one parameter, "
        "so a call passing it two values meets the count and every argument binds one place over: "
        "`ctx` gets the first, the flag gets the next one, a tensor, and `if flag:` is a "
        "data-dependent branch (GB0170, measured on torch 2.13). Eager binds them right."
    ),
    example=(
        "class Solve(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, has_left, *args):\n"
        "        if has_left:\n"
        "            ...\n"
        "\n"
        "y = Solve.apply(False, rhs, matrix)"
    ),
    use_instead=(
        "class Solve(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, has_left, rhs, matrix):\n"
        "        if has_left:\n"
        "            ...\n"
        "\n"
        "y = Solve.apply(False, rhs, matrix)"
    ),
    fix_safety=(
        "No automatic fix: the binding is Dynamo's. Name the parameters where their number is fixed "
        "(`backward` returns one gradient per argument either way); tensors moved into a tuple "
        "would lose their gradients."
    ),
    detection=Detection(vararg_autograd_forward=_forward),
    advice="Dynamo binds `apply`'s arguments one place over, so `{code}` tests a tensor: name `forward`'s parameters instead of `*args`",
)
