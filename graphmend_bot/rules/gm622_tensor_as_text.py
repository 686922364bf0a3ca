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

from graphmend_bot.rules.detect import Checker, Detection, assumed_parameter
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

STR_OF_TENSOR = "GB0059"
REPR_OF_CLOSURE = "GB1584"


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


RULE = Rule(
    code="GM622",
    name="tensor-as-text",
    family="not traceable",
    gb_id="GB0569",
    other_gb_ids=(STR_OF_TENSOR, REPR_OF_CLOSURE),
    summary=(
        "Flags `repr(t)` and `str(t)` of a tensor or a NumPy value (`str(np.prod(x.shape))`) in traced "
        "code, and of a nested function whose body reads a tensor of the enclosing function."
    ),
    why=(
        "Text of a tensor shows its values, which Dynamo does not have while tracing: it ends the "
        "graph (`repr`: GB0569; `str`: GB0059, measured on torch 2.13) and formats it eagerly. "
        "A nested function that closes over a tensor is text Dynamo cannot make either (`repr`: "
        "GB1584; `str`: GB0059)."
    ),
    example="label = repr(x.sum())",
    use_instead="label = str(tuple(x.shape))  # the shape is known while tracing",
    fix_safety=(
        "No automatic fix: format the tensor outside the compiled function, or use what is known "
        "while tracing (its shape, dtype)."
    ),
    detection=Detection(builtins={"repr": _as_text, "str": _as_text}),
    advice=("`{code}` formats tensor values while tracing: format outside the compiled function, or use "
            "what is known while tracing (`x.shape`, `x.dtype`)"),
)
