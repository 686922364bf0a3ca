"""GM608 at the construction of an in-tree class whose `super().__init__` breaks inside a
dependency: Dynamo reports both lines.

Measured on torch 2.13 (tests/fixtures/dependency: `Wrapped(y)` in fakeproject/model.py,
`Evaluated(y, kernel=self)` in keywords.py; gpytorch's kernels/kernel.py:531): the constructor
call is one break ("Encountered graph break when attempting to trace CALL"), the base's
`__init__` call inside is another. A class whose own `__init__` or in-tree base breaks is reported
only there, and an nn.Module's construction was not measured (GM606 covers its `super().__init__`).
Breaks of a keyword sort depend on what each construction passes: keyword_sorts.py judges those.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

Targets = Mapping[tuple["FunctionId", int], list["FunctionId"]]


def constructions_breaking_inside(program: Program, targets: Targets, found: list[TracedDraft]) -> list[TracedDraft]:
    """A finding at each traced construction of a plain in-tree class whose `super().__init__`
    has a GM608 finding in `found`."""
    from graphmend_bot.analysis.scope import TracedDraft

    breaking = _breaking_inits(program, found)
    if not breaking:
        return []
    constructions: list[TracedDraft] = []
    for (caller, site), callees in sorted(targets.items()):
        if caller[0] in program.dependency_modules:
            continue
        init = next((callee for callee in callees if callee in breaking), None)
        function = program.function(caller)
        if init is None or function.calls[site].ref.startswith("super:"):
            continue
        for draft_site, draft in function.dependency_call_drafts:
            if draft_site == site:
                inner = breaking[init].draft
                message = f"constructing {init[1].rpartition('.')[0]} breaks: its `super().__init__` {inner.message}"
                constructions.append(TracedDraft(program.modules[caller[0]], function, replace(draft, message=message, gb_id=inner.gb_id)))
                break
    return constructions


def _breaking_inits(program: Program, found: list[TracedDraft]) -> dict[FunctionId, TracedDraft]:
    """The `__init__`s of plain in-tree classes with a GM608 finding at a `super().__init__`
    (`found` holds only drafts of dependency calls, which GM608's hook alone records)."""
    breaking: dict[FunctionId, TracedDraft] = {}
    for traced in found:
        function = traced.function
        if function.name != "__init__" or function.class_qualname is None:
            continue
        fid = (traced.module.module, function.qualname)
        if fid in breaking or program.is_module_class(fid[0], function.class_qualname):
            continue
        at_super = any(
            function.calls[site].ref.partition("@")[0] == "super:__init__" and (draft.row, draft.column) == (traced.draft.row, traced.draft.column)
            for site, draft in function.dependency_call_drafts
        )
        if at_super:
            breaking[fid] = traced
    return breaking
