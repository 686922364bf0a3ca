"""`with self.NAME:` and `with NAME:` on a global in traced code, judged by what built them (GM612:
`self.lock = threading.Lock()` in `__init__`, `_LOCK = threading.Lock()` at module level).

Measured on torch 2.13 (tests/test_held_context_managers.py): a context manager built outside the
compiled region (in `__init__`) and entered there breaks with GB0142 ("Dynamo does not know how to
enter a `lock` context manager"), even one Dynamo supports when it is built in the traced frame:
`torch.no_grad()`, a class of the tree with `__enter__`/`__exit__`, a `@contextlib.contextmanager`
generator. A few it enters all the same (`torch.autocast`, `contextlib.nullcontext`,
`torch.profiler.record_function`) are not the rule's (Detection.held_context says which builders
are). The builders are known only to the scope solver (`Program.held_constructors`); a finding
stands when every builder found makes such an object.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from graphmend_bot.rules import RULES

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

RULE = next(rule for rule in RULES if rule.detection.held_context is not None)
_REFUSED = RULE.detection.held_context
CONTEXT_MANAGER_DECORATORS = frozenset({"contextlib.contextmanager", "contextmanager"})


def held_context_entries(program: Program, traced: Iterable[FunctionId]) -> list[TracedDraft]:
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in sorted(traced):
        function = program.function(fid)
        if fid[0] in program.dependency_modules or function.disabled:
            continue
        rebound = {f"self.{name}" for name, _ in function.attribute_writes}
        for held, draft in function.held_context_drafts:
            if held in rebound:
                continue  # built again in the traced frame: Dynamo enters it (measured)
            built = _builders(program, fid[0], function.class_qualname, held)
            if built and all(_refused_when_held(program, fid[0], constructor) for constructor in built):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _builders(program: Program, module: str, class_qualname: str | None, held: str) -> list[str]:
    """What built `self.NAME` ("self.NAME") or the module's global ("NAME")."""
    if held.startswith("self."):
        return program.held_constructors(module, class_qualname, held[len("self."):]) if class_qualname else []
    built = program.modules[module].instances.get(held)
    return [built] if built is not None else []


def _refused_when_held(program: Program, module: str, constructor: str) -> bool:
    """An object `constructor(...)` builds, held from outside the compiled region, is one Dynamo
    cannot enter: a measured library manager, a class of the tree with `__enter__` (no
    nn.Module), or a generator function of the tree decorated `@contextlib.contextmanager`."""
    if _REFUSED is not None and _REFUSED(constructor):
        return True
    cls = program.resolve_class(module, constructor)
    if cls is not None:
        return program.class_method(*cls, "__enter__") is not None and not program.is_module_class(*cls)
    found = program.resolve_name(module, constructor)
    if found is None or found[0] != "function":
        return False
    function = program.modules[found[1]].functions.get(found[2])
    return function is not None and any(
        decorator in CONTEXT_MANAGER_DECORATORS for decorator in function.decorators
    )
