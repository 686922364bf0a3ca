"""GM501 dynamic-shape-operator: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast
from collections.abc import Callable

from graphmend_bot.rules.detect import CallHook, Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.data_dependent_ops import (
    DYNAMIC_SHAPE_ATEN_CALLS,
    DYNAMIC_SHAPE_FUNCTIONS,
    DYNAMIC_SHAPE_METHODS,
)
from graphmend_bot.vocabulary.kind import TENSOR, Kind
from graphmend_bot.vocabulary.known_names import NUMPY_DYNAMIC_SHAPE_FUNCTIONS


def _torch_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    checker.report(rule, call, f"`torch.{name}` has an output shape that depends on tensor values", TENSOR)
    return TENSOR


def _aten_operator(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """`torch.ops.aten.nonzero.default(x)`: the aten operator itself, by its full dotted name."""
    checker.report(rule, call, f"`{name}` has an output shape that depends on tensor values", TENSOR)
    return TENSOR


def _numpy_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """`np.unique(a)`, `np.nonzero(a)`: NumPy traced through torch._numpy runs the same operators."""
    checker.report(rule, call, f"`np.{name.partition('.')[2]}` has an output shape that depends on array values", TENSOR)
    return TENSOR


def _one_argument(hook: Callable[[Rule, Checker, ast.Call, str, list[Kind]], Kind]) -> CallHook:
    """`torch.where(cond)`, `np.where(cond)`: `where(cond, a, b)` keeps the shape."""

    def checked(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
        return hook(rule, checker, call, name, args) if len(call.args) == 1 and not call.keywords else None

    return checked


def _numpy_repeat(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    """`np.repeat(a, counts)` by an array or a tensor of counts; by a number it keeps a known shape."""
    given = [*call.args[1:2], *(k.value for k in call.keywords if k.arg == "repeats")]
    kinds = [*args[1:2], *checker.keyword_kinds(call).values()]
    if given and (checker.is_ndarray(given[0]) or any(k.is_tensor and not checker.assumed_tensor(k) for k in kinds)):
        return _numpy_function(rule, checker, call, name, args)
    return None


def _tensor_method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
    checker.report(rule, call, f"`.{method}()` has an output shape that depends on tensor values", receiver)
    return receiver.without_flags()  # indices or values, not a mask: `x[m.nonzero().flatten()]` gathers


# The table generated from torch's operator database (benchmarks/data_dependent_ops.py): a plain
# name by its last part (`torch.functional.unique` too), one in a submodule (`linalg.lstsq`,
# `nn.functional.ctc_loss`) by its full name.
_BY_LEAF = {name for name in DYNAMIC_SHAPE_FUNCTIONS if "." not in name}
_BY_NAME = set(DYNAMIC_SHAPE_FUNCTIONS) - _BY_LEAF

RULE = Rule(
    code="GM501",
    name="dynamic-shape-operator",
    family="data-dependent shape",
    gb_id="GB0036",
    summary=(
        "Flags operators whose output shape depends on tensor values: `nonzero`, one-argument "
        "`torch.where`, `unique`, `unique_consecutive`, `masked_select`, `argwhere`, `bincount` "
        "(its length is the largest value plus one), `torch.combinations`, `torch.linalg.lstsq`, "
        "`F.ctc_loss`: aten tags their operators `dynamic_output_shape`, and the list is generated "
        "from torch's operator database (vocabulary/data_dependent_ops.py); those aten "
        "operators called directly (`torch.ops.aten.nonzero.default`, `torch.ops.aten._unique2`); and "
        "NumPy's, which Dynamo traces through torch: `np.nonzero`, `np.argwhere`, `np.flatnonzero`, "
        "`np.unique`, `np.bincount`, one-argument `np.where`, `np.repeat` by an array of counts."
    ),
    why=(
        "Without `capture_dynamic_output_shape_ops` TorchDynamo cannot give the output a shape and "
        "breaks the graph (\"Dynamic shape operator\", GB0036, each operator measured on torch 2.13)."
    ),
    example="idx = torch.nonzero(mask)",
    use_instead="""
# Keep a dense formulation: torch.where(mask, x, 0), or set
# torch._dynamo.config.capture_dynamic_output_shape_ops = True
""",
    fix_safety=(
        "Unsafe fix for the first match's position, `(self.table == t).nonzero(as_tuple=True)[0][0]` "
        "on a proven 1-d condition: `(self.table == t).int().argmax()`, the same 0-d int64 index "
        "without a data-dependent shape; it assumes the value occurs (else the original raised "
        "IndexError where argmax returns 0). "
        "Otherwise no rewrite of the operator: a dense formulation changes shapes downstream. Unsafe fix, offered for a break on every call of a plain module-level helper: "
        "`@torch.compiler.disable` runs the helper eagerly (its caller still breaks at the call; the helper's "
        "own frame and fragment graph go). It assumes the helper's tensor work is not worth compiling. The "
        "break moves, it is not removed: `--fix` reports it as moved, never as fixed, and the next check reports each call of the helper (GM620)."
    ),
    fixes=("shapes.first_match", "shapes.run_eagerly"),
    detection=Detection(
        calls={**dict.fromkeys(DYNAMIC_SHAPE_ATEN_CALLS, _aten_operator),
               **dict.fromkeys(NUMPY_DYNAMIC_SHAPE_FUNCTIONS, _numpy_function),
               "numpy.where": _one_argument(_numpy_function), "numpy.repeat": _numpy_repeat},
        torch_function_leaves=dict.fromkeys(_BY_LEAF, _torch_function),
        torch_functions={**dict.fromkeys(_BY_NAME, _torch_function), "where": _one_argument(_torch_function)},
        tensor_methods=dict.fromkeys(DYNAMIC_SHAPE_METHODS, _tensor_method),
    ),
    advice=(
        "The shape of `{code}` depends on tensor values (a loop over its rows runs a data-dependent "
        "number of times): keep a dense formulation (`torch.where(mask, x, 0)`, a masked `scatter`/"
        "`index_put`) when what follows allows it, else leave it or set "
        "`torch._dynamo.config.capture_dynamic_output_shape_ops = True`"
    ),
)
