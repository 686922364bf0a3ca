"""GM622 tensor-as-text: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0569_repr_of_tensor.py, gb0059_str_of_tensor.py):
`repr(t)` breaks with GB0569, `str(t)` with GB0059 ("Failed to trace builtin operator"). A
message built for a `raise` is never traced, so it is not reported. f-strings of tensors are left
out until measured where their text is used. A NumPy value (`str(np.prod(x.shape))`) is a tensor
to Dynamo, which traces `numpy.*` calls through torch._numpy: `str` of one breaks with GB0059 and
`repr` with GB0569 (measured, tests/fixtures/rules/GM622_tensor_as_text.py).

The same holds for the text of a function a nested `def`, or a lambda bound to a local, defines
when its body reads a tensor of the enclosing function (a parameter or a value computed there):
`repr(fn)` breaks with GB1584 (Dynamo cannot rebuild the closure as constants to format it),
`str(fn)` with GB0059 (tests/coverage_probes/gb1584_repr_of_closure.py). Over a shape, a number or
a list it traces, and so does reading `fn.__name__` (tests/fixtures/rules/GM622_tensor_as_text.py).
"""

from __future__ import annotations

import ast
import re

from graphmend_bot.rules.detect import Checker, Detection, assumed_parameter
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

STR_OF_TENSOR = "GB0059"
REPR_OF_CLOSURE = "GB1584"
# `"%s" % t`: each spelling measured on torch 2.13 (tests/test_text_formatting.py). A tensor alone is
# a torch op giving text (GB0208), or read as a number (`"%.2f" % t`: GB0033); in a tuple, `str` of it
# (GB0059, `%r`: GB0569), but Dynamo raises inside (GB0088) when the text also holds a number
# conversion (`"%s of %d" % (t, n)`), and on a dict of values.
FORMATTED_ALONE = "GB0208"
FORMATTED_AS_NUMBER = "GB0033"
RAISED_INSIDE = "GB0088"
_CONVERSION = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([a-zA-Z%])")
_NUMBERS = frozenset("diouxXeEfFgGc")
_RECEIVERS = frozenset({"self", "cls"})  # as tensor_uses.untyped_params leaves them out


def _as_text(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    if len(call.args) != 1 or call.keywords:
        return NOT_TENSOR
    closure = checker.closure_kind(call.args[0])
    if checker.is_ndarray(call.args[0]):  # a NumPy value is a tensor to Dynamo
        checker.report(
            rule, call, f"`{name}()` of a NumPy value: Dynamo traces NumPy calls as tensors, whose text needs "
            "their values", TENSOR, gb_id=STR_OF_TENSOR if name == "str" else None,
        )
    elif closure is not None:
        checker.report(
            rule, call, f"`{name}()` of a nested function that closes over a tensor breaks the graph", closure,
            gb_id=STR_OF_TENSOR if name == "str" else REPR_OF_CLOSURE,
        )
    elif not assumed_parameter(checker, call.args[0], args[0]):
        checker.report(
            rule, call, f"`{name}()` of a tensor needs its values, which Dynamo does not have while tracing",
            args[0], gb_id=STR_OF_TENSOR if name == "str" else None,
        )
    return NOT_TENSOR


def _formatted(rule: Rule, checker: Checker, node: ast.BinOp, left: Kind, right: Kind) -> None:
    """`"%s" % t`, `"%s: %.2f" % (name, t.sum())`: text formatting with a tensor among the values."""
    if not (type(node.op) is ast.Mod and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
        return
    values = node.right
    elements = values.elts if isinstance(values, ast.Tuple) else values.values if isinstance(values, ast.Dict) else [values]
    # a parameter as it came in is only assumed to be a tensor (as for `str(mode)`): its own kind is left
    # out, and at an entry point so is all an unannotated parameter gives (`"%d" % (epoch + 1)`), but
    # what `self` holds (`"%s" % self.weight`, a param `self.weight` of the kinds) is no Python number
    if checker.entry_point:
        assumed = {name for name in right.params
                   if name.partition(".")[0] not in _RECEIVERS and not checker.annotated_tensor(name)}
    else:
        assumed = {e.id for e in elements if isinstance(e, ast.Name) and not checker.annotated_tensor(e.id)}
    deps = Kind(always=right.always, params=right.params - assumed, calls=right.calls)
    if not deps.is_tensor:
        return
    conversions = {match[1] for match in _CONVERSION.finditer(node.left.value)} - {"%"}
    if not isinstance(values, (ast.Tuple, ast.Dict)):
        gb_id = FORMATTED_AS_NUMBER if conversions and conversions <= _NUMBERS else FORMATTED_ALONE
    elif isinstance(values, ast.Dict) or conversions & _NUMBERS:
        gb_id = RAISED_INSIDE
    else:
        gb_id = "GB0569" if conversions == {"r"} else STR_OF_TENSOR
    checker.report(rule, node, "`%` formatting of a tensor needs its values, which Dynamo does not have while tracing",
                   deps, gb_id=gb_id)


RULE = Rule(
    code="GM622",
    name="tensor-as-text",
    family="not traceable",
    gb_id="GB0569",
    other_gb_ids=(STR_OF_TENSOR, REPR_OF_CLOSURE, FORMATTED_ALONE, FORMATTED_AS_NUMBER, RAISED_INSIDE),
    summary=(
        "Flags `repr(t)` and `str(t)` of a tensor or a NumPy value (`str(np.prod(x.shape))`) in traced "
        "code, and of a nested function whose body reads a tensor of the enclosing function; and `%` "
        "formatting with a tensor among the values (`\"%s\" % t`, `\"%s: %.2f\" % (name, t.sum())`, "
        "`\"%(v)s\" % {\"v\": t}`)."
    ),
    why=(
        "Text of a tensor shows its values, which Dynamo does not have while tracing: it ends the "
        "graph (`repr`: GB0569; `str`: GB0059, measured on torch 2.13) and formats it eagerly. "
        "A nested function that closes over a tensor is text Dynamo cannot make either (`repr`: "
        "GB1584; `str`: GB0059). `%` formatting of a tensor breaks too, with an id by spelling: alone "
        "(`\"%s\" % t`, GB0208; `\"%.2f\" % t`, GB0033, its value read), in a tuple (GB0059; `%r`: "
        "GB0569; GB0088 when the text holds a number conversion too), in a dict (GB0088). Its shape, "
        "dtype or size format while tracing."
    ),
    example="label = repr(x.sum())",
    use_instead="label = str(tuple(x.shape))  # the shape is known while tracing",
    fix_safety=(
        "No automatic fix: format the tensor outside the compiled function, or use what is known "
        "while tracing (its shape, dtype)."
    ),
    detection=Detection(builtins={"repr": _as_text, "str": _as_text}, operator=_formatted),
    advice=("`{code}` formats tensor values while tracing: format outside the compiled function, or use "
            "what is known while tracing (`x.shape`, `x.dtype`)"),
)
