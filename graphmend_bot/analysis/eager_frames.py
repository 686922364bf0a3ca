"""What Dynamo traces on its own when a frame it gave up on runs eagerly.

A frame Dynamo cannot resume (GM605, GM609, a held object's break: held_objects.py) runs eagerly
from the break on, the whole frame for "Skipping the function and falling back to eager". The
functions it then calls are frames of their own, which Dynamo traces one by one. Measured on
torch 2.13 (tests/fixtures/rules/GM610_metaclass_call_in_eager_frame.py; torchsde's
`better_abc.py:34`, reached from `sdeint`, which GM605 at `sdeint.py:110` makes eager): building an
instance of a class whose metaclass defines `__call__` runs that `__call__` as a frame, and its
`super().__call__(...)` / `type.__call__(cls, ...)` breaks ("`super().__call__` is not a function
or method attribute"). Built from traced code that is not eager, the same class does not break.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft


def metaclass_calls(
    program: Program, eager_rows: dict[FunctionId, int], targets: dict[tuple[FunctionId, int], list[FunctionId]],
) -> list[TracedDraft]:
    """The `super().__call__` drafts of the in-tree metaclasses of the classes eager frames build,
    at or after the row from which each runs eagerly."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    seen: set[FunctionId] = set()
    for fid, first_row in sorted(eager_rows.items()):
        for index, site in enumerate(program.function(fid).calls):
            if site.row < first_row:
                continue
            for init in targets.get((fid, index), ()):
                for call in _metaclass_calls(program, init):
                    if call not in seen and call[0] not in program.dependency_modules:
                        seen.add(call)
                        function = program.function(call)
                        found.extend(TracedDraft(program.modules[call[0]], function, d) for d in function.metaclass_call_drafts)
    return found


def _metaclass_calls(program: Program, init: FunctionId) -> list[FunctionId]:
    """The `__call__` of each in-tree metaclass of the class whose `__init__` this is, or of its bases."""
    function = program.function(init)
    if function.name != "__init__" or function.class_qualname is None:
        return []
    cls = (init[0], function.class_qualname)
    calls: list[FunctionId] = []
    for mod, name in (cls, *program.hierarchy.ancestors(cls)):
        metaclass = program.modules[mod].classes[name].metaclass
        found = program.resolve_class(mod, metaclass) if metaclass else None
        call = program.class_method(*found, "__call__") if found else None
        if call is not None and call not in calls:
            calls.append(call)
    return calls
