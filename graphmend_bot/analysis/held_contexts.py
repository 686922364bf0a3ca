"""`with self.NAME:` and `with NAME:` on a global in traced code, judged by what built them (GM612:
`self.lock = threading.Lock()` in `__init__`, `_LOCK = threading.Lock()` at module level); and
`next(self.NAME)` / `next(NAME)` the same way (GM653: `self.order = itertools.cycle(...)`), and
`copy.deepcopy(self.NAME)` of a module (GM693: `self.head = nn.Linear(...)`, a module class of the tree).

Measured on torch 2.13 (tests/test_held_context_managers.py): a context manager built outside the
compiled region (in `__init__`) and entered there breaks with GB0142 ("Dynamo does not know how to
enter a `lock` context manager"), even one Dynamo supports when it is built in the traced frame:
`torch.no_grad()`, a class of the tree with `__enter__`/`__exit__`, a `@contextlib.contextmanager`
generator. A few it enters all the same (`torch.autocast`, `contextlib.nullcontext`,
`torch.profiler.record_function`) are not the rule's (Detection.held_context says which builders
are). The builders are known only to the scope solver (`Program.held_constructors`); a finding
stands when every builder found makes such an object, in every write of `__init__` (all arms:
`self.ctx = nullcontext()`, then `if frozen: self.ctx = torch.no_grad()` may never break).

Not when the holder is built in traced code (its `__init__` is traced: `Helper()` in forward, then
`with self.ng:` in its method, measured to enter), nor when the traced function or a `self.`
method it calls first stores the attribute again (`self._fresh()`, then `with self.ctx:`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from graphmend_bot.rules import RULES

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

# Each rule that judges held objects by their builders (GM612's context managers, GM653's
# iterators), by code: the predicate saying which builders it reports.
_REFUSED_BY_RULE = {rule.code: rule.detection.held_context for rule in RULES if rule.detection.held_context is not None}
RULE = next(rule for rule in RULES if rule.detection.held_context is not None and rule.gb_id == "GB0142")
HELD_MODULE_COPY = next(rule for rule in RULES if rule.name == "deepcopy-of-held-module")
CONTEXT_MANAGER_DECORATORS = frozenset({"contextlib.contextmanager", "contextmanager"})


def held_context_entries(program: Program) -> list[TracedDraft]:
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    traced = program.traced_functions()
    for fid in program.traced_in_order():
        function = program.function(fid)
        if fid[0] in program.dependency_modules or function.disabled:
            continue
        rebound = {f"self.{name}" for name, _ in function.attribute_writes}
        for held, draft in function.held_context_drafts:
            if held in rebound:
                continue  # built again in the traced frame: Dynamo enters it (measured)
            if held.startswith("self.") and (
                holder_built_in_traced_code(program, fid)
                or rebuilt_by_callee(program, traced, fid, held[len("self."):], draft.row)
            ):
                continue
            if draft.code == HELD_MODULE_COPY.code and partly_built(program, fid, held):
                continue  # `self.ema = nn.Linear(...) if ema else None`: a deepcopy of None traces
            closed = function.closure_builds.get(held)  # `lock = threading.Lock()` in the enclosing function
            built = [closed] if closed is not None else builders(program, fid[0], function.class_qualname, held)
            if built and all(refused_when_held(program, fid[0], constructor, draft.code)
                             and not tree_object_method(program, fid, constructor) for constructor in built):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def partly_built(program: Program, fid: FunctionId, held: str) -> bool:
    """`self.NAME` is built in one arm of an __init__ write only (ClassSummary.partly_built), in the
    method's class, a base or a subclass."""
    class_qualname = program.function(fid).class_qualname
    if not held.startswith("self.") or class_qualname is None:
        return False
    name = held[len("self."):]
    return any(
        (summary := program.modules[mod].classes.get(cls)) is not None and name in summary.partly_built
        for mod, cls in program.hierarchy.related((fid[0], class_qualname))
    )


def tree_object_method(program: Program, fid: FunctionId, constructor: str) -> bool:
    """`self.bag.values` / `BAG.values` where a class of the tree built the receiver and defines the
    method: what it returns is that class's business, no dict view (GM676 on a tree `values()`)."""
    receiver, dot, method = constructor.rpartition(".")
    if not dot:
        return False
    module, class_qualname = fid[0], program.function(fid).class_qualname
    if receiver.startswith("self.") and "." not in receiver[len("self."):] and class_qualname is not None:
        classes = program.held_classes((module, class_qualname), receiver[len("self."):])
    else:
        built = program.modules[module].instances.get(receiver)
        found = program.resolve_class(module, built) if built is not None else None
        classes = [found] if found is not None else []
    return any(program.class_method(*cls, method) is not None for cls in classes)


def holder_built_in_traced_code(program: Program, fid: FunctionId) -> bool:
    """The class of the method, or a subclass, is instantiated in compiled code: its `__init__`
    (or the one it inherits) is reached from a root users surely compile (Program.surely_compiled),
    so what that stored in `self` was built there."""
    traced = program.surely_compiled()
    class_qualname = program.function(fid).class_qualname
    if class_qualname is None:
        return False
    holders = [(fid[0], class_qualname), *program.hierarchy.descendants((fid[0], class_qualname))]
    return any(program.class_method(*cls, "__init__") in traced for cls in holders)


def rebuilt_by_callee(program: Program, traced: Collection[FunctionId], fid: FunctionId, name: str, row: int) -> bool:
    """A traced `self.m()` called up to `row` (or a `self.` method it calls) stores `self.NAME`."""
    class_qualname = program.function(fid).class_qualname
    if class_qualname is None:
        return False
    seen = {fid}
    calls = [site for site in program.function(fid).calls if site.row <= row]
    while calls:
        kind, _, method = calls.pop().ref.partition(":")
        callee = program.class_method(fid[0], class_qualname, method) if kind == "self" else None
        if callee is None or callee in seen or callee not in traced:
            continue
        seen.add(callee)
        function = program.function(callee)
        if any(written == name for written, _ in function.attribute_writes):
            return True
        calls.extend(function.calls)
    return False


def builders(program: Program, module: str, class_qualname: str | None, held: str) -> list[str]:
    """What built `self.NAME` ("self.NAME"), in every value __init__ stores in it (of the class,
    a base or a subclass), or the module's global ("NAME")."""
    if held.startswith("self."):
        if class_qualname is None:
            return []
        name = held[len("self."):]
        related = program.hierarchy.related((module, class_qualname))
        return [
            *program.held_constructors(module, class_qualname, name),
            *(value for mod, cls in related for value in _rewritten(program, mod, cls, name)),
        ]
    built = program.modules[module].instances.get(held)
    return [built] if built is not None else []


def _rewritten(program: Program, module: str, class_qualname: str, name: str) -> tuple[str, ...]:
    summary = program.modules[module].classes.get(class_qualname)
    return summary.rewritten.get(name, ()) if summary is not None else ()


def refused_when_held(program: Program, module: str, constructor: str, code: str) -> bool:
    """An object `constructor(...)` builds, held from outside the compiled region, is one the
    rule `code` reports: one of its measured builders; for GM612, also a class of the tree with
    `__enter__` (no nn.Module), or a generator function of the tree decorated `@contextlib.contextmanager`."""
    refused = _REFUSED_BY_RULE.get(code)
    if refused is not None and refused(constructor):
        return True
    if code == HELD_MODULE_COPY.code:  # a module class of the tree holds tensors too
        found_class = program.resolve_class(module, constructor)
        return found_class is not None and program.is_module_class(*found_class)
    if code != RULE.code:
        return False
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
