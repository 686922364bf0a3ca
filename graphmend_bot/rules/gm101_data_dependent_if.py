"""GM101 data-dependent-if: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.advice import AdviceCase
from graphmend_bot.rules.detect import Detection, conversion
from graphmend_bot.rules.rule import BRANCH_WHY, Rule

# An operand of the condition evaluated before the compile guard that decides it (analysis/function_expressions.py).
BEFORE_GUARD_MESSAGE = "Condition reads tensor values before the compile guard that decides it"
# `case 0:` on a tensor subject: the pattern is `subject == 0` (analysis/match_statements.py).
CASE_MESSAGE = "`case` value pattern compares a tensor subject's values"

RULE = Rule(
    code="GM101",
    name="data-dependent-if",
    family="data-dependent branch",
    gb_id="GB0170",
    python_bool_gb_id="GB0033",
    summary=(
        "Flags an `if`/`elif` (or comprehension filter, or `match` case guard) whose condition depends on a"
        " tensor's values, such as `x.sum() > 0` or `torch.isnan(x).any()`, and a `case` value pattern"
        " (`case 0:`) matched against a tensor."
    ),
    why=BRANCH_WHY,
    example="""
def forward(self, x):
    if x.sum() > 0:
        x = x * 2
    return x
""",
    use_instead="""
def forward(self, x):
    x = torch.where(x.sum() > 0, x * 2, x)
    return x
""",
    fix_safety=(
        "`torch.where` evaluates both arms. The fix is safe when both arms are pure elementwise "
        "expressions of the same tensors (so shape and dtype provably match) and none uses an "
        "operator whose backward can be inf/NaN (sqrt, log, division by a tensor, non-integer powers,"
        " exp overflow): the unselected arm's gradient would be 0 * inf = NaN, so such fixes are "
        "unsafe rather than masked with a second `torch.where`. An arm that is a module's parameter "
        "(`self.embed.weight`) gets no fix: where the branch left the unselected parameter without a "
        "gradient, `torch.where` gives it zeros, which optimizers with weight decay or momentum act "
        "on. `torch.where` promotes, so arms whose own text gives them different dtypes (an int64 "
        "constant `torch.tensor(0)` against `x / 2`, `t * 0.5` against a `t` not proven floating, a "
        "constant of a named dtype against a parameter) get no fix: the path that returned an integer "
        "would come back float. `torch.where` raises on a float or integer condition: one not proven "
        "bool (`if x.sum():`) is selected on its `.bool()`, the truth value the `if` took. The selection "
        "evaluates every operand of `and`/`or` and every `elif` test: one Python skipped must provably "
        "not raise (as GM103's fix), or the fix is unsafe and says so. Fixes that rely on an assumption "
        "(arms reading different tensors of one dtype and shape, hoisted preparation as in the LongRoPE "
        "fix) are unsafe and say which. A function declared to return a non-tensor (`-> bool`, "
        "`-> float`) gets no fix that rewrites its return. `torch.where` makes a new tensor where the "
        "branch handed on an arm itself (`y = x`, a view `x[0]`): when the function updates a tensor in "
        "place after the selection (`y.add_(1)`, `y[0] = 0`, `x += 1`), the fix is unsafe and says so. "
        "A fix writes torch code on the function's parameters: when some call in the tree passes one "
        "of those the line reads a value not known to be a tensor (`helper(np.asarray(values))`), the "
        "fix is unsafe and names that call. A branch that "
        "guards a value against its degenerate case (`if d < 1e-5:`, `if not torch.isfinite(dt):`) "
        "gets no `torch.where` at all when an arm computes with that value or only one arm reads it: "
        "the branch exists for the point where that arm's backward is inf, so the zero gradient "
        "torch.where sends it becomes NaN (measured on torchdiffeq's initial step). The exception "
        "is a function that records no gradients (`@torch.no_grad()`): `if x == 0: return A` whose "
        "tail rebinds `x` keeps the test in `x_is_zero` and returns `torch.where(x_is_zero, A, B)`, "
        "unsafe, when the tail can run again for a zero `x` without raising or side effects. Arms "
        "that call modules become `torch.cond`, always unsafe, and only where both branches' outputs are "
        "proven alike in dtype, shape and device: torch.cond traces both branches, in eager calls too, "
        "and raises otherwise on every call (an early `return torch.tensor(0, device=d)` against a float "
        "division raised \"expected same dtype\"). Alike means like one value read before the branch: the "
        "value itself, a clone, `zeros_like`, factories of one written shape, dtype and device, and, on a "
        "value proven floating, arithmetic with Python numbers, elementwise functions and the class's "
        "shape-keeping submodules (`nn.LayerNorm`, activations, `nn.Linear(n, n)`). Elementwise arms "
        "never get `torch.cond`: `torch.where` is their branch-free form, and eager torch.cond retraces "
        "both branches on every call (a small CPU module: 22 us -> 1.9 ms per call, "
        "benchmarks/cond_eager_cost.py)."
    ),
    fixes=("branches.predicate:build_if_fix", "branches.cond", "branches.zero_guard_return"),
    detection=Detection(
        conversions={
            "if": conversion("`if` condition depends on tensor values"),
            "filter": conversion("Comprehension filter depends on tensor values"),
            "before-guard": conversion(BEFORE_GUARD_MESSAGE),
            "case": conversion(CASE_MESSAGE),
        }
    ),
    advice_cases=(AdviceCase(lambda finding: finding.message.startswith(BEFORE_GUARD_MESSAGE), (
        "`and`/`or` evaluate left to right, so `{code}` runs under compile before the guard can stop it: "
        "move the compile guard before `{code}` in the condition, so that it runs only eagerly"
    )), AdviceCase(lambda finding: finding.message.startswith(CASE_MESSAGE), (
        "Match a Python value (a flag, a size) instead, or select the values with "
        "`torch.where(subject == {code}, <then>, <else>)` when the cases' arms are cheap tensors"
    ))),
    advice=(
        "Select the values with `torch.where({code}, <then>, <else>)` when both arms are cheap tensors, "
        "or `torch.cond` when they call modules"
    ),
)
