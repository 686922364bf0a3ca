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

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import BRANCH_WHY, Rule
from graphmend_bot.vocabulary.kind import Kind


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
if torch.compiler.is_compiling():
    assert (x >= 0).all(), "negative input: {x.min()}"
else:
    assert (x >= 0).all(), f"negative input: {x.min()}"
""",
    fix_safety=(
        "Unsafe fixes, in this order; (1) and (3) keep the assert as written for eager calls "
        "(AssertionError, its formatted values) and change only what compiled code runs, under "
        "`if torch.compiler.is_compiling():`. (1) When the message formats only values proven to be Python "
        "strings or numbers (a module-private helper every caller passes a string literal, such as "
        "torchdiffeq's `_assert_increasing('t', t)`), the compiled arm's `torch._assert_async(cond, "
        "'AssertionError: {}...'.format(name))` keeps the formatted message; it raises RuntimeError instead "
        "of AssertionError (on CUDA at the next synchronisation) and is not stripped by `python -O`. "
        "(2) Otherwise compiled code (`if torch.compiler.is_compiling():`, a constant while Dynamo "
        "traces) takes the assert with its test written as one tensor expression (`and`/`or` "
        "-> `&`/`|` when the right operand is a comparison or predicate that cannot raise, a chain "
        "`a <= t <= b` -> `(a <= t) & (t <= b)` with a plain-name middle, `not` -> `~` only on a call "
        "giving a bool tensor) and a constant message showing the source of what it formatted: "
        "Dynamo then lowers it to `torch._assert_async` itself (measured on torch 2.13: one graph), "
        "and Python bools and multi-element tensors behave as before; eager calls keep the assert as "
        "written, so an eager failure still shows the values its message formats (the arm is not "
        "written when the message is already a constant). Under `python -O` both arms are stripped. (2b) `assert a and b, \"<constant>\"` whose `b` may raise where the `and` skipped it "
        "(an indexing: `grid[0] == t[0] and grid[-1] == t[-1]`) is split into `assert a` then `assert b`, "
        "each one tensor test Dynamo lowers itself; Python checks them in the same order, `b` only "
        "when `a` held, with the same message and exception, so this one is a safe fix. "
        "(3) Otherwise the compiled arm's `torch._assert_async` with a condition proven a one-element "
        "tensor, or a tensor-valued `|`/`&` of reductions (measured: `_assert_async` checks a "
        "one-element tensor of any shape as `assert` does, and raises the same 'ambiguous' "
        "RuntimeError for more elements). "
        "`torch._check(cond, lambda: msg)` is not used: it takes Python bools and SymBools (sizes), "
        "and an assert on sizes does not break on torch 2.13 (static shapes are constants, dynamic "
        "ones become guards), so every assert this rule reports has a tensor condition."
    ),
    fixes=("validation.assertions",),
    detection=Detection(assertion=_check_assert),
    advice=(
        "Lower the assert on `{code}` to `torch._assert_async(<condition>, \"<message>\")` so the check "
        "stays in the graph (it raises RuntimeError instead of AssertionError)"
    ),
)
