"""GM654 builtin-pow-of-tensor: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0059_builtin_pow_of_tensor.py,
tests/fixtures/rules/GM654_builtin_pow_of_tensor.py): the builtin `pow(a, b)` with a tensor for
either argument breaks with GB0059 "Failed to trace builtin operator `pow`": Dynamo's builtin
`pow` has a handler for Python numbers only, while the operator `a ** b`, which eager `pow(a, b)`
runs, traces. `pow` of Python numbers and sizes traces. An entry point's unannotated parameter
is not taken for a tensor here (`pow(base, 2)` of a number, in practice), and a value that is a
parameter not annotated as a tensor on some path and a tensor on another is left alone.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection, assumed_parameter
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind


def _number_on_some_path(checker: Checker, node: ast.expr, kind: Kind) -> bool:
    """The argument reads a parameter not annotated as a tensor, and is a tensor on another path
    too: `if data_range is None: data_range = x.max() - x.min()` then `pow(k * data_range, 2)`
    makes a tensor only when the caller passes no range, and a caller giving a number traces
    (torchmetrics' ssim, measured). Left alone: which path runs is the caller's."""
    names = {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}
    own = {param for param in kind.params if param in names and not checker.annotated_tensor(param)}
    return bool(own) and bool(kind.always or kind.calls or kind.params - names)


def _pow(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    if len(call.args) != 2 or call.keywords or any(isinstance(arg, ast.Starred) for arg in call.args):
        return None  # `pow(a, b, mod)` is for ints; tensors do not take a modulus
    tensors = [
        kind
        for node, kind in zip(call.args, args)
        if kind.is_tensor
        and not assumed_parameter(checker, node, kind)
        and not _number_on_some_path(checker, node, kind)
    ]
    if tensors:
        checker.report(
            rule, call, "the builtin `pow()` of a tensor: Dynamo traces only `**`", Kind.union(tensors)
        )
    return Kind.union(args)


RULE = Rule(
    code="GM654",
    name="builtin-pow-of-tensor",
    family="not traceable",
    gb_id="GB0059",
    summary="Flags the builtin `pow(a, b)` in traced code when `a` or `b` is a tensor (`pow(diff, 2)`, `pow(2, t)`).",
    why=(
        "In eager, `pow(a, b)` is `a ** b`: it calls the tensor's `__pow__` or `__rpow__`. TorchDynamo "
        "handles the builtin `pow` only for Python numbers: with a tensor argument it ends the graph "
        '(GB0059, "Failed to trace builtin operator", measured on torch 2.13) and runs the call '
        "eagerly, while the operator `**` traces."
    ),
    example="y = pow(x - 1, 2)",
    use_instead="y = (x - 1) ** 2",
    fix_safety=(
        "No automatic fix yet: `pow(a, b)` with two arguments is exactly `a ** b`; write the operator, "
        "or `torch.pow(a, b)`."
    ),
    detection=Detection(builtins={"pow": _pow}),
    advice="Dynamo cannot trace the builtin `{code}` of a tensor: write it with `**` (`a ** b`) or `torch.pow`",
)
