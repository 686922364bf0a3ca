"""GM201 tensor-validation-guard: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import CallHook, Checker, Detection, conversion
from graphmend_bot.rules.rule import BRANCH_WHY, Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind


def _tensor_check(position: int) -> CallHook:
    """A check function given a tensor condition at `position`: `torch._check_tensor_all(cond)`,
    `torch._check_tensor_all_with(ValueError, cond, msg)` and transformers'
    `torch_compilable_check(cond, msg)`, which calls the latter. Measured on torch 2.13: GB0124,
    the condition is read with `.item()`; a Python-bool condition (`x.shape[0] == n`) traces."""

    def hook(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
        condition = args[position] if position < len(args) else checker.keyword_kinds(call).get("cond", NOT_TENSOR)
        if condition.is_tensor:
            checker.report(
                rule, call, f"`{name.rpartition('.')[2]}` reads its tensor condition back to Python: the check "
                "leaves the graph", condition, gb_id="GB0124",
            )
        return NOT_TENSOR

    return hook


RULE = Rule(
    code="GM201",
    name="tensor-validation-guard",
    family="validation guard",
    gb_id="GB0170",
    python_bool_gb_id="GB0033",
    summary=(
        "Flags `if <tensor condition>: raise ...`, a value check that aborts on bad data, and the "
        "check functions that read a tensor condition back to Python: `torch._check_tensor_all`, "
        "`torch._check_tensor_all_with` and transformers' `torch_compilable_check` (GB0124 on "
        "torch 2.13, although they are meant for compiled code)."
    ),
    why=BRANCH_WHY + (
        " Validation guards are common at the top of `forward`, so one check can split every call of "
        "the model."
    ),
    example="""
if torch.isnan(x).any():
    raise ValueError("NaN in input")
""",
    use_instead="""
if torch.compiler.is_compiling():
    torch._assert_async(~torch.isnan(x).any(), "ValueError: NaN in input")
elif torch.isnan(x).any():
    raise ValueError("NaN in input")
""",
    fix_safety=(
        "Eager calls keep the `if` and its exception exactly as written; under torch.compile (and "
        "export, where `is_compiling()` is true too) the check runs as `torch._assert_async`, in the "
        "graph, with the message prefixed by the original exception type's name. It raises "
        "RuntimeError there instead of that type: synchronously on CPU, at the next synchronisation "
        "on CUDA. Unsafe for that reason: compiled callers catching the original exception no longer "
        "catch it. Measured on torch 2.13 (tests/rewrite/test_guards.py): one graph, eager ValueError "
        "unchanged, compiled RuntimeError('ValueError: ...'). transformers' idiom `if not "
        "torch.compiler.is_compiling() and <cond>: raise` also keeps eager behaviour but skips the "
        "check when compiled, so it is not used. A guard raising RuntimeError is gated the same way "
        "(eager `_assert_async` would be a device-side assert on CUDA, firing later and ending the "
        "process). `torch.equal` guards keep a static shape check that still raises the "
        "original type. A message formatting a bare name (`f\"t0={t0}\"`) keeps its values in eager "
        "calls; the compiled message writes the placeholder instead, braces included (`\"t0={t0}\"`: "
        "formatting a tensor would break). A "
        "call-free condition (`t0 > t1` on parameters documented \"float or 0-d tensor\") is a "
        "Python bool for floats, which `torch._assert_async` rejects: the compiled arm is gated on "
        "`torch.is_tensor(t0 > t1)` (decided while tracing), so floats keep the `if`. Why not `torch._check_value` (ValueError), `_check_type` (TypeError), `_check_index` "
        "(IndexError) or `torch._check` (RuntimeError), measured on torch 2.13 with a failing "
        "`(x >= 0).all()`: they take only a Python bool (a tensor raises TypeError), so the condition "
        "needs `bool(...)` or `not ...`; `bool(...)` breaks the graph (Tensor.item()), `not ...` makes "
        "Dynamo give up on the frame, and with `capture_scalar_outputs=True` `bool(...)` compiles to "
        "one graph but the compiled check raises RuntimeError, not the declared type. None keeps both "
        "the exception type and the graph, so the fix stays unsafe. The negation is written `~` / `&` "
        "/ `|` where every operand is a bool tensor (a comparison, `isnan`, `any()` of a bool tensor), "
        "and `torch.logical_not` otherwise (`~` of a uint8 `any()` is 254, never false)."
    ),
    fixes=("validation.guards",),
    detection=Detection(
        torch_functions={"_check_tensor_all": _tensor_check(0), "_check_tensor_all_with": _tensor_check(1)},
        module_functions={("transformers", "torch_compilable_check"): _tensor_check(0)},
        conversions={
            "guard": conversion(
                "Validation guard on tensor values raises eagerly; lower it to `torch._assert_async` "
                "so the check stays in the graph"
            )
        }
    ),
    advice="Lower the guard on `{code}` to `torch._assert_async` so the check stays in the graph",
)
