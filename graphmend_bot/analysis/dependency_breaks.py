"""GM608: calls from the checked tree into a configured dependency that breaks inside.

A dependency's findings are never reported themselves: Dynamo's innermost frame in the checked
tree is the call into the package, and that line is where the break is reported.

Some break only by what the call passes (`given`): torch_complex's `matmul(a, b)` runs `a @ b`
under `isinstance(a, ComplexTensor) and isinstance(b, ComplexTensor)`, which Dynamo cannot trace
(GB0059), while its arm for a tensor and an object traces (tests/test_dependency_breaks.py, complex).
Such a draft names its parameters in `suppressed_if`; it stands at a call of the function itself
that passes each of them an argument the solve proves no tensor (no caller inside the package
inherits it: what they pass is not known here).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

Targets = Mapping[tuple["FunctionId", int], list["FunctionId"]]
# (caller, call site, callee, parameter): whether the call passes the parameter an argument proven no tensor
PassesObject = Callable[["FunctionId", int, "FunctionId", str], bool]


def calls_breaking_inside(program: Program, targets: Targets, inner: list[TracedDraft],
                          given: Sequence[TracedDraft] = (), passes_object: PassesObject | None = None) -> list[TracedDraft]:
    """A finding at each call site in the tree whose callee lies in a dependency and has a
    finding there, directly or through what it calls within the dependency; or a `given` draft
    its arguments meet (`passes_object`: whether the call passes that parameter no tensor)."""
    from graphmend_bot.analysis.scope import TracedDraft

    cause = _causes(program.dependency_modules, targets, inner)
    by_arguments: dict[FunctionId, list[TracedDraft]] = {}
    for traced in given:
        by_arguments.setdefault((traced.module.module, traced.function.qualname), []).append(traced)
    found: list[TracedDraft] = []
    reported: set[tuple[FunctionId, int, int]] = set()  # one finding where sites share a start
    for caller in sorted({caller for caller, _ in targets if caller[0] not in program.dependency_modules}):
        function = program.function(caller)
        for site, draft in function.dependency_call_drafts:
            callees = targets.get((caller, site), ())
            breaking = next((callee for callee in callees if callee in cause), None)
            why = cause[breaking] if breaking is not None else next((
                traced for callee in callees for traced in by_arguments.get(callee, ())
                if passes_object is not None and all(passes_object(caller, site, callee, param)
                                                     for param in traced.draft.suppressed_if.params)), None)
            if why is None or (caller, draft.row, draft.column) in reported:
                continue
            reported.add((caller, draft.row, draft.column))
            message = (
                f"breaks inside {why.module.module}.{why.function.qualname} "
                f"({why.module.path}:{why.draft.row}): {why.draft.message}"
            )
            completed = replace(draft, message=message, gb_id=why.draft.gb_id)
            found.append(TracedDraft(program.modules[caller[0]], function, completed))
    return found


def _causes(dependencies: frozenset[str], targets: Targets, inner: list[TracedDraft]) -> dict[FunctionId, TracedDraft]:
    """Each dependency function that breaks, with the first finding that makes it break: its own,
    or the one of a function it calls within the dependency (callers inherit it, breadth first,
    so the finding quoted is the nearest). Only a break on every call is quoted: one only on an
    error or misconfiguration branch is not the one the call meets."""
    callers: dict[FunctionId, set[FunctionId]] = {}
    for (caller, _), callees in targets.items():
        if caller[0] in dependencies:
            for callee in callees:
                callers.setdefault(callee, set()).add(caller)
    cause: dict[FunctionId, TracedDraft] = {}
    # Only breaks every call meets: one only on an error, warning or misconfiguration branch inside
    # the package is on no call the project makes as meant (sb3_contrib's calls reached
    # stable_baselines3's `if smallest_dimension == 1: warnings.warn(...)`, where Dynamo never broke).
    _inherit(cause, callers, [traced for traced in inner if not traced.draft.rare])
    return cause


def _inherit(cause: dict[FunctionId, TracedDraft], callers: Mapping[FunctionId, set[FunctionId]],
             drafts: list[TracedDraft]) -> None:
    """Gives each function without a cause yet the nearest of `drafts` it reaches."""
    found: dict[FunctionId, TracedDraft] = {}
    for traced in drafts:
        fid = (traced.module.module, traced.function.qualname)
        if fid not in cause:
            found.setdefault(fid, traced)
    cause.update(found)
    queue = deque(sorted(found))
    while queue:
        callee = queue.popleft()
        for caller in sorted(callers.get(callee, ())):
            if caller not in cause:
                cause[caller] = cause[callee]
                queue.append(caller)
