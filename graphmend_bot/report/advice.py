"""The `help:` advice for a finding that has no fix attached, written about the flagged code itself.

A finding with a fix names that fix instead (its own message, like ruff's fix title); this is for
the rest: plain `check` (fixes are not computed; its summary line points to `--show-fixes`) and
findings no rewrite can fix safely, so the advice never claims whether a rewrite exists.

The per-rule text lives in `_ADVICE` below, keyed by rule code; it may move into the rule modules.
Each template gets `{code}`: the flagged source text (or a short description when the finding spans
several lines).
"""

from __future__ import annotations

import re

from graphmend_bot.findings import Finding

# Longer flagged text is shortened: a call to `name(...)`, anything else cut at this many characters.
_MAX_SHOWN = 60
_CALL = re.compile(r"[\w.]+\(")

_GUARD = "if not torch.compiler.is_compiling():"

_ADVICE: dict[str, str] = {
    "GM101": "Select the values with `torch.where({code}, <then>, <else>)` when both arms are cheap tensors, "
             "or `torch.cond` when they call modules",
    "GM102": "Write `torch.where({code}, <a>, <b>)` instead of the conditional expression",
    "GM103": "Keep `{code}` a tensor: `torch.logical_and` / `torch.logical_or` / `torch.logical_not` "
             "instead of `and` / `or` / `not`",
    "GM104": "`{code}` decides the trip count from tensor values: compute it without a data-dependent loop, "
             "or keep the loop in Python and compile its body (a solver's step function), or use "
             "`torch._higher_order_ops.while_loop`",
    "GM105": "`{code}` returns a Python bool: compare with tensor ops that stay in the graph, "
             "such as `(a == b).all()`",
    "GM106": "`{code}` turns every tensor it iterates into a Python bool: reduce with tensor ops "
             "(`(a < b).all()`) while the result is used as a tensor, or check the inputs before the "
             "compiled call",
    "GM201": "Lower the guard on `{code}` to `torch._assert_async` so the check stays in the graph",
    "GM202": "Lower the assert on `{code}` to `torch._assert_async(<condition>, \"<message>\")` so the check "
             "stays in the graph (it raises RuntimeError instead of AssertionError)",
    "GM203": "`{code}` asserts a tuple of objects, which Dynamo cannot lower to `torch._assert`: assert "
             "its length instead (`assert len(args) > 0`), the same check",
    "GM301": "Keep the value of `{code}` a tensor while it only feeds tensor arithmetic; otherwise set "
             "`torch._dynamo.config.capture_scalar_outputs = True`",
    "GM302": "Keep `{code}` a tensor while it only feeds tensor arithmetic; otherwise set "
             "`torch._dynamo.config.capture_scalar_outputs = True`",
    "GM303": "`{code}` copies every value to Python: keep the values in a tensor, or move this code out of "
             "the compiled region",
    "GM304": "`{code}` takes its trip count from tensor values: pass the count as a Python int decided "
             "before the compiled call, or bound the loop by a constant and mask the extra steps",
    "GM305": "`{code}` passes a tensor where the operator takes a Python number: write the scaling as "
             "tensor arithmetic (`x + y * t`), or pass a number decided before the compiled call",
    "GM401": f"Guard `{{code}}` with `{_GUARD}`, or move it out of the compiled region",
    "GM402": f"Guard `{{code}}` with `{_GUARD}`, or move it out of the compiled region",
    "GM403": f"Guard `{{code}}` with `{_GUARD}`, or move it out of the compiled region",
    "GM501": "The shape of `{code}` depends on tensor values (a loop over its rows runs a data-dependent "
             "number of times): keep a dense formulation (`torch.where(mask, x, 0)`, a masked `scatter`/"
             "`index_put`) when what follows allows it, else leave it or set "
             "`torch._dynamo.config.capture_dynamic_output_shape_ops = True`",
    "GM502": "`{code}` keeps only the selected entries, so its shape depends on tensor values: when what "
             "follows only combines elementwise or reduces, keep the full shape with `torch.where(mask, x, 0)` "
             "and a masked reduction; when it needs the filtered entries (an edge list, a gather), leave it "
             "(`torch.cond` cannot return branches of different shapes) or set "
             "`torch._dynamo.config.capture_dynamic_output_shape_ops = True`",
    "GM503": "Pass `output_size=` to `{code}` when the total is known, so the shape is static",
    "GM601": "Split the compiled region around `{code}`: return the tensor and save or load it outside "
             "`torch.compile`",
    "GM602": "Move `{code}` out of the compiled function",
    "GM603": "Remove `{code}` unless the graph break is intended",
    "GM605": "`{code}` calls a method that breaks on an object built inside the compiled region, so Dynamo "
             "runs this whole function eagerly: remove the break inside the method, or build the object "
             "outside and pass it in (or keep it as module state)",
    "GM606": "This module's `__init__` breaks while it is built in the compiled region, so Dynamo traces "
             "`{code}` on an uninitialized module: remove the break in `__init__`, or build the module "
             "outside the compiled function and pass it in",
    "GM607": "`{code}` creates parameters inside the compiled region: build it once in `__init__` (or "
             "outside the compiled function) and reuse it",
    "GM608": "`{code}` reaches a graph break inside an installed package (quoted above): call a form of its API "
             "that does not break, call it outside the compiled region, or report the break upstream",
    "GM609": "`{code}` hands a generator expression to a call that breaks, and Dynamo cannot rebuild the "
             "generator to resume there: pass a tuple or list (`*tuple(...)`, `[...]`), or remove the break "
             "inside the call",
    "GM610": "`{code}` runs a metaclass's `__call__` on its own because the frame that builds the class "
             "runs eagerly: remove the break that made Dynamo give up on that frame, or build the object "
             "outside the compiled region",
    "GM611": "Dynamo skipped this function after a break in a `try` or loop body, then compiles `{code}` "
             "on its own: remove that break, or iterate a tuple (`tuple(...)`) or use a `for` loop",
    "GM612": "Enter the context of `{code}` outside the compiled function, or move its block out of the "
             "compiled region",
    "GM701": "`{code}` changes autograd state inside the compiled region: set it up before calling the "
             "compiled function, or move this code out of it",
    "GM801": "Dynamo broke the graph on `{code}` in the tests: its graph-break page says what it supports; "
             "move the line out of the compiled region or rewrite it with tensor operations",
    "GM604": f"TorchDynamo skips `{{code}}`: call it outside the compiled region, or guard it with `{_GUARD}`",
}


