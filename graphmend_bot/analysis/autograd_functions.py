"""autograd.Function classes whose `apply` Dynamo refuses, and the traced calls of it.

Measured on torch 2.13 (`AutogradFunctionVariable.call_apply`, tests/coverage_probes/gb0144_*,
gb0145_*, gb0085_*): `Fn.apply(...)` breaks when the class binds its own `vjp` (GB0145, the old
alias `vjp = backward` included) or `jvp` (GB0144), checked in that order and only when grad is
enabled and an input requires grad (Dynamo then traces forward and backward into one graph); and
when its `forward` is bound to something that is no function (`forward = staticmethod(partial(...))`:
GB0085 without grad, GB0346 with it), which breaks in every mode and so is the id named first. The summary marks such classes (`ClassSummary.apply_breaks`,
judged from the class body, so a subclass of a marked in-tree class is not marked); the traversal
drafts each call of a `.apply` attribute, and `untraceable_applies` keeps those of traced
functions whose owner resolves to a marked class, in the module or imported from another.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis import modes
from graphmend_bot.vocabulary.mode_names import GRAD_ENABLED

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import Program, TracedDraft

Resolve = Callable[[ast.expr], "str | None"]
AUTOGRAD_FUNCTIONS = frozenset({
    "torch.autograd.Function", "torch.autograd.function.Function", "torch.autograd.function.InplaceFunction",
})
CUSTOM_VJP = "GB0145"  # "Unsupported custom vjp"
CUSTOM_JVP = "GB0144"  # "Unsupported custom jvp"
FORWARD_NOT_FUNCTION = "GB0085"  # "Non-function or method in subclass of torch.autograd.Function"
# What each id's finding says, and in which mode Dynamo breaks with it.
WHY = {
    CUSTOM_VJP: "`{cls}` defines its own `vjp`, which Dynamo cannot trace: applying it breaks the graph",
    CUSTOM_JVP: "`{cls}` defines a custom `jvp`, which Dynamo cannot trace: applying it breaks the graph",
    FORWARD_NOT_FUNCTION: "`{cls}.forward` is not a function (Dynamo traces only a `def`): applying it breaks the graph",
}
MODES = {CUSTOM_VJP: [GRAD_ENABLED], CUSTOM_JVP: [GRAD_ENABLED], FORWARD_NOT_FUNCTION: []}


def apply_breaks(node: ast.ClassDef, resolve: Resolve) -> str:
    """The id Dynamo breaks `Cls.apply(...)` with, for a subclass of torch.autograd.Function
    whose body binds `vjp` or `jvp`, or binds `forward` other than by `def`; "" otherwise."""
    if not any(resolve(base) in AUTOGRAD_FUNCTIONS for base in node.bases):
        return ""
    bound = _bound_names(node)
    if bound.get("forward") == "value":  # breaks in every mode (with grad after the vjp/jvp checks)
        return FORWARD_NOT_FUNCTION
    if "vjp" in bound:
        return CUSTOM_VJP
    if "jvp" in bound:
        return CUSTOM_JVP
    return ""


def _bound_names(node: ast.ClassDef) -> dict[str, str]:
    """Names the class body binds: "def" by a function statement, "value" by an assignment."""
    bound: dict[str, str] = {}
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound[statement.name] = "def"
        elif isinstance(statement, ast.Assign):
            bound.update((target.id, "value") for target in statement.targets if isinstance(target, ast.Name))
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None and isinstance(statement.target, ast.Name):
            bound[statement.target.id] = "value"
    return bound


def untraceable_applies(program: Program) -> list[TracedDraft]:
    """The drafts of traced `Fn.apply(...)` calls on a class `apply_breaks` marked, each with its
    class's id and message."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not function.apply_drafts or fid[0] in program.dependency_modules:
            continue
        for site, draft in function.apply_drafts:
            owner = function.calls[site].ref.partition(":")[2].rpartition(".")[0]
            named = program._resolve_dotted(fid[0], owner)
            if named is None or named[0] != "class":
                continue
            gb_id = program.modules[named[1]].classes[named[2]].apply_breaks
            if gb_id:  # the draft's message names the modes of its line; the class's own one joins them
                message = modes.named(WHY[gb_id].format(cls=owner), [*modes.modes_named(draft.message), *MODES[gb_id]])
                found.append(TracedDraft(program.modules[fid[0]], function, replace(draft, gb_id=gb_id, message=message), draft))
    return found
