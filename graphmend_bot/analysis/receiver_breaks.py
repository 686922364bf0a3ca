"""Whether a method called on an object of a known class breaks, dispatching `self.m()` on that class.

The solver's breaking set is class-blind: a base's method that calls `self.retr(x, u)` breaks when
any subclass's `retr` does, since the base is shared. For an object built in the function
(`manifold = Euclidean()`, `SOLVERS[name](...)`) the class is known, and so is what `self.retr`
runs: the method along that class and its bases, never a sibling's override. geoopt's
`RiemannianLineSearch.step` calls `Euclidean().retr_transp(...)`, the base `Manifold.retr_transp`
calls `self.retr`, and only `PoincareBall`'s `retr` breaks: measured on torch 2.13, Dynamo traces
the call whole, so GM605's "cannot resume at the call" does not stand there.

A callee counts as breaking for the class when it has a finding itself, or reaches one through a
call that is not a `self.`/`super().` dispatch, or through such a dispatch that runs on the class.
An edge of the solver's callers that no call site explains (a callback, a hook) is kept as it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import BreakingFunctions, Callers, FunctionId, Program

_DISPATCHED_KINDS = ("self", "super")  # call refs whose method depends on the class of `self`


class ReceiverBreaks:
    """Answers, for one solve, whether a call on a local object of known classes breaks."""

    __slots__ = ("_breaking", "_callees", "_memo", "_own", "_program", "_targets")

    def __init__(
        self, program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]],
        callers: Callers, breaking: BreakingFunctions, own: Iterable[FunctionId],
    ) -> None:
        self._program = program
        self._targets = targets
        self._breaking = breaking
        self._own = set(own)
        self._callees: dict[FunctionId, set[FunctionId]] = {}
        for callee, its_callers in callers.items():
            for caller in its_callers:
                self._callees.setdefault(caller, set()).add(callee)
        self._memo: dict[tuple[tuple[str, str], FunctionId], bool] = {}

    def call_breaks(self, fid: FunctionId, site: int) -> bool:
        """Whether call site `site` of `fid` runs a function that breaks, on the classes its
        receiver is built as when it is `instance:` of an object built here."""
        generic = self._targets.get((fid, site), ())
        ref = self._program.function(fid).calls[site].ref
        kind, _, name = ref.partition(":")
        constructor, _, method = name.rpartition(">")
        classes = self._program.constructed_classes(fid, constructor) if kind == "instance" else []
        resolved = [self._program.class_method(mod, cls, method) for mod, cls in classes]
        if not classes or None in resolved or not set(resolved) >= {t for t in generic if self._is_method(t)}:
            return any(callee in self._breaking for callee in generic)  # not an object of known classes
        return any(callee is not None and self._breaks_as(cls, callee)
                   for cls, callee in zip(classes, resolved, strict=True))

    def _is_method(self, fid: FunctionId) -> bool:
        return self._program.function(fid).class_qualname is not None

    def _breaks_as(self, cls: tuple[str, str], fid: FunctionId) -> bool:
        """Whether `fid`, run with `self` an instance of `cls`, breaks (module docstring)."""
        key = (cls, fid)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = False  # a cycle of calls proves nothing
        found = fid in self._breaking and (fid in self._own or self._callee_breaks_as(cls, fid))
        self._memo[key] = found
        return found

    def _callee_breaks_as(self, cls: tuple[str, str], fid: FunctionId) -> bool:
        lineage = set(self._program.class_and_bases(*cls))
        function = self._program.function(fid)
        dispatched: dict[FunctionId, bool] = {}  # callee -> reached only by `self.m()`/`super().m()`
        for site, call in enumerate(function.calls):
            for callee in self._targets.get((fid, site), ()):
                dispatched[callee] = dispatched.get(callee, True) and _dispatches_to(call.ref, callee)
        for callee in self._callees.get(fid, ()):
            if callee not in self._breaking:
                continue
            if not dispatched.get(callee, False):
                return True  # an explicit call, or an edge no call site explains
            owner = self._program.function(callee).class_qualname
            if owner is None:
                return True  # a closure `__init__` stored on self: not the class's to choose
            if (callee[0], owner) in lineage and self._breaks_as(cls, callee):
                return True
        return False


def _dispatches_to(ref: str, callee: FunctionId) -> bool:
    """Whether call ref `ref` (`self:retr`, `super:retr@Base`) reaches `callee` as a method of the
    object's class: the callee is the method so named. `self.bm(t)` on an object an attribute holds
    runs that object's `__call__`, and `self.layer(x)` a submodule's `forward`: no dispatch on
    `self`'s class."""
    kind, _, name = ref.partition(":")
    return kind in _DISPATCHED_KINDS and callee[1].rsplit(".", 1)[-1] == name.partition("@")[0]
