"""The class hierarchy of the checked tree, and which attributes of its classes hold tensors.

Both are built once per run from the module summaries; the scope solver asks them while it
resolves `self.method()` (overrides in subclasses) and reads of module state (`self.NAME`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from graphmend_bot.analysis.none_fallbacks import expanded
from graphmend_bot.analysis.value_class import is_property
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program

ClassId = tuple[str, str]  # (module, class qualname)


class ClassHierarchy:
    def __init__(self, classes: Iterable[tuple[ClassId, list[ClassId]]]) -> None:
        self.bases: dict[ClassId, list[ClassId]] = {}
        self.children: dict[ClassId, list[ClassId]] = defaultdict(list)
        for cls, bases in classes:
            self.bases[cls] = bases
            for base in bases:
                self.children[base].append(cls)
        self._related: dict[ClassId, tuple[ClassId, ...]] = {}
        self._descendants: dict[ClassId, tuple[ClassId, ...]] = {}

    def descendants(self, cls: ClassId) -> tuple[ClassId, ...]:
        """Memoised: resolving `self.m()` asks for the subclasses of a base (PreTrainedModel has
        hundreds) once per call site, and the hierarchy never changes."""
        found = self._descendants.get(cls)
        if found is None:
            found = self._descendants[cls] = tuple(self._closure(cls, self.children))
        return found

    def ancestors(self, cls: ClassId) -> list[ClassId]:
        return self._closure(cls, self.bases)

    def related(self, cls: ClassId) -> tuple[ClassId, ...]:
        """The class, its bases and its subclasses: whoever may have set `self.NAME` it reads."""
        if cls not in self._related:
            self._related[cls] = (cls, *self.ancestors(cls), *self.descendants(cls))
        return self._related[cls]

    @staticmethod
    def _closure(cls: ClassId, edges: dict[ClassId, list[ClassId]]) -> list[ClassId]:
        seen: set[ClassId] = {cls}
        order: list[ClassId] = []
        stack = list(edges.get(cls, ()))
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            order.append(current)
            stack.extend(edges.get(current, ()))
        return order


class AttributeTypes:
    """Module state that holds tensors: `self.x = torch.zeros(...)`, `register_buffer`,
    `nn.Parameter`, `self.y0 = y0` once a tensor reaches `y0`. A read of `self.x` in a method of
    class C is a tensor when a write in C, a base or a subclass stores one (over-approximate
    within the tree); a write of a float, a flag or a submodule never makes it one. A property
    counts as a write of what its getter returns: Dynamo inlines the getter at each read
    (`if self.ready:` on `return self.count > 0` breaks as the comparison does, GB0170, measured in
    benchmarks/spellings/br_helper_predicate.py)."""

    def __init__(self, program: Program, traced: set[FunctionId]) -> None:
        self.program = program
        writes: list[tuple[FunctionId, ClassId, str, Kind]] = [
            ((module, qualname), (module, function.class_qualname), attribute, kind)
            for module, summary in program.modules.items()
            for qualname, function in summary.functions.items()
            if function.class_qualname is not None
            for attribute, kind in function.attribute_writes
            if kind.nonempty
        ] + [
            ((module, qualname), (module, function.class_qualname), function.name, function.returns)
            for module, summary in program.modules.items()
            for qualname, function in summary.functions.items()
            if function.class_qualname is not None and function.returns.nonempty
            and is_property(function.decorators)
        ]
        self.tensors: set[tuple[ClassId, str]] = set()
        self._held_classes: dict[tuple[ClassId, str], tuple[ClassId, ...]] = {}
        # A write in a function nothing traced calls is decided once, by what it stores
        # (`self.timesteps = torch.from_numpy(...)` in set_timesteps) or its annotations;
        # the writes in traced functions are asked again on every round of the fixpoint.
        self.writes = [write for write in writes if write[0] in traced]
        for fid, cls, attribute, kind in writes:
            if fid in traced:
                continue
            function = program.function(fid)
            kind = expanded(kind, function)  # `if w is None: w = torch.ones(n)`, whatever the callers pass
            if kind.always or any(function.param_seeds.get(p) for p in kind.params):
                self.tensors.add((cls, attribute))

    def update(self, holds: Callable[[FunctionId, Kind], bool]) -> bool:
        """One round of the fixpoint: True when some attribute became a tensor."""
        changed = False
        for fid, cls, attribute, kind in self.writes:
            if (cls, attribute) not in self.tensors and holds(fid, kind):
                self.tensors.add((cls, attribute))
                changed = True
        return changed

    def is_tensor(self, fid: FunctionId, attribute: str) -> bool:
        class_qualname = self.program.function(fid).class_qualname
        if class_qualname is None or not self.tensors:
            return False
        owner, _, name = attribute.partition(".")
        if name:
            return self._held_object_is_tensor((fid[0], class_qualname), owner, name)
        return any(
            (cls, attribute) in self.tensors for cls in self.program.hierarchy.related((fid[0], class_qualname))
        )

    def _held_object_is_tensor(self, cls: ClassId, owner: str, name: str) -> bool:
        """`self.OWNER.NAME`: NAME is module state of a class OWNER is built or typed with
        (`self.scheduler.timesteps`, `scheduler: DDIMScheduler`, `self.timesteps = ...` there)."""
        key = (cls, owner)
        classes = self._held_classes.get(key)
        if classes is None:
            classes = self._held_classes[key] = tuple(
                related
                for built in self.program.held_classes(cls, owner)
                for related in self.program.hierarchy.related(built)
            )
        return any((held, name) in self.tensors for held in classes)
