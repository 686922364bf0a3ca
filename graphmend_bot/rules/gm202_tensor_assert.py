"""GM202 tensor-assert: its documentation, in one place with how it is detected and fixed.

TorchDynamo rewrites `assert <tensor>` and `assert <tensor>, "constant message"` into
`torch._assert_async` itself (`torch._dynamo.config.rewrite_assert_with_torch_assert`, on by
default), so those cost nothing and are not reported. Measured on torch 2.13.0, it breaks
(GB0170, "generic_jump TensorVariable()") when it cannot recognise the statement as an assert of
one tensor:
- the message is computed (`f"..."`, `"...".format(...)`, a variable): only a constant is taken;
- the test is a chained comparison with a tensor in it (`t0 <= t <= t1`, even `0 <= n <= t.sum()`);
- the test is `and`/`or` with a tensor before the last operand, or `not <tensor>`: each compiles
  to a jump of its own on a tensor before the assert's (`isinstance(x, Tensor) and t` does not);
- the test is a Python bool computed from tensor data (`torch.equal`): GB0033 at the call.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from graphmend_bot.analysis.kind import Kind
from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import BRANCH_WHY, Rule


def dynamo_rewrites_itself(node: ast.Assert, kind_of: Callable[[ast.expr], Kind]) -> bool:
    """Whether Dynamo turns this assert of a tensor into `torch._assert_async` without a break:
    a constant message, no chained comparison, and no jump on a tensor before the assert's own
    (Python jumps on every operand of `and`/`or` but the last, and on the operand of `not`)."""
    constant_message = node.msg is None or (
        isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str)
    )
    test = node.test
    if isinstance(test, ast.BoolOp):
        earlier = [kind_of(value) for value in test.values[:-1]]
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        earlier = [kind_of(test.operand)]
    elif isinstance(test, ast.Compare) and len(test.ops) > 1:
        # Measured: a chain breaks even when only its last link is a tensor (the chain's clean-up
        # code sits between its last jump and the assertion error, so Dynamo does not see an assert).
        return False
    else:
        earlier = []
    return constant_message and not any(kind.is_tensor for kind in earlier)


def _check_assert(rule: Rule, checker: Checker, node: ast.Assert, kind: Kind) -> None:
    if kind.data_dependent_bool:
        checker.report(rule, node.test, "`assert` on a Python bool computed from tensor values", kind)
    elif not dynamo_rewrites_itself(node, checker.kind_of):
        checker.report(
            rule,
            node.test,
            "`assert` on a tensor breaks the graph: Dynamo keeps it in the graph only with a constant "
            "message and a single tensor test; use `torch._assert_async`",
            kind,
        )


RULE = Rule(
    code="GM202",
    name="tensor-assert",
    family="validation guard",
    gb_id="GB0170",
    python_bool_gb_id="GB0033",
    summary=(
        "Flags `assert` on a tensor condition that TorchDynamo cannot keep in the graph: a computed "
        "message (`f\"...\"`, `.format(...)`), or a chained comparison, `and`/`or` or `not` as the test."
    ),
    why=BRANCH_WHY + (
        " Dynamo lowers `assert t` and `assert t, \"constant\"` to `torch._assert_async` itself "
        "(measured on torch 2.13), but not an assert whose message it would have to compute, nor "
        "one whose test jumps on a tensor before the assert does (`t0 <= t <= t1`, `a and b`, `not a`)."
    ),
    example="""
assert (x >= 0).all(), f"negative input: {x.min()}"
""",
    use_instead="""
torch._assert_async((x >= 0).all(), "AssertionError: negative input: {x.min()}")
""",
    fix_safety=(
        "`torch._assert_async(cond, msg)` is offered as an unsafe fix when the condition is provably "
        "a one-element tensor. It assumes: (1) callers do not catch `AssertionError`, since it raises "
        "RuntimeError (on CUDA asynchronously, at the next synchronisation); (2) the program is not "
        "run with `python -O`, which strips `assert` but not the call; (3) the message may show the "
        "source of its formatted expressions instead of their values (a message computed from tensor "
        "values would read them on every call). A chained comparison `a <= t <= b` becomes "
        "`torch.logical_and(a <= t, t <= b)` when its middle operand is a plain name. "
        "`torch._check(cond, lambda: msg)` is not used: it takes Python bools and SymBools (sizes), "
        "and an assert on sizes does not break on torch 2.13 (static shapes are constants, dynamic "
        "ones become guards), so every assert this rule reports has a tensor condition. Keeping "
        "`assert cond, \"constant message\"` also compiles to one graph (Dynamo lowers it) and keeps "
        "`AssertionError`: prefer it by hand where the exception type matters."
    ),
    fixes=("assertions",),
    detection=Detection(assertion=_check_assert),
)