# A deprecation notice is the project's call (GM403's fix safety, `deprecation-notices`).
_DEPRECATION_ADVICE = (
    "Left as written: compiled callers need this notice too, and GraphMend does not hide it by default. "
    "If your project skips its deprecation notices under compile (as transformers' `deprecate_kwarg` "
    "does), set `deprecation-notices: guard` and `--unsafe-fixes` guards `{code}` with "
    "`torch.compiler.is_compiling()`; `deprecation-notices: defer` routes it through "
    "`torch._dynamo.config.reorderable_logging_functions` instead (kept only where its function is the "
    "compiled frame itself)"
)
_STR_ENUM_ADVICE = (
    "Dynamo cannot call `str` methods on a str-Enum member: call `{code}` on the member's `.value` "
    "(`getattr(opt, \"value\", opt)`), compare with `==`/`in`, or convert it before the compiled region"
)
_DEPRECATION_WORDS = ("deprecat", "FutureWarning", "DeprecationWarning")
# GM101 on an operand evaluated before the compile guard of its condition (analysis/function.py).
_BEFORE_GUARD_MESSAGE = "Condition reads tensor values before the compile guard"
_BEFORE_GUARD_ADVICE = (
    "`and`/`or` evaluate left to right, so `{code}` runs under compile before the guard can stop it: "
    "move the compile guard before `{code}` in the condition, so that it runs only eagerly"
)


def advice(finding: Finding) -> str:
    """The advice for `finding`, naming its own code; "" for an unknown rule."""
    template = _ADVICE.get(finding.code)
    if finding.code in ("GM402", "GM403") and any(word in finding.source_line for word in _DEPRECATION_WORDS):
        template = _DEPRECATION_ADVICE
    if finding.code == "GM101" and finding.message.startswith(_BEFORE_GUARD_MESSAGE):
        template = _BEFORE_GUARD_ADVICE
    if finding.code == "GM604" and finding.gb_id == "GB0156":  # a str method of a str-Enum member
        template = _STR_ENUM_ADVICE
    if template is None:
        return ""
    return template.format(code=flagged_text(finding))


def flagged_text(finding: Finding) -> str:
    """The source the finding points at, or its first line followed by `...` when it spans several."""
    line = finding.source_line
    start = finding.location.column - 1
    if finding.end_location.row == finding.location.row:
        text = line[start:finding.end_location.column - 1]
    else:
        text = line[start:].rstrip() + " ..."
    text = text.strip()
    if len(text) > _MAX_SHOWN:
        call = _CALL.match(text)
        text = f"{call.group()}...)" if call else text[:_MAX_SHOWN].rstrip() + " ..."
    return text or "this code"
