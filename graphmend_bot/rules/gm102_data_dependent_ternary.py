"""GM102 data-dependent-ternary: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection, conversion
from graphmend_bot.rules.rule import BRANCH_WHY, Rule

RULE = Rule(
    code="GM102",
    name="data-dependent-ternary",
    family="data-dependent branch",
    gb_id="GB0170",
    python_bool_gb_id="GB0033",
    summary=(
        "Flags a conditional expression `a if cond else b` whose condition depends on a tensor's "
        "values."
    ),
    why=BRANCH_WHY,
    example="y = x + 1 if x.mean() > 0 else x - 1",
    use_instead="y = torch.where(x.mean() > 0, x + 1, x - 1)",
    fix_safety=(
        "Same as GM101: `torch.where` evaluates both arms, so it is safe only for pure arms. A "
        "table read guarded by its index's sign (`self.t[i] if i >= 0 else self.f`, tensor "
        "attributes) becomes `torch.where(torch.as_tensor(i) >= 0, self.t[i], self.f)`, well-typed "
        "for an `int` or tensor `i`: unsafe (a negative `i` must still be a valid index)."
    ),
    fixes=("branches.predicate:build_ternary_fix", "branches.table_lookup"),
    detection=Detection(conversions={"ternary": conversion("Conditional expression depends on tensor values")}),
    advice="Write `torch.where({code}, <a>, <b>)` instead of the conditional expression",
)
