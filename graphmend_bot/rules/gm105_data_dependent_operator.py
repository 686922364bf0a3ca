"""GM105 data-dependent-operator: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import DATA_DEPENDENT_BOOL, TENSOR, Kind
from graphmend_bot.vocabulary.known_names import DATA_DEPENDENT_BOOL_OPS


def _python_bool(rule: Rule, checker: Checker, call: ast.Call, name: str) -> Kind:
    if not checker.in_condition:  # in a condition, the condition as a whole is reported
        checker.report(rule, call, f"`{name}` returns a Python bool computed from tensor values", TENSOR)
    return DATA_DEPENDENT_BOOL


def _torch_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    return _python_bool(rule, checker, call, f"torch.{name}")


def _tensor_method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
    return _python_bool(rule, checker, call, f"Tensor.{method}")


RULE = Rule(
    code="GM105",
    name="data-dependent-operator",
    family="data-dependent branch",
    gb_id="GB0033",
    summary=(
        "Flags operators whose Python result depends on tensor values, such as `torch.equal` and "
        "`torch.allclose`."
    ),
    why="These return a Python bool computed from the data, which TorchDynamo cannot trace.",
    example="same = torch.equal(a, b)",
    use_instead="same = (a == b).all()  # stays a tensor",
    fix_safety=(
        "No automatic fix outside validation guards (GM201). In one, "
        "`if not all(torch.equal(a, b) for a, b in pairs): raise E(msg)` is lowered as GM201 lowers "
        "`if not torch.equal(a, b)`, pair by pair in a loop: a static shape check still raising `E`, then "
        "`torch._assert_async((a == b).all(), ...)` (behind `torch.compiler.is_compiling()` unless `E` is "
        "RuntimeError). Not where `a` or `b` is a name of the function too: the loop would rebind it."
    ),
    fixes=("validation.guards:build_pairwise_equal_fix",),
    detection=Detection(
        torch_functions=dict.fromkeys(DATA_DEPENDENT_BOOL_OPS, _torch_function),
        tensor_methods=dict.fromkeys(DATA_DEPENDENT_BOOL_OPS, _tensor_method),
    ),
    advice=(
        "`{code}` returns a Python bool: compare with tensor ops that stay in the graph, "
        "such as `(a == b).all()`"
    ),
)
