"""`with Mode(...):` in traced code on a TorchDispatchMode subclass of the checked tree: Dynamo
cannot enter it.

Measured on torch 2.13 (benchmarks/spellings/pm_dispatch_modes.py,
tests/coverage_probes/gb0007_dispatch_mode_entered.py): entering a subclass of
`torch.utils._python_dispatch.TorchDispatchMode` (with an `__init__` of its own or none) breaks at
the `with` line with GB0007 "Attempted to call function marked as skipped": the mode's `__enter__`
is torch's, in a module Dynamo's trace rules skip. A `TorchFunctionMode` subclass is entered and
traced (measured): it is not judged. The traversal drafts each call of a capitalized name a `with`
enters; the scope solver keeps those that resolve to a class of the tree with such a base, through
the tree's own classes (a subclass of a subclass), defined in the same module or imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import Program, TracedDraft

# The class as torch defines it and as torch.autograd.graph re-exports it.
DISPATCH_MODES = frozenset(
    {
        "torch.utils._python_dispatch.TorchDispatchMode",
        "torch.autograd.graph.TorchDispatchMode",
    }
)


def dispatch_mode_entries(program: Program) -> list[TracedDraft]:
    """The drafts of `with Cls(...):` in traced functions where `Cls` is a TorchDispatchMode subclass of the tree."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not function.dispatch_mode_drafts or fid[0] in program.dependency_modules:
            continue
        for site, draft in function.dispatch_mode_drafts:
            named = program._resolve_dotted(fid[0], function.calls[site].ref.partition(":")[2])
            if named is not None and named[0] == "class" and _is_dispatch_mode(program, (named[1], named[2])):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _is_dispatch_mode(program: Program, cls: tuple[str, str]) -> bool:
    """The class, or one of its bases in the tree, names a dispatch mode among its bases."""
    return any(
        base in DISPATCH_MODES
        for module, qualname in (cls, *program.hierarchy.ancestors(cls))
        for base in program.modules[module].classes[qualname].bases
    )
