"""Values `torch.compiler.disable(f)` returns, held by name (GM620).

Libraries wrap a function they want kept out of the graph once, as a value:
`no_compile_eigh = torch.compiler.disable(torch.linalg.eigh)` at module level (heavyball), or
`self.solve = torch.compiler.disable(torch.linalg.solve)` in `__init__`. What built such a name is
recorded with the rest of the module's and class's builders (summary.py); this module names the
builder so the form Dynamo treats differently stays apart: one built with `recursive=False` is
`torch.compiler.disable(recursive=False)`. Measured on torch 2.13
(tests/coverage_probes/gb0098_disabled_value_call.py): a call of the value from traced code breaks
with GB0098 ("Skip calling"), with GB0099 ("Skip inlining") for the `recursive=False` form.
"""

from __future__ import annotations

import ast

# Dynamo calls a function with one of these eagerly and never traces its frame (GM620 reports the calls).
DISABLE_DECORATORS = frozenset({"torch.compiler.disable", "torch._dynamo.disable"})
_FRAME_ONLY = "(recursive=False)"


def builder_name(call: ast.Call, callee: str) -> str:
    """`callee`, or for a disable call given `recursive=False` `torch.compiler.disable(recursive=False)`."""
    if callee in DISABLE_DECORATORS and any(
        keyword.arg == "recursive"
        and isinstance(keyword.value, ast.Constant)
        and keyword.value.value is False
        for keyword in call.keywords
    ):
        return callee + _FRAME_ONLY
    return callee


def disabling(builder: str) -> str:
    """How a value built by `builder` is disabled, as FunctionSummary.disabled says it: "recursive",
    "frame" (`recursive=False`), or "" when `builder` is no disable call."""
    if builder in DISABLE_DECORATORS:
        return "recursive"
    if builder.endswith(_FRAME_ONLY) and builder[: -len(_FRAME_ONLY)] in DISABLE_DECORATORS:
        return "frame"
    return ""
