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
Also measured: a `forward` that sets `ctx._materialize_non_diff_grads` breaks `apply` with grad
(GB0347, tests/coverage_probes/gb0347_*), and `Fn.helper(...)` on a method the class defines with
neither `@staticmethod` nor `@classmethod` breaks in every mode (GB0140, gb0140_*): the traversal
drafts calls of a method on a capitalized name too, and the summary lists such methods
(`ClassSummary.unbound_methods`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis import modes
from graphmend_bot.vocabulary.dotted_names import dotted_name
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
# "autograd.Function.apply: _materialize_non_diff_grads mutation": forward sets that flag on its ctx
MATERIALIZE_FLAG = "GB0347"
UNBOUND_METHOD = "GB0140"  # "Unsupported autograd.Function method": `Fn.helper(...)` on a plain `def`
# What each id's finding says, and in which mode Dynamo breaks with it.
WHY = {
    CUSTOM_VJP: "`{cls}` defines its own `vjp`, which Dynamo cannot trace: applying it breaks the graph",
    CUSTOM_JVP: "`{cls}` defines a custom `jvp`, which Dynamo cannot trace: applying it breaks the graph",
    FORWARD_NOT_FUNCTION: "`{cls}.forward` is not a function (Dynamo traces only a `def`): applying it breaks the graph",
    MATERIALIZE_FLAG: "`{cls}.forward` sets `ctx._materialize_non_diff_grads`, which Dynamo cannot trace: applying "
                      "it breaks the graph",
    UNBOUND_METHOD: "`{cls}.{method}` is neither a static nor a class method: Dynamo cannot call it on the "
                    "autograd.Function class, and breaks the graph",
}
MODES = {CUSTOM_VJP: [GRAD_ENABLED], CUSTOM_JVP: [GRAD_ENABLED], FORWARD_NOT_FUNCTION: [],
         MATERIALIZE_FLAG: [GRAD_ENABLED], UNBOUND_METHOD: []}
# Methods Dynamo dispatches by name before looking at how the class binds them.
_DISPATCHED = frozenset({"apply", "backward"})


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
    if any(_sets_materialize_flag(statement) for statement in node.body):  # checked after tracing forward
        return MATERIALIZE_FLAG
    return ""


def _sets_materialize_flag(statement: ast.stmt) -> bool:
    """A `def forward(ctx, ...)` that assigns `ctx._materialize_non_diff_grads` (Dynamo breaks at
    `apply` when forward's trace stored it: with grad only; without, it inlines forward and traces)."""
    if not (isinstance(statement, ast.FunctionDef) and statement.name == "forward" and statement.args.args):
        return False
    ctx = statement.args.args[0].arg
    return any(
        isinstance(target, ast.Attribute) and target.attr == "_materialize_non_diff_grads"
        and isinstance(target.value, ast.Name) and target.value.id == ctx
        for node in ast.walk(statement) if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
    )


def unbound_methods(node: ast.ClassDef, resolve: Resolve) -> tuple[str, ...]:
    """For a subclass of torch.autograd.Function, the methods its body defines with neither
    `@staticmethod` nor `@classmethod` (but `apply`, `backward` and dunders, which Dynamo
    dispatches itself): `Cls.NAME(...)` on one breaks in every mode (GB0140, measured; on a
    static or class method it traces)."""
    if not any(resolve(base) in AUTOGRAD_FUNCTIONS for base in node.bases):
        return ()
    return tuple(
        statement.name for statement in node.body
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        and statement.name not in _DISPATCHED and not statement.name.startswith("__")
        and not any(dotted_name(d) in ("staticmethod", "classmethod") for d in statement.decorator_list)
    )


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
            summary = program.modules[named[1]].classes[named[2]]
            method = function.calls[site].ref.rpartition(".")[2]
            gb_id = summary.apply_breaks if method == "apply" else UNBOUND_METHOD * (method in summary.unbound_methods)
            if gb_id:  # the draft's message names the modes of its line; the class's own one joins them
                why = WHY[gb_id].format(cls=owner, method=method)
                message = modes.named(why, [*modes.modes_named(draft.message), *MODES[gb_id]])
                found.append(TracedDraft(program.modules[fid[0]], function, replace(draft, gb_id=gb_id, message=message), draft))
    return found
