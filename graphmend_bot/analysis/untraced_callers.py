"""Calls from code Dynamo does not trace into a traced function's hinted parameters.

An annotation (`timestep: int`) says what the author meant; what a caller in the checked tree
passes is what happens. diffusers compiles `DDIMScheduler.step` on its own, and its only in-tree
callers are the pipelines' `__call__`, which nothing traces:
`for t in self.progress_bar(self.scheduler.timesteps): self.scheduler.step(out, t, x)`. Such a
caller's arguments are judged with what is known without tracing it: tensors it builds, module
state of its class and of the objects it keeps, and what the helpers it calls return for them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from graphmend_bot.analysis.hierarchy import AttributeTypes
from graphmend_bot.analysis.model import CallSite
from graphmend_bot.analysis.none_fallbacks import expanded
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program

Arguments = Callable[[CallSite, "FunctionId"], dict[str, Kind]]
_MAX_DEPTH = 3  # helpers of helpers: progress_bar(iterable) -> tqdm(iterable) is one level


def callee_names(callees: Iterable[FunctionId]) -> set[str]:
    """The names call sites are matched by before resolving them: a constructor is called by its
    class's name (analysis/incremental.py checks an edited function's calls against them)."""
    return {
        fid[1].rpartition(".")[0].rpartition(".")[2] if fid[1].endswith(".__init__") else fid[1].rpartition(".")[2]
        for fid in callees
    }


def called_name(ref: str) -> str:
    """The name a call site calls: "instance:attr:scheduler>step" -> "step", "dotted:a.f" -> "f"."""
    if ">" in ref:
        return ref.rpartition(">")[2]
    return ref.partition(":")[2].rpartition(".")[2].partition("@")[0]  # "super:m@Base" calls m


class UntracedCallers:
    def __init__(self, program: Program, traced: set[FunctionId], callees: set[FunctionId]) -> None:
        self.program = program
        self.traced = traced
        # The untraced call sites by the name they call, each with its place in the walk of every
        # module, function and site: the solver and caller_arguments.py each ask for other callees,
        # and one walk of every call in the tree serves both.
        self._by_name: dict[str, list[tuple[int, FunctionId, CallSite]]] | None = None
        self.sites = self.calling(callees)

    def calling(self, callees: set[FunctionId]) -> list[tuple[FunctionId, CallSite, FunctionId]]:
        """(caller, site, callee) of every call from untraced code in the tree that may run one of
        `callees`, in the order of the modules, their functions and their calls."""
        names = callee_names(callees)
        if not names:
            return []
        by_name = self._sites_by_name()
        found = sorted(entry for name in names for entry in by_name.get(name, ()))
        return [
            (caller, site, target)
            for _, caller, site in found
            for target in self.program.resolve_call(caller, site.ref) if target in callees
        ]

    def _sites_by_name(self) -> dict[str, list[tuple[int, FunctionId, CallSite]]]:
        if self._by_name is None:
            self._by_name = {}
            order = 0
            for module, summary in self.program.modules.items():
                if module in self.program.dependency_modules:
                    continue
                for qualname, function in summary.functions.items():
                    caller = (module, qualname)
                    if caller in self.traced:
                        continue
                    for site in function.calls:
                        self._by_name.setdefault(called_name(site.ref), []).append((order, caller, site))
                        order += 1
        return self._by_name

    def holds(
        self, fid: FunctionId, kind: Kind, attributes: AttributeTypes, traced_returns: Callable[[FunctionId], bool],
        arguments: Arguments, depth: int = 0, passed: dict[str, bool] | None = None,
    ) -> bool:
        """Whether `kind`, in untraced function `fid`, is a tensor; `passed` says which of its
        parameters a caller gave tensors (None: only their annotations say)."""
        if kind.always:
            return True
        function = self.program.function(fid)
        kind = expanded(kind, function)  # `if p is None: p = ...`, whatever the callers pass
        if kind.always:
            return True
        for name in kind.params:
            if name.startswith("self."):
                if attributes.is_tensor(fid, name[len("self."):]):
                    return True
            elif passed.get(name, False) if passed is not None else function.param_seeds.get(name, False):
                return True
        if depth >= _MAX_DEPTH:
            return False
        for call in kind.calls:
            site = function.calls[call.site]
            for target in self.program.resolve_call(fid, site.ref):
                if target in self.traced:
                    if traced_returns(target):
                        return True
                    continue
                given = {
                    name: self.holds(fid, argument, attributes, traced_returns, arguments, depth + 1, passed)
                    for name, argument in arguments(site, target).items()
                }
                returns = self.program.function(target).returns
                if self.holds(target, returns, attributes, traced_returns, arguments, depth + 1, given):
                    return True
        return False
