"""GM648 tensor-method-with-callable: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_tensor_method_with_callable.py): `t.apply_(fn)`, `t.map_(other,
fn)` and `t.map2_(a, b, fn)`, the CPU tensor methods that run a Python function per element, break
with GB0055 ("Failed to convert args/kwargs to proxy"): Dynamo records them as tensor operations and
cannot make the function a graph input, a lambda, a nested `def` or a builtin alike. Near misses
measured: `torch.vmap(fn)(t)` and `torch.func` transforms, which trace the function, and `t.apply`
of a class with its own `apply_` (not a tensor), are not reported.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind

FAILED_PROXY = "GB0055"  # "Failed to convert args/kwargs to proxy"
CALLABLE_METHODS = ("apply_", "map_", "map2_")


def _with_callable(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind | None:
    checker.report(rule, call, f"`Tensor.{method}()` runs a Python function per element: Dynamo cannot pass the "
                   "function to the tensor operation and breaks the graph", receiver, gb_id=FAILED_PROXY)
    return receiver  # in place: the tensor itself


RULE = Rule(
    code="GM648",
    name="tensor-method-with-callable",
    family="not traceable",
    gb_id=FAILED_PROXY,
    summary=(
        "Flags `t.apply_(fn)`, `t.map_(other, fn)` and `t.map2_(a, b, fn)` on a tensor in traced code: "
        "the CPU methods that call a Python function on each element."
    ),
    why=(
        "TorchDynamo records these methods as tensor operations and cannot make a Python function an "
        "argument of one (\"Failed to convert args/kwargs to proxy\", GB0055, measured on torch 2.13): "
        "the graph breaks at the call, which runs eagerly, element by element."
    ),
    example="y = x.clone().apply_(lambda v: v * 2)",
    use_instead="y = x.clone() * 2  # the same function as a tensor operation",
    fix_safety=(
        "No automatic fix: write the per-element function as tensor operations (or `torch.vmap`), "
        "which Dynamo traces."
    ),
    detection=Detection(tensor_methods=dict.fromkeys(CALLABLE_METHODS, _with_callable)),
    advice="Write `{code}`'s per-element Python function as tensor operations: Dynamo cannot pass it to the tensor method",
)
