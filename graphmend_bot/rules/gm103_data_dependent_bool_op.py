"""GM103 data-dependent-bool-op: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection, conversion
from graphmend_bot.rules.rule import BRANCH_WHY, Rule

RULE = Rule(
    code="GM103",
    name="data-dependent-bool-op",
    family="data-dependent branch",
    gb_id="GB0170",
    # No Python-bool id: `torch.equal(a, b) and c` breaks at the read, GM105's finding, and the `and`
    # then tests a constant (measured on 2.13, benchmarks/spellings/dd_equal_condition.py).
    summary=(
        "Flags `and`, `or` and `not` applied to a tensor outside an `if` test: each converts the "
        "tensor to a Python bool."
    ),
    why=BRANCH_WHY,
    example="keep = (x > 0).any() and flag",
    use_instead="keep = torch.logical_and((x > 0).any(), flag)",
    fix_safety=(
        "Lowering `and`/`or` to `torch.logical_*` is safe when every operand is a 0-d bool tensor "
        "(a comparison, a bool predicate, `.any()`/`.all()` of a tensor proven bool or floating): "
        "`.any()` of a uint8 mask is uint8, which `and` returned and `torch.logical_and` turns into "
        "bool, so there the fix is unsafe and says so. `not` gives a Python bool where "
        "`torch.logical_not` gives a tensor, and so does `a and not b` wherever `a` is true: unsafe. "
        "`torch.logical_*` evaluates the operand `and`/`or` skipped: safe only where it provably "
        "cannot raise (every tensor it reads is read by the first operand, computed as a tensor in the "
        "function, or a parameter declared a tensor and not Optional; no broadcast between two tensors; "
        "no negative or tensor exponent), otherwise unsafe: `(x > 0).all() or y.sum() > 0` raised for "
        "`y=None`."
    ),
    fixes=("branches.predicate:build_bool_operation_fix",),
    detection=Detection(
        conversions={
            "not": conversion("`not` depends on tensor values"),
            "and": conversion("`and` converts a tensor to a Python bool"),
            "or": conversion("`or` converts a tensor to a Python bool"),
        }
    ),
    advice=(
        "Keep `{code}` a tensor: `torch.logical_and` / `torch.logical_or` / `torch.logical_not` "
        "instead of `and` / `or` / `not`"
    ),
)
