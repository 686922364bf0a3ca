"""Boolean masks made elsewhere: `x[positive(x)]`, `x[self._mask(x)]`, `x[self.keep]` (GM502).

Measured on torch 2.13 (tests/coverage_probes/gb0036_mask_from_helper.py, tests/fixtures/rules/
GM502_boolean_mask_indexing.py): indexing a tensor with a bool tensor breaks with GB0036 wherever
the mask was built, in a helper whose result is the key or in `__init__` as a buffer or attribute
(`register_buffer("keep", x > 0)`, `self.keep = torch.zeros(n, dtype=torch.bool)`); assigning
through one (`y[self.keep] = 0`, index_put) does not break. The function analysis drafts `x[key]`
when the key is only call results and `self.NAME` reads (`FunctionSummary.mask_index_drafts`);
the draft stands when every callee of each such call returns a mask on every path
(`FunctionSummary.returns_mask`) and every write of each such attribute in the class, its bases
and its subclasses stores one (`FunctionSummary.mask_attributes`). A helper that returns a mask
on some paths only, or an attribute some method rebinds to another value, is not judged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft


def masks_made_elsewhere(
    program: Program, traced: set[FunctionId], targets: Mapping[tuple[FunctionId, int], list[FunctionId]],
    holds: Callable[[FunctionId, Kind], bool],
) -> list[TracedDraft]:
    """The drafts of traced `x[key]` whose key is a mask a helper returns or an attribute holds."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in sorted(traced):
        function = program.function(fid)
        if not function.mask_index_drafts or fid[0] in program.dependency_modules:
            continue
        for masks, draft in function.mask_index_drafts:
            if holds(fid, draft.deps) and all(_is_mask(program, fid, targets, mask) for mask in masks):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _is_mask(program: Program, fid: FunctionId, targets: Mapping[tuple[FunctionId, int], list[FunctionId]],
             mask: str) -> bool:
    if mask.startswith("@"):
        callees = targets.get((fid, int(mask[1:])), ())
        return bool(callees) and all(program.function(callee).returns_mask for callee in callees)
    return _holds_mask(program, fid, mask[len("self."):])


def _holds_mask(program: Program, fid: FunctionId, attribute: str) -> bool:
    """Whether the methods of the class of `fid`, its bases and subclasses write `self.ATTRIBUTE`,
    each time a mask."""
    class_qualname = program.function(fid).class_qualname
    if class_qualname is None or "." in attribute:
        return False
    written = False
    for module, cls in program.hierarchy.related((fid[0], class_qualname)):
        functions = program.modules[module].functions
        for method in program.modules[module].classes[cls].methods:
            writer = functions.get(f"{cls}.{method}")
            if writer is None or not any(name == attribute for name, _ in writer.attribute_writes):
                continue
            if attribute not in writer.mask_attributes:
                return False
            written = True
    return written
