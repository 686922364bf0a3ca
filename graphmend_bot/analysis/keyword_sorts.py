"""GM608 at calls whose keyword arguments a dependency sorts: `sorted(kwargs.items())` breaks
when a value is not a Python constant (the facts: analysis/keyword_arguments.py).

Measured on torch 2.13 (tests/fixtures/dependency, fakeproject/keywords.py): a call that passes
a tensor, the instance (`kernel=self`) or a parameter that receives one into a dependency
function that sorts its keyword items breaks, reported at the call line; so does a call into an
in-tree function that forwards such a parameter by keyword to one (gpytorch's
`LazyEvaluatedKernelTensor(..., kernel=self)`, whose `__init__` passes `kernel=kernel` to
`LinearOperator.__init__`), at both lines, when it is a class's construction. A size of an
argument tensor (`diag_shape=n`) breaks once Dynamo traces sizes as SymInts (a recompile for
another size, dynamic=True), and is reported as such. A sort inside the tree itself is reported by
Dynamo at the `sorted` line, which this module does not judge.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis.keyword_arguments import INSTANCE, SIZE
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

Targets = Mapping[tuple["FunctionId", int], list["FunctionId"]]
Holds = Callable[["FunctionId", Kind], bool]
Callers = dict["FunctionId", list[tuple["FunctionId", int]]]  # callee -> (caller, call site index)
_EXTRA = ""  # the keywords a function's `**kwargs` collects, in `sorting` below


def unsortable_keyword_calls(program: Program, targets: Targets, holds: Holds) -> list[TracedDraft]:
    """A finding at each call in the tree that passes a value that is not a Python constant by a
    keyword that a dependency function sorts, directly or through in-tree forwarding."""
    callers: Callers = {}
    for (caller, site), callees in targets.items():
        for callee in callees:
            callers.setdefault(callee, []).append((caller, site))
    sorting = _sorting_keywords(program, callers)
    if not sorting:
        return []
    from graphmend_bot.analysis.scope import TracedDraft

    objects = _ObjectParameters(program, callers, holds)
    found: list[TracedDraft] = []
    for caller in sorted({caller for caller, _ in targets if caller[0] not in program.dependency_modules}):
        function = program.function(caller)
        for site, draft in function.dependency_call_drafts:
            call = function.calls[site]
            if not call.kwargs:
                continue
            names = dict(function.passed_names.get(site, ()))
            for callee in targets.get((caller, site), ()):
                if not _reported_here(program, callee, call.ref):
                    continue
                hit = next((
                    (keyword, sorting[callee][slot], _what(holds(caller, kind), names.get(keyword)))
                    for keyword, kind in call.kwargs
                    if (slot := _slot(program, callee, keyword, sorting)) is not None
                    and (holds(caller, kind) or objects.holds(caller, names.get(keyword)))
                ), None)
                if hit is None:
                    continue
                keyword, origin, what = hit
                sorter = program.modules[origin[0]]
                message = (
                    f"breaks inside {origin[0]}.{origin[1]} ({sorter.path}:"
                    f"{program.function(origin).sorts_keyword_items}): it sorts its keyword arguments, and "
                    f"`{keyword}=` here is {what}, not a Python constant Dynamo can sort"
                )
                found.append(TracedDraft(program.modules[caller[0]], function, replace(draft, message=message, gb_id="GB0207")))
                break
    return found


def _what(tensor: bool, name: str | None) -> str:
    if tensor:
        return "a tensor"
    if name == INSTANCE:
        return "an object (the instance)"
    if name == SIZE:
        return "a tensor size (a SymInt once Dynamo recompiles for another size, automatic dynamic shapes)"
    return "a parameter a caller gives an object, a tensor or a tensor size"


def _reported_here(program: Program, callee: FunctionId, ref: str) -> bool:
    """Dynamo's innermost frame in the tree is this call when the callee lies in the dependency,
    and also when it is an in-tree class's construction forwarding into one (measured); an
    in-tree function that is not a constructor reports only its own forwarding call."""
    if callee[0] in program.dependency_modules:
        return True
    return program.function(callee).name == "__init__" and not ref.startswith("super:")


def _slot(program: Program, callee: FunctionId, keyword: str, sorting: dict[FunctionId, dict[str, FunctionId]]
          ) -> str | None:
    """Where `keyword` lands in `callee` when it lands in a sorted one: its parameter or `**`."""
    reached = sorting.get(callee)
    if reached is None:
        return None
    slot = keyword if keyword in program.function(callee).params else _EXTRA
    return slot if slot in reached else None


def _sorting_keywords(program: Program, callers: Callers) -> dict[FunctionId, dict[str, FunctionId]]:
    """Per traced function, the keywords whose values reach a dependency's sort of keyword items
    (`**kwargs` as _EXTRA, a parameter by name when forwarded by keyword), with the sorting
    function. Walked back from the sorts through the calls that forward a parameter."""
    sorting: dict[FunctionId, dict[str, FunctionId]] = {}
    for callee in callers:
        if callee[0] in program.dependency_modules and program.function(callee).sorts_keyword_items:
            sorting[callee] = {_EXTRA: callee}
    queue = deque(sorted(sorting))
    while queue:
        callee = queue.popleft()
        for caller, site in callers.get(callee, ()):
            for keyword, name in program.function(caller).passed_names.get(site, ()):
                slot = _slot(program, callee, keyword, sorting)
                if slot is not None and name not in (INSTANCE, SIZE) and name not in sorting.get(caller, {}):
                    sorting.setdefault(caller, {})[name] = sorting[callee][slot]
                    queue.append(caller)
    return sorting


class _ObjectParameters:
    """Whether a name a call passes is not a Python constant: the instance, or a parameter that
    some traced call passes a tensor, the instance or such a parameter (asked on demand)."""

    def __init__(self, program: Program, callers: Callers, holds: Holds) -> None:
        self.program = program
        self.holds_kind = holds
        self.callers = callers
        self._known: dict[tuple[FunctionId, str], bool] = {}

    def holds(self, fid: FunctionId, name: str | None) -> bool:
        if name is None:
            return False
        if name in (INSTANCE, SIZE):
            return True
        key = (fid, name)
        if key not in self._known:
            self._known[key] = False  # a cycle of forwarding adds nothing
            self._known[key] = self.holds_kind(fid, Kind.of_param(name)) or self._passed(fid, name)
        return self._known[key]

    def _passed(self, fid: FunctionId, param: str) -> bool:
        for caller, site in self.callers.get(fid, ()):
            function = self.program.function(caller)
            call = function.calls[site]
            kind = dict(call.kwargs).get(param)
            passed = dict(function.passed_names.get(site, ())).get(param)
            if kind is not None and (self.holds_kind(caller, kind) or self.holds(caller, passed)):
                return True
        return False
