"""GM656 data-pointer-arithmetic: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_data_pointer_arithmetic.py): Dynamo holds `t.data_ptr()` as a
stand-in (DataPtrVariable) that is no int, so arithmetic on it (`t.data_ptr() % 16`, `+ 1`, `// 64`,
`& 63`, `1 + p`) and an ordering comparison (`<`, `>=`) raise a TypeError inside Dynamo: "Observed
exception" (GB0088) at that line, and the frame runs eagerly; `hex`, `abs`, `divmod`, ... of it break
with ids of their own (BUILTIN_IDS). Alignment checks are the usual spelling
(`x.data_ptr() % 16 == 0` before a kernel). `==`/`!=` are GM672's (GB5976). Not reported: the pointer
alone, as a dict key or in `in` (these trace, though a lookup keyed by an eager pointer then misses:
measured, no break), and a storage's pointer (`t.untyped_storage()` breaks first, GB0156). A pointer
first bound to a local is not followed, as in GM672: a known miss.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.gm672_data_pointer_comparison import POINTER_METHODS
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind

OBSERVED_EXCEPTION = "GB0088"  # "Observed exception": Dynamo's TypeError on the stand-in
_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_STORAGES = frozenset({"untyped_storage", "storage", "_typed_storage"})
# Builtins given the pointer, each with the id it breaks with at the call (measured): `hex`/`oct`/`bin`
# fail as builtin operators (GB0059), `abs` (GB9548), `divmod` raises as `%` does (GB0088). `hash()`
# breaks only where its result is used; `int`, `float`, `str` and `pow` are other rules' builtins.
BUILTIN_IDS = {"hex": "GB0059", "oct": "GB0059", "bin": "GB0059", "abs": "GB9548", "divmod": OBSERVED_EXCEPTION}
_MESSAGE = "`{spelling}` uses a tensor's `data_ptr()` as a number, which Dynamo cannot: the graph ends here"


def _is_pointer(node: ast.expr) -> bool:
    """`R.data_ptr()` (or `const_data_ptr()`), no arguments, R no storage."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in POINTER_METHODS
            and not node.args and not node.keywords):
        return False
    receiver = node.func.value
    return not (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute)
                and receiver.func.attr in _STORAGES)


def _operator(rule: Rule, checker: Checker, node: ast.BinOp, left: Kind, right: Kind) -> None:
    if _is_pointer(node.left) or _is_pointer(node.right):
        checker.report(rule, node, _MESSAGE.format(spelling=_spelling(node)), TENSOR, gb_id=OBSERVED_EXCEPTION)


def _comparison(rule: Rule, checker: Checker, node: ast.Compare, operands: list[Kind]) -> None:
    if len(node.ops) == 1:  # most comparisons: one operator, seldom an ordering
        if isinstance(node.ops[0], _ORDERINGS) and (_is_pointer(node.left) or _is_pointer(node.comparators[0])):
            checker.report(rule, node, _MESSAGE.format(spelling=_spelling(node)), TENSOR, gb_id=OBSERVED_EXCEPTION)
        return
    sides = [node.left, *node.comparators]
    for op, left, right in zip(node.ops, sides, sides[1:], strict=False):
        if isinstance(op, _ORDERINGS) and (_is_pointer(left) or _is_pointer(right)):
            checker.report(rule, node, _MESSAGE.format(spelling=_spelling(node)), TENSOR, gb_id=OBSERVED_EXCEPTION)
            return


def _builtin(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    if any(_is_pointer(arg) for arg in call.args):
        checker.report(rule, call, _MESSAGE.format(spelling=_spelling(call)), TENSOR, gb_id=BUILTIN_IDS[name])
    return None  # the builtin's usual result kind


def _spelling(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else f"{text[:57]}..."


RULE = Rule(
    code="GM656",
    name="data-pointer-arithmetic",
    family="not traceable",
    gb_id=OBSERVED_EXCEPTION,
    other_gb_ids=tuple(sorted(set(BUILTIN_IDS.values()) - {OBSERVED_EXCEPTION})),
    summary=(
        "Flags arithmetic on a tensor's `data_ptr()` (`x.data_ptr() % 16`, `x.data_ptr() + offset`) and "
        "ordering comparisons of it (`x.data_ptr() < limit`) in traced code, and `hex()`, `oct()`, `bin()`, "
        "`abs()` and `divmod()` of it."
    ),
    why=(
        "Under Dynamo a tensor's address is unknown until the graph runs: `data_ptr()` gives a stand-in "
        "that only `==`/`!=` against the same tensor's pointer understands (GM672 for the rest). Any "
        "arithmetic or ordering on it raises inside Dynamo, which gives up on the frame at that line "
        "(measured on torch 2.13: GB0088 \"Observed exception\") and runs it eagerly. Alignment checks "
        "before a custom kernel (`x.data_ptr() % 16 == 0`) are the usual spelling."
    ),
    example="aligned = x.data_ptr() % 16 == 0",
    use_instead="aligned = is_aligned  # a flag the caller computed eagerly (`x.data_ptr() % 16 == 0`) and passed in",
    fix_safety=(
        "No automatic fix: the address is known only when the graph runs. Compute the check before the "
        "compiled call and pass a flag; skipping it under `torch.compiler.is_compiling()` is safe only "
        "when what it guards does not run under compile either."
    ),
    detection=Detection(operator=_operator, comparison=_comparison, builtins=dict.fromkeys(BUILTIN_IDS, _builtin)),
    advice=("Dynamo cannot compute with the memory address in `{code}`: check it outside the compiled "
            "function and pass a flag"),
)
