"""GM633 hook-reads-grad-layout: its documentation, in one place with how it is detected.

Dynamo traces a hook registered in traced code (`t.register_hook(fn)`) as a subgraph of the
backward, in a strict mode where the gradient's strides are unknown. Measured on torch 2.13
(tests/coverage_probes/gb7444_*): a hook that reads `grad.is_contiguous()`, `grad.stride()` or
`grad.storage_offset()` (torch._dynamo.config._autograd_backward_strict_mode_conditional_banned_ops)
breaks at the `register_hook` call with GB7444. Only a lambda written at the call is read: a hook
passed by name may be defined anywhere.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.gm645_hook_mutates_outer_state import report_outer_mutation
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind
from graphmend_bot.vocabulary.mode_names import GRAD_ENABLED

STRIDE_DEPENDENT_HOOK = "GB7444"  # "register_hook with stride-dependent code"
_LAYOUT_QUERIES = frozenset({"is_contiguous", "stride", "storage_offset"})


def _reads_layout(hook: ast.Lambda) -> bool:
    """The lambda calls a layout query on one of its own parameters (the gradient)."""
    params = {a.arg for a in (*hook.args.posonlyargs, *hook.args.args)}
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _LAYOUT_QUERIES
        and isinstance(node.func.value, ast.Name) and node.func.value.id in params
        for node in ast.walk(hook.body)
    )


def _register_hook(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    report_outer_mutation(checker, call, receiver)  # GM645 reads the same call: one rule owns a method
    hook = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "hook"), None)
    if receiver.is_tensor and not checker.assumed_tensor(receiver) and isinstance(hook, ast.Lambda) and _reads_layout(hook):
        # With grad disabled the tensor needs none and `register_hook` raises in eager: a grad-mode break.
        checker.report(rule, call, "a hook registered in traced code reads the gradient's strides", receiver,
                       gb_id=STRIDE_DEPENDENT_HOOK, mode=GRAD_ENABLED)


RULE = Rule(
    code="GM633",
    name="hook-reads-grad-layout",
    family="not traceable",
    gb_id=STRIDE_DEPENDENT_HOOK,
    summary=(
        "Flags `t.register_hook(lambda g: ...)` in traced code whose hook reads the gradient's layout: "
        "`g.is_contiguous()`, `g.stride()`, `g.storage_offset()`."
    ),
    why=(
        "Dynamo traces the hook ahead of the backward pass, when the gradient's strides are not known; "
        "a hook that branches on them cannot be traced, so the registration breaks the graph "
        "(measured on torch 2.13: GB7444)."
    ),
    example="y = torch.sin(x)\ny.register_hook(lambda g: g if g.is_contiguous() else g.contiguous())",
    use_instead="y = torch.sin(x)\ny.register_hook(lambda g: g.contiguous())  # returns g itself when contiguous",
    fix_safety=(
        "No automatic fix: `g.contiguous()` returns `g` itself when it is contiguous, so dropping the "
        "test usually keeps the result; a hook that does more on one branch needs rewriting by hand."
    ),
    detection=Detection(tensor_methods={"register_hook": _register_hook}),
    advice="Make `{code}`'s hook independent of the gradient's layout (`g.contiguous()` needs no test)",
)
