"""`.item()` / `.tolist()` on a value from outside the tree: a tensor's, though the solver finds none.

The scope solver makes a value a tensor only when the tree shows it: a callee of the tree returns
one, a parameter is given one, a write of the attribute stores one. A value from outside the tree
is none to it, yet only a tensor, a NumPy value or an object whose class defines `item` has the
method, and Dynamo breaks on the first two alike (measured on torch 2.13:
tests/test_opaque_sources.py). So a GM301/GM303 draft (rules/detect.py host_copy) also stands when
its receiver comes from outside the tree:

- the result of a call with no callee in the tree and no torch.nn layer
  (`functools.reduce(operator.add, losses)`, `self.dist.log_prob(x)`, `self.fn(x)` on
  `self.fn = torch.sum`, `getattr(torch, name)(x)`), or of a callee of the tree that returns one;
- an attribute of an object the class holds that no class of the tree builds (`self.dist.loc` of
  a `torch.distributions.Normal`);
- a parameter every traced caller passes one.

A NumPy function of Python values only may be folded to a constant (`np.array([1.0]).item()`,
`np.sqrt(2.0).item()` trace, `np.ones(1).item()` breaks): only one given a tensor is taken
(`np.mean(t.numpy())`). A result of the tree's callees, and an attribute of the tree's objects,
keep the solver's answer (a NumPy float constant, a tree class's own `item`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmend_bot.analysis.public_api import is_tensor_class
from graphmend_bot.rules import RULES
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, _TensorFlow

# The rules whose drafts are `.item()` / `.tolist()` calls, found by what they detect (a code is its rule's own).
OPAQUE_CODES = frozenset(rule.code for rule in RULES if {"item", "tolist"} & set(rule.detection.tensor_methods))
_DEPTH = 3  # callees and callers followed: a helper's helper's result, not the whole call graph


class OpaqueSources:
    """Whether a draft's receiver comes from outside the tree, once the tensor flow is solved."""

    def __init__(self, program: Program, solver: _TensorFlow) -> None:
        self.program = program
        self.solver = solver
        self._sites: dict[FunctionId, list[tuple[FunctionId, int]]] = {}

    def holds(self, fid: FunctionId, deps: Kind, depth: int = 0) -> bool:
        if depth > _DEPTH:
            return False
        solver, function = self.solver, self.program.function(fid)
        for call in deps.calls:
            if (fid, call.site) in solver.layers:
                continue
            targets = solver.targets.get((fid, call.site))
            if not targets:
                site = function.calls[call.site]
                if self._tree_class(fid, site.ref):
                    continue  # `Box()`: an object of the tree, whose `item` Dynamo traces
                if not self._numpy_site(fid, site.ref) or any(
                        solver.holds(fid, kind) for kind in (*site.args, *(value for _, value in site.kwargs))):
                    return True
            elif call.element is None and all(
                    not solver.returns[t] and self.holds(t, self.program.function(t).returns, depth + 1) for t in targets):
                return True
        for name in deps.params:
            if name.startswith("self.") and self._foreign_attribute(fid, name[len("self."):]):
                return True
            if name in function.params and self._passed_by_every_caller(fid, name, depth):
                return True
        return False

    def _foreign_attribute(self, fid: FunctionId, dotted: str) -> bool:
        """`self.dist.loc`: an attribute of a held object that only callables outside the tree build."""
        held, dot, _ = dotted.partition(".")
        class_qualname = self.program.function(fid).class_qualname
        if not dot or class_qualname is None:
            return False
        constructors = self.program.held_constructors(fid[0], class_qualname, held)
        return bool(constructors) and not self.program.held_classes((fid[0], class_qualname), held)

    def _passed_by_every_caller(self, fid: FunctionId, name: str, depth: int) -> bool:
        sites = self._call_sites(fid)
        if not sites:
            return False
        for caller, index in sites:
            passed = self.solver._arguments(self.program.function(caller).calls[index], fid).get(name)
            if passed is None or not self.holds(caller, passed, depth + 1):
                return False
        return True

    def _call_sites(self, fid: FunctionId) -> list[tuple[FunctionId, int]]:
        """(traced caller, call site index) of every call the solver resolved to `fid`."""
        sites = self._sites.get(fid)
        if sites is None:
            targets = self.solver.targets
            sites = self._sites[fid] = [
                (caller, index)
                for caller in sorted(self.solver.callers.get(fid, ()))
                for index in range(len(self.program.function(caller).calls))
                if fid in targets.get((caller, index), ())
            ]
        return sites

    def _tree_class(self, fid: FunctionId, ref: str) -> bool:
        """A class of the tree other than a torch.Tensor subclass (whose objects are tensors: `.item()` breaks)."""
        kind, _, name = ref.partition(":")
        found = self.program.resolve_class(fid[0], name) if kind in ("name", "dotted") else None
        return found is not None and not is_tensor_class(self.program, *found)

    def _numpy_site(self, fid: FunctionId, ref: str) -> bool:
        """A call site naming a NumPy function (`dotted:np.mean` under `import numpy as np`)."""
        head = ref.partition(":")[2].split(".", 1)[0]
        return self.program.modules[fid[0]].imports.get(head, "").split(".", 1)[0] == "numpy"
