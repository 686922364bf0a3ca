"""GM106 data-dependent-all-any: its documentation, in one place with how it is detected."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind
from graphmend_bot.vocabulary.known_names import DATA_DEPENDENT_BOOL_OPS


def _truth_of_elements(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    """`all(x < y for x, y in ...)`, `any([t > 0 for t in ts])`, `all(mask)`: the argument's
    elements are tensors (a comprehension's kind is its element's), and the builtin converts each
    to a Python bool. Measured on torch 2.13: GB0170 at the `all()`/`any()` call; the result is a
    Python bool, so a condition on it does not break again."""
    if len(args) != 1 or call.keywords or not args[0].is_tensor or _python_bools(call.args[0]):
        return None
    checker.report(rule, call, f"`{name}()` converts each tensor it iterates to a Python bool", args[0])
    return NOT_TENSOR


def _python_bools(argument: ast.expr) -> bool:
    """`all(torch.equal(a, b) for ...)`: the elements are already Python bools, and Dynamo breaks
    on each `torch.equal` (GM105 reports it there), not again in `all()`."""
    if not isinstance(argument, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
        return False
    element = argument.elt
    while isinstance(element, ast.UnaryOp) and isinstance(element.op, ast.Not):
        element = element.operand
    if not isinstance(element, ast.Call):
        return False
    func = element.func
    leaf = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return leaf in DATA_DEPENDENT_BOOL_OPS


RULE = Rule(
    code="GM106",
    name="data-dependent-all-any",
    family="data-dependent branch",
    gb_id="GB0170",
    summary=(
        "Flags the builtins `all()` and `any()` over tensors in traced code: a generator or list of "
        "tensor comparisons (`all(a < b for a, b in zip(ts[:-1], ts[1:]))`) or a tensor itself."
    ),
    why=(
        "`all()` and `any()` convert each element to a Python bool, which forces TorchDynamo to know "
        "the tensor's value while tracing. It cannot, so it ends the graph there (inside a loop it "
        "skips the whole frame) and runs the check eagerly, with a device-to-host sync."
    ),
    example="increasing = all(a < b for a, b in zip(ts[:-1], ts[1:]))",
    use_instead="increasing = (ts[:-1] < ts[1:]).all()  # a bool tensor: stays in the graph",
    fix_safety=(
        "No automatic fix: the tensor form `(ts[:-1] < ts[1:]).all()` stays in the graph only while "
        "its result is used as a tensor; a Python `if` on it breaks again (GM101). Validation of "
        "inputs belongs before the compiled call, or in `torch._assert_async`."
    ),
    detection=Detection(builtins={"all": _truth_of_elements, "any": _truth_of_elements}),
    advice=(
        "`{code}` turns every tensor it iterates into a Python bool: reduce with tensor ops "
        "(`(a < b).all()`) while the result is used as a tensor, or check the inputs before the "
        "compiled call"
    ),
)
