"""`self.NAME.method(...)` and `NAME.method(...)` on a global in traced code, judged by what built the
object (GM640: `self.root = pathlib.Path(root)` in `__init__`, then `self.root.exists()`).

An object built outside the compiled region reaches Dynamo as a value it did not build: it inlines a
Python method of the object's standard-library class and breaks on a skipped function inside
(`Path.exists` reaches `os.stat`, GB0007), or refuses a method whose file it skips (GB0008);
Detection.held_method says which, from the measured table (vocabulary/skipped_methods.py). The
builders are known only to the scope solver, as for held context managers (held_contexts.py, whose
exclusions hold here too): a finding stands when every builder found is a standard-library class
whose method breaks with the same id; or a class of the tree whose one base outside it is such a class
and which does not define the method itself (`class Sampler(random.Random)`, then `self.rng.uniform()`:
GB0008, measured on a subclass, since Dynamo models a `random.Random` it is given but not a subclass's).
A call after an earlier break of a frame holding no tensor is never logged (tensorless_frames.py).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis.held_contexts import builders, holder_built_in_traced_code, rebuilt_by_callee
from graphmend_bot.analysis.tensorless_frames import skipped_silently
from graphmend_bot.rules import RULES

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import Program, TracedDraft, _TensorFlow

RULE = next(rule for rule in RULES if rule.detection.held_method is not None)
# `self.opt.step()` on a torch optimizer (GM655): judged by the same builders, reported under its own code.
TORCH_RULE = next(rule for rule in RULES if rule.detection.held_torch_method is not None)
# A callee a skipped frame calls is compiled as a frame of its own: torch's optimizer `step` names
# `torch` and breaks there on `graph_break()`, logged at the call (tests/test_tensorless_frames.py).
COMPILED_CALLEE_IDS = frozenset({"GB0025"})


def held_method_calls(program: Program, solver: _TensorFlow) -> list[TracedDraft]:
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    traced = program.traced_functions()
    for fid in program.traced_in_order():
        function = program.function(fid)
        if fid[0] in program.dependency_modules or function.disabled or not function.held_method_drafts:
            continue
        rebound = {f"self.{name}" for name, _ in function.attribute_writes}
        for held, method, draft, breaks_before in function.held_method_drafts:
            if held in rebound:
                continue  # built again in the traced frame
            if held.startswith("self.") and (
                holder_built_in_traced_code(program, fid)
                or rebuilt_by_callee(program, traced, fid, held[len("self.") :], draft.row)
            ):
                continue
            built = builders(program, fid[0], function.class_qualname, held)
            breaks = {_break(program, fid[0], constructor, method) for constructor in built}
            code = RULE.code
            if built and breaks == {None}:
                breaks = {_torch_break(constructor, method) for constructor in built}
                code = TORCH_RULE.code
            if len(breaks) == 1 and (found_break := breaks.pop()) is not None:
                message, gb_id = found_break
                if gb_id not in COMPILED_CALLEE_IDS and skipped_silently(program, solver, fid, breaks_before):
                    continue  # in a frame Dynamo skips after an earlier break
                found.append(
                    TracedDraft(
                        program.modules[fid[0]], function, replace(draft, code=code, message=message, gb_id=gb_id)
                    )
                )
    return found


def _break(program: Program, module: str, constructor: str, method: str) -> tuple[str, str] | None:
    """The message and id Dynamo breaks with on `constructor(...).method(...)` held from outside:
    `constructor` a standard-library class, or a class of the tree that inherits `method` from one."""
    cls = program.resolve_class(module, constructor)
    if cls is not None:
        return _inherited_break(program, cls, method)
    if constructor.partition(".")[0] not in sys.stdlib_module_names:
        return None
    return _rule_break(f"{constructor}.{method}", inherited=False)


def _inherited_break(program: Program, cls: tuple[str, str], method: str) -> tuple[str, str] | None:
    """`method` of a class of the tree that neither it nor an in-tree base defines, whose one base
    outside the tree is a standard-library class (`class Sampler(random.Random)`): that class's."""
    if program.class_method(*cls, method) is not None:
        return None
    outside = {
        qualified
        for module, qualname in (cls, *program.hierarchy.ancestors(cls))
        for base in program.modules[module].classes[qualname].bases
        if program.resolve_class(module, base) is None
        and (qualified := _imported(program, module, base)) is not None
    }
    if len(outside) != 1:
        return None  # no base outside the tree, or several: which one answers is not known here
    base = outside.pop()
    if base.partition(".")[0] not in sys.stdlib_module_names:
        return None
    return _rule_break(f"{base}.{method}", inherited=True)


def _imported(program: Program, module: str, written: str) -> str | None:
    """A base class as written (`random.Random`, `Random`), qualified through the module's imports."""
    head, _, rest = written.partition(".")
    imported = program.modules[module].imports.get(head)
    if imported is None:
        return None
    return f"{imported}.{rest}" if rest else imported


def _torch_break(constructor: str, method: str) -> tuple[str, str] | None:
    hook = TORCH_RULE.detection.held_torch_method
    return hook(TORCH_RULE, constructor, method) if hook is not None else None


def _rule_break(name: str, inherited: bool) -> tuple[str, str] | None:
    hook = RULE.detection.held_method
    return hook(RULE, name, inherited) if hook is not None else None
