"""Breaks Dynamo cannot resume from because the frame holds an object it built with bound methods.

Measured on torch 2.13 (tests/fixtures/rules/flow_held_objects.py; torchsde's `check_contract`):
after `sde = ForwardSDE(sde)` in traced code, where `ForwardSDE.__init__` stores bound methods of
the new object in attributes (`self.g_prod = {...: self.g_prod_diagonal}.get(...)`), any later
break in the same frame cannot be resumed from: Dynamo would have to rebuild the object, and a
bound method has no source to rebuild it from. So
- a later call whose callee breaks is itself a break ("cannot resume", GM605 at the call:
  `sdeint.py:269`, `bm = BrownianInterval(...)`), and
- the frame then runs eagerly, so the object's construction runs eagerly too, and Dynamo traces
  its `__init__` as a frame of its own, where an nn.Module's `super().__init__` meets an
  uninitialized module (GM606 up the in-tree bases: `base_sde.py:45`, `:32`).
Neither happens when the object holds no bound method, or when the break comes before it is built.
The same holds for an object whose `__init__` stores a function of the tree it got as a parameter's
default (`self.reader = reader` for `reader=read_image`: "sourceless variable UserFunctionVariable",
tests/fixtures/rules/flow_held_objects.py), not when the caller passes the function, when
`__init__` stores a global by name, nor for a default that is a torch function or a class (measured).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmend_bot.analysis import bound_methods, held_functions

if TYPE_CHECKING:
    from graphmend_bot.analysis.callee_modes import CalleeModes
    from graphmend_bot.analysis.model import CallSite
    from graphmend_bot.analysis.scope import BreakingFunctions, FunctionId, Program, TracedDraft


def held_object_breaks(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]],
    breaking: BreakingFunctions, standing: list[TracedDraft], in_modes: CalleeModes | None = None,
) -> tuple[list[TracedDraft], set[FunctionId], dict[FunctionId, int]]:
    """The calls that break because a held object cannot be rebuilt, the `__init__`s of the
    held objects whose frame then runs eagerly (GM606 starts from those), and the row from which
    each such frame runs eagerly. `in_modes`: names the mode a call breaks in when its callee
    breaks in one only (callee_modes.py)."""
    from graphmend_bot.analysis.scope import TracedDraft

    rows_by_function: dict[FunctionId, list[int]] = {}
    reported: set[tuple[FunctionId, str, int, int]] = set()  # GM605 may stand at the call already
    for traced_draft in standing:
        fid = (traced_draft.module.module, traced_draft.function.qualname)
        rows_by_function.setdefault(fid, []).append(traced_draft.draft.row)
        reported.add((fid, traced_draft.draft.code, traced_draft.draft.row, traced_draft.draft.column))
    found: list[TracedDraft] = []
    eager_inits: set[FunctionId] = set()
    eager_rows: dict[FunctionId, int] = {}
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not function.local_objects or fid[0] in program.dependency_modules:
            continue
        holders = {
            site: inits for site, _ in function.local_objects
            if (inits := [init for init in targets.get((fid, site), ())
                           if holds_unrebuildable(program, init, function.calls[site])])
        }
        if not holders:
            continue
        broken_after: set[int] = set()  # constructor sites with a break after them in this frame
        for alive, site, draft in function.held_object_drafts:
            held = [ctor for ctor in alive if ctor in holders]
            if held and any(callee in breaking for callee in targets.get((fid, site), ())):
                if (fid, draft.code, draft.row, draft.column) not in reported:
                    shown = in_modes.named(draft, targets.get((fid, site), ())) if in_modes is not None else draft
                    found.append(TracedDraft(program.modules[fid[0]], function, shown, draft))
                broken_after.update(held)
                eager_rows[fid] = min(draft.row, eager_rows.get(fid, draft.row))
        for site, row in function.local_objects:
            if site in holders and any(later > row for later in rows_by_function.get(fid, ())):
                broken_after.add(site)
        for site in broken_after:
            eager_inits.update(holders[site])
    return found, eager_inits, eager_rows


def holds_unrebuildable(program: Program, init: FunctionId, site: CallSite) -> bool:
    """Whether the class whose `__init__` this is (or an in-tree base) keeps a bound method of its
    own in an attribute, or a function of the tree an `__init__` got as a parameter's default that
    the constructor call `site` does not pass."""
    function = program.function(init)
    if function.name != "__init__" or function.class_qualname is None:
        return False
    cls = (init[0], function.class_qualname)
    chain = [cls, *program.hierarchy.ancestors(cls)]
    methods = {method for mod, name in chain for method in program.modules[mod].classes[name].methods}
    if any(
        method in methods
        for mod, name in chain
        for held in program.modules[mod].classes[name].attributes.values()
        for method in bound_methods.decode(held)
    ):
        return True
    return any(
        program.resolve_function(mod, default) is not None and not _passed(program, (mod, name), param, site)
        for mod, name in chain
        for param, default in held_functions.decode_defaults(
            program.modules[mod].classes[name].attributes.get(held_functions.DEFAULT_FUNCTIONS, ""))
    )


def _passed(program: Program, cls: tuple[str, str], param: str, site: CallSite) -> bool:
    """Whether the constructor call gives `param` of the class's `__init__`: by keyword, or by
    position (a base's `__init__` is matched by its own positions: an approximation)."""
    if any(name == param for name, _ in site.kwargs):
        return True
    init = program.class_method(*cls, "__init__")
    params = program.function(init).params if init is not None else ()
    if param not in params:
        return False
    return params.index(param) - (1 if params[:1] == ("self",) else 0) < len(site.args)
