"""GM632 untraceable-ndarray-method: its documentation, in one place with how it is detected.

Dynamo runs NumPy code through `torch._numpy` (`trace_numpy`, on by default), where an array is a
tensor in the graph (analysis/numpy_values.py says which values are arrays). Measured on torch 2.13
(tests/coverage_probes/gb0158_*, gb0250_*), as Dynamo's ndarray handler tests them:
- `a.tobytes()` / `a.tostring()`, not modelled in `torch._numpy`: GB0158;
- `a.astype(object)` / `a.astype("O")` (or `dtype=`), which no tensor dtype represents: GB0250.
- reading `a.base`, `a.flags`, `a.dtype` (GB0157) or `a.__version__` (GB0159).
An array `__init__` stores in `self` (every write a NumPy function's result, a NumPy scalar too) is
one as well: `self.a.dtype` breaks the same way (judged by its builders: analysis/held_contexts.py).
Which values are arrays: analysis/numpy_values.py and analysis/ndarray_bindings.py (unpacked,
augmented and annotated bindings, annotated parameters: tests/test_ndarray_bindings.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind
from graphmend_bot.vocabulary.numpy_results import makes_ndarray

NOT_MODELLED = "GB0158"  # "Unsupported ndarray method call"
OBJECT_DTYPE = "GB0250"  # "ndarray.astype(object)"
ATTRIBUTE = "GB0157"  # "Unsupported ndarray attribute access": base, flags, dtype
VERSION = "GB0159"  # "Unsupported ndarray.__version__ access"


def _not_modelled(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    checker.report(rule, call, f"`ndarray.{method}()` is not modelled in `torch._numpy`", TENSOR, gb_id=NOT_MODELLED)


def _is_object_dtype(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "object") or (isinstance(node, ast.Constant) and node.value == "O")


def _astype(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    dtype = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "dtype"), None)
    if dtype is not None and _is_object_dtype(dtype):
        checker.report(rule, call, "`ndarray.astype(object)` has no tensor equivalent", TENSOR, gb_id=OBJECT_DTYPE)


def _attribute(rule: Rule, checker: Checker, node: ast.Attribute) -> None:
    checker.report(rule, node, f"Dynamo cannot trace reading `ndarray.{node.attr}`", TENSOR,
                   gb_id=VERSION if node.attr == "__version__" else ATTRIBUTE)


def _held_attribute(rule: Rule, checker: Checker, node: ast.Attribute) -> None:
    """`self.arr.dtype` where every write of `__init__` stores a NumPy function's result in `self.arr`
    (analysis/held_contexts.py judges the builders): Dynamo wraps a held array as one too."""
    receiver = node.value
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name):
        checker.report_if_held_context_refused(
            rule, receiver, f"Dynamo cannot trace reading `ndarray.{node.attr}` of an array built in `__init__`",
            gb_id=ATTRIBUTE)


RULE = Rule(
    code="GM632",
    name="untraceable-ndarray-method",
    family="not traceable",
    gb_id=NOT_MODELLED,
    other_gb_ids=(OBJECT_DTYPE, ATTRIBUTE, VERSION),
    summary=(
        "Flags NumPy array methods Dynamo cannot trace on an array made in traced code "
        "(`np.asarray(...)`, `np.ones(n)`, a tensor's `t.detach().cpu().numpy()`, `a.T`, ...) or a parameter "
        "annotated `np.ndarray`: `tobytes()`, `tostring()`, `astype(object)`, and reading "
        "`.dtype`, `.flags`, `.base` (of an array `__init__` holds in `self` too) or `.__version__`."
    ),
    why=(
        "Dynamo traces NumPy calls as tensor operations (`torch._numpy`). Bytes of an array and "
        "arrays of Python objects have no tensor equivalent, so it ends the graph there and runs the "
        "call eagerly (measured on torch 2.13: GB0158, GB0250); it does not model an array's `dtype`, "
        "`flags`, `base` (GB0157) or `__version__` (GB0159) either."
    ),
    example="import numpy as np\nkey = np.asarray(sizes).tobytes()",
    use_instead="key = tuple(sizes)  # a hashable key from Python values, outside the array",
    fix_safety=(
        "No automatic fix: keep bytes and object arrays out of the compiled function (compute them "
        "before the call), or use Python values."
    ),
    detection=Detection(
        ndarray_methods={"tobytes": _not_modelled, "tostring": _not_modelled, "astype": _astype},
        ndarray_attributes=dict.fromkeys(("base", "flags", "dtype", "__version__"), _attribute),
        attribute_reads=dict.fromkeys(("base", "flags", "dtype"), _held_attribute),
        held_context=makes_ndarray,
    ),
    advice="Dynamo cannot trace `{code}` on a NumPy array: compute it before the compiled call, or use Python values",
)
