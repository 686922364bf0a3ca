"""GM620 disabled-function-call: its documentation; the calls are found by the scope solver
(analysis/disabled_calls.py), since the callee may be disabled in another module, or be a value
a disable call returned (analysis/disabled_values.py)."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection
from graphmend_bot.rules.rule import Rule

SKIP_INLINING = "GB0099"  # "Skip inlining `torch.compiler.disable()`d function"
# `@torch._disable_dynamo`: a skipped function, called (GB0007) or, as a method through `self`, inlined (GB0008)
SKIPPED_CALL, SKIPPED_INLINE = "GB0007", "GB0008"


def _call_id(rule: Rule, skips_inlining: bool, skipped: bool = False) -> str:
    if skipped:
        return SKIPPED_INLINE if skips_inlining else SKIPPED_CALL
    return SKIP_INLINING if skips_inlining else rule.gb_id

RULE = Rule(
    code="GM620",
    name="disabled-function-call",
    family="not traceable",
    gb_id="GB0098",
    other_gb_ids=(SKIP_INLINING, SKIPPED_CALL, SKIPPED_INLINE),
    summary=(
        "Flags calls from traced code to functions of the checked tree marked "
        "`@torch.compiler.disable` or `@torch._dynamo.disable` (with or without `recursive=False`), or "
        "`@torch._disable_dynamo` (GB0007; GB0008 for a method called through `self`), "
        "including those `--fix --unsafe-fixes` marked; and calls of a value such a call returned, held "
        "in a module-level name (called there or imported) or in `self.NAME` "
        "(`no_compile_eigh = torch.compiler.disable(torch.linalg.eigh)`, then `no_compile_eigh(m)`). "
        "Nothing inside such a function is reported: "
        "Dynamo does not trace it."
    ),
    why=(
        "Dynamo does not trace a disabled function: at every call from compiled code it ends the "
        "graph, calls the function eagerly and starts a new graph after it. The break is at the call "
        "(GB0098 for a plain function or staticmethod; GB0099 for a method called through `self` or "
        "a function disabled with `recursive=False`, measured on torch 2.13). torch's own "
        "`@torch._disable_dynamo` puts its wrapper on Dynamo's skip list: the call breaks as a skipped "
        "function (GB0007; GB0008 for a method through `self`). Disabling a helper "
        "whose break no rewrite removes moves that break to its callers; it does not remove it."
    ),
    example="""
class Rows:
    @staticmethod
    @torch.compiler.disable
    def with_values(x):
        return x[x.sum(-1) > 0]

rows = Rows.with_values(x)
""",
    use_instead="""
class Rows:
    @staticmethod
    def kept(x):
        return torch.where(x.sum(-1, keepdim=True) > 0, x, 0)  # a dense form Dynamo traces

rows = Rows.kept(x)
""",
    fix_safety=(
        "No automatic fix: the decorator is the project's decision. Remove it once the function "
        "traces, or call the function outside the compiled region."
    ),
    detection=Detection(disabled_call=_call_id),
    advice=("`{code}` calls a function marked `@torch.compiler.disable`, so the graph breaks here on every "
            "call: remove the decorator once the function traces (for a break no rewrite removes, keep it "
            "and accept the break here), or make the call outside the compiled region"),
)
