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
from collections.abc import Callable

# Dynamo calls a function with one of these eagerly and never traces its frame (GM620 reports the calls).
DISABLE_DECORATORS = frozenset({"torch.compiler.disable", "torch._dynamo.disable"})
# `@torch._disable_dynamo` (torch's own decorator, `recursive=False` or not): its wrapper is on Dynamo's
# skip list, so a call breaks as a skipped function (GB0007; GB0008 for a method through `self`),
# measured on torch 2.13 (tests/test_skipped_decorators.py). FunctionSummary.disabled says "skipped".
SKIPPED_DECORATORS = frozenset({"torch._disable_dynamo"})
# numba's compilers: the decorated name is a numba dispatcher, a compiled object Dynamo cannot call into
# ("Unsupported method call" of `CPUDispatcher.__call__`, GB0156) and never traces the body of
# (tests/test_numba_calls.py). FunctionSummary.disabled says "numba".
NUMBA_DECORATORS = frozenset({
    "numba.jit", "numba.njit", "numba.generated_jit", "numba.vectorize", "numba.guvectorize", "numba.cfunc",
    "numba.stencil", "numba.core.decorators.jit", "numba.core.decorators.njit", "numba.cuda.jit",
})  # fmt: skip
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


def rebound_functions(tree: ast.Module, resolve: Callable[[ast.expr], str | None]) -> dict[str, str]:
    """Module-level functions rebound to their disabled selves after their `def`, the decorator
    spelled as a call (`def solve(...): ...` then `solve = torch.compiler.disable(solve)`): name ->
    "recursive" or "frame", as FunctionSummary.disabled says it. Callers then call the wrapper, as
    for `@torch.compiler.disable` (measured: GB0098 at the call, tests/test_disabled_values.py)."""
    defined: set[str] = set()
    rebound: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(statement.name)
            rebound.pop(statement.name, None)  # a new def: the name holds an undisabled function again
            continue
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Name)
            and target.id in defined
        ):
            continue
        value = statement.value
        callee = resolve(value.func) if isinstance(value, ast.Call) else None
        if (
            isinstance(value, ast.Call)
            and callee is not None
            and value.args
            and isinstance(value.args[0], ast.Name)
            and value.args[0].id == target.id
            and (how := disabling(builder_name(value, callee)))
        ):
            rebound[target.id] = how
        else:
            rebound.pop(target.id, None)
    return rebound
