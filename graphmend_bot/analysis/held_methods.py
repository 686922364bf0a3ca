"""`self.NAME.method(...)` and `NAME.method(...)` on a global in traced code, judged by what built the
object (GM640: `self.root = pathlib.Path(root)` in `__init__`, then `self.root.exists()`).

An object built outside the compiled region reaches Dynamo as a value it did not build: it inlines a
Python method of the object's standard-library class and breaks on a skipped function inside
(`Path.exists` reaches `os.stat`, GB0007), or refuses a method whose file it skips (GB0008);
Detection.held_method says which, from the measured table (vocabulary/skipped_methods.py). The
builders are known only to the scope solver, as for held context managers (held_contexts.py, whose
exclusions hold here too): a finding stands when every builder found is a standard-library class
whose method breaks with the same id.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis.held_contexts import builders, holder_built_in_traced_code, rebuilt_by_callee
from graphmend_bot.rules import RULES

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import Program, TracedDraft

RULE = next(rule for rule in RULES if rule.detection.held_method is not None)
_BREAK = RULE.detection.held_method


def held_method_calls(program: Program) -> list[TracedDraft]:
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    traced = program.traced_functions()
    for fid in program.traced_in_order():
        function = program.function(fid)
        if fid[0] in program.dependency_modules or function.disabled or not function.held_method_drafts:
            continue
        rebound = {f"self.{name}" for name, _ in function.attribute_writes}
        for held, method, draft in function.held_method_drafts:
            if held in rebound:
                continue  # built again in the traced frame
            if held.startswith("self.") and (
                holder_built_in_traced_code(program, traced, fid)
                or rebuilt_by_callee(program, traced, fid, held[len("self.") :], draft.row)
            ):
                continue
            built = builders(program, fid[0], function.class_qualname, held)
            breaks = {_break(program, fid[0], constructor, method) for constructor in built}
            if len(breaks) == 1 and (found_break := breaks.pop()) is not None:
                message, gb_id = found_break
                found.append(
                    TracedDraft(
                        program.modules[fid[0]], function, replace(draft, message=message, gb_id=gb_id)
                    )
                )
    return found


def _break(program: Program, module: str, constructor: str, method: str) -> tuple[str, str] | None:
    """The message and id Dynamo breaks with on `constructor(...).method(...)` held from outside,
    when `constructor` is a standard-library class (not one the tree defines under that name)."""
    if _BREAK is None or program.resolve_class(module, constructor) is not None:
        return None
    if constructor.partition(".")[0] not in sys.stdlib_module_names:
        return None
    return _BREAK(RULE, f"{constructor}.{method}")
