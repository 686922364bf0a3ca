"""GM202 tensor-assert: its documentation, in one place with how it is detected and fixed.

TorchDynamo rewrites `assert <tensor>` and `assert <tensor>, "constant message"` into
`torch._assert_async` itself (`torch._dynamo.config.rewrite_assert_with_torch_assert`, on by
default), so those cost nothing and are not reported. Measured on torch 2.13.0, it breaks
(GB0170, "generic_jump TensorVariable()") when it cannot recognise the statement as an assert of
one tensor:
- the message is computed (`f"{x}"`, `"...".format(...)`, `"%d" % n`, a variable): a constant is
  taken, and so is what CPython folds into one before compiling (`"a" + "b"`, `"-" * 10`, an
  f-string without placeholders; tests/test_assert_messages.py);
- the test is a chained comparison with a tensor in it (`t0 <= t <= t1`, even `0 <= n <= t.sum()`);
- the test is `and`/`or` with a tensor before the last operand, or `not <tensor>`: each compiles
  to a jump of its own on a tensor before the assert's (`isinstance(x, Tensor) and t` does not, nor
  `flag or t` where the caller's `flag` is a Python bool: the finding stands on that operand's kind);
- the test is a Python bool computed from tensor data (`torch.equal`): GB0033 at the call.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import BRANCH_WHY, Rule
from graphmend_bot.vocabulary.kind import Kind

# CPython's AST optimizer folds `"a" + "b"` and `"-" * 10` (results up to 4096 characters) into one
# constant before compiling; it never folds `%` on a string, nor an f-string inside an operation.
_FOLDED_STR_SIZE = 4096


def _folded_str(node: ast.expr) -> str | None:
    """The string a message expression compiles to as one constant, else None."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _folded_str(node.left), _folded_str(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for text, times in ((node.left, node.right), (node.right, node.left)):  # `"-" * 10` and `10 * "-"`
            folded = _folded_str(text)
            count = times.value if isinstance(times, ast.Constant) else None
            if folded is not None and isinstance(count, int) and count >= 0 and len(folded) * count <= _FOLDED_STR_SIZE:
                return folded * count
    return None


def constant_message(node: ast.Assert) -> bool:
    """The message is loaded as one string constant, which Dynamo needs to lower the assert (measured
    on torch 2.13: `f"no placeholders"`, `"a" + "b"`, `"-" * 10` trace; `"%d" % 3` and a name break)."""
    msg = node.msg
    if msg is None:
        return True
    if isinstance(msg, ast.JoinedStr):  # an f-string without placeholders compiles to its constant
        return all(isinstance(value, ast.Constant) for value in msg.values)
    return _folded_str(msg) is not None


def jumped_operands(node: ast.Assert) -> list[ast.expr] | None:
    """The operands Python jumps on before the assert's own jump (every operand of `and`/`or` but
    the last, the operand of `not`); None for a chained comparison, which breaks whatever its links
    are (measured: the chain's clean-up code sits between its last jump and the assertion error, so
    Dynamo does not see an assert)."""
    test = node.test
    if isinstance(test, ast.BoolOp):
        return test.values[:-1]
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return [test.operand]
    if isinstance(test, ast.Compare) and len(test.ops) > 1:
        return None
    return []


def _check_assert(rule: Rule, checker: Checker, node: ast.Assert, kind: Kind) -> None:
    message = (
        "`assert` on a tensor breaks the graph: Dynamo keeps it in the graph only with a constant "
        "message and a single tensor test; use `torch._assert_async`"
    )
    earlier = jumped_operands(node)
    if kind.data_dependent_bool:
        checker.report(rule, node.test, "`assert` on a Python bool computed from tensor values", kind)
    elif not constant_message(node) or earlier is None:
        checker.report(rule, node.test, message, kind)
    else:
        # With a constant message it breaks only on a jump on a tensor before the assert's own: stands
        # when an earlier operand is one (`flag or t` with a caller's `flag=False` traces).
        jumped = Kind.union(checker.kind_of(value) for value in earlier)
        if jumped.is_tensor:
            checker.report(rule, node.test, message, jumped)


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
