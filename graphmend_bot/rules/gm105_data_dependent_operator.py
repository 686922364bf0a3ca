"""GM105 data-dependent-operator: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.data_dependent_ops import (
    DATA_DEPENDENT_ATEN_CALLS,
    DATA_DEPENDENT_FUNCTIONS,
    DATA_DEPENDENT_METHODS,
)
from graphmend_bot.vocabulary.kind import DATA_DEPENDENT_BOOL, NOT_TENSOR, TENSOR, Kind
from graphmend_bot.vocabulary.known_names import DATA_DEPENDENT_BOOL_OPS


def _python_bool(rule: Rule, checker: Checker, call: ast.Call, name: str) -> Kind:
    if checker.in_condition:  # in a condition, the condition as a whole is reported
        return DATA_DEPENDENT_BOOL
    checker.report(rule, call, f"`{name}` returns a Python bool computed from tensor values", TENSOR)
    # Dynamo breaks here and resumes with the bool as a constant: an `if` on a local bound to it, or
    # on a helper's `return torch.equal(a, b)`, traces (measured on 2.13, benchmarks/spellings/
    # dd_equal_condition.py).
    return NOT_TENSOR


def _torch_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    return _python_bool(rule, checker, call, f"torch.{name}")


def _tensor_method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
    return _python_bool(rule, checker, call, f"Tensor.{method}")


def _reads_values(name: str, reader: str) -> str:
    return f"`{name}` reads tensor values into Python while Dynamo traces it (`{reader}`)"


def _data_dependent_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    checker.report(rule, call, _reads_values(f"torch.{name}", DATA_DEPENDENT_FUNCTIONS[name]), TENSOR)
    return TENSOR


def _data_dependent_method(
    rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]
) -> Kind:
    checker.report(rule, call, _reads_values(f"Tensor.{method}", DATA_DEPENDENT_METHODS[method]), receiver)
    return receiver


def _aten_operator(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """`torch.ops.aten.equal(a, b)`, `torch.ops.aten._local_scalar_dense(x)`: the aten operator
    itself, reported at the call (its Python result is the read)."""
    checker.report(rule, call, _reads_values(name, DATA_DEPENDENT_ATEN_CALLS[name]), TENSOR)
    return NOT_TENSOR


# Tensor-returning operators of the table generated from torch's operator database (the ones
# returning a Python bool are DATA_DEPENDENT_BOOL_OPS, whose result the traversal follows).
TENSOR_FUNCTIONS = {name for name in DATA_DEPENDENT_FUNCTIONS if name not in DATA_DEPENDENT_BOOL_OPS}
TENSOR_METHODS = {name for name in DATA_DEPENDENT_METHODS if name not in DATA_DEPENDENT_BOOL_OPS}

RULE = Rule(
    code="GM105",
    name="data-dependent-operator",
    family="data-dependent branch",
    gb_id="GB0033",
    summary=(
        "Flags operators whose Python result depends on tensor values, such as `torch.equal` and "
        "`torch.allclose` (spelled `torch.Tensor.equal(a, b)` or through a module-level alias "
        "`same = torch.equal` too), and operators that read tensor values while they run: `torch.cov`, "
        "`torch.corrcoef` (and the Tensor methods) and `torch.nn.functional.gaussian_nll_loss`, from a "
        "table generated from torch's operator database (vocabulary/data_dependent_ops.py), and the "
        "aten operators that raise called directly (`torch.ops.aten.equal`, "
        "`torch.ops.aten._local_scalar_dense.default`)."
    ),
    why=(
        "These return a Python bool computed from the data, which TorchDynamo cannot trace; "
        "`cov`, `corrcoef` and `gaussian_nll_loss` compute one inside (`aten.equal`, `.item()` in "
        "their decompositions), so Dynamo breaks on the call with \"Data dependent operator\" "
        "(GB0033, measured on torch 2.13)."
    ),
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
        calls=dict.fromkeys(DATA_DEPENDENT_ATEN_CALLS, _aten_operator),
        torch_functions={
            **dict.fromkeys(DATA_DEPENDENT_BOOL_OPS, _torch_function),
            # the unbound methods, `torch.Tensor.equal(a, b)`: the same call (GB0033 on torch 2.13)
            **dict.fromkeys((f"Tensor.{name}" for name in DATA_DEPENDENT_BOOL_OPS), _torch_function),
            **dict.fromkeys(TENSOR_FUNCTIONS, _data_dependent_function),
        },
        tensor_methods={
            **dict.fromkeys(DATA_DEPENDENT_BOOL_OPS, _tensor_method),
            **dict.fromkeys(TENSOR_METHODS, _data_dependent_method),
        },
    ),
    advice=(
        "`{code}` returns a Python bool: compare with tensor ops that stay in the graph, "
        "such as `(a == b).all()`"
    ),
)
