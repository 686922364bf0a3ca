"""Which tensor parameters of a traced function some call in the tree does not pass a tensor.

The solver makes a parameter a tensor once one call site passes one (scope._TensorFlow): enough to
say that the function's lines break under torch.compile. A rewrite that writes torch code on the
parameter (`torch.where(x.sum() > 0, x * 2, x - 1)`, `x.max().detach()`) needs more: that every
caller passes a tensor. `helper(np.asarray(values))` in a preprocessing function ran the branch on
a numpy array and would now raise. The findings say which of their parameters no call proves
(Finding.unproven_parameters), and the fixer offers their rewrites only as unsafe, saying why.

A parameter is proven when the function's own signature fixes it (an annotation such as
`torch.Tensor`, scope._TensorFlow.fixed), or when every call of the function the analysis sees
passes it a tensor: calls from traced code as the solver judges them, calls from untraced code in
the summarised modules as untraced_callers.py judges them. A file the prefilter did not summarise
that imports the function (or its module) may call it with anything: its parameters stay unproven.
So does a function used as a value anywhere in the tree (`map(norm, arrays)`, `sorted(xs,
key=norm)`, `functools.partial(norm)`, `HANDLERS = {"n": norm}`, `self.f = norm`,
`checkpoint(self._block, x)`) or decorated by anything but torch's and the standard library's
transparent decorators: what calls it then is not seen (review7 finding 2: `norm`, called with a
tensor from `forward` and by `map` with numpy arrays, had its `.item()` rewritten to `.detach()`).
Calls at module level and from outside the tree are not seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from graphmend_bot.analysis.model import CallSite
from graphmend_bot.analysis.prefilter import EVERYTHING, Import
from graphmend_bot.analysis.untraced_callers import callee_names
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, _TensorFlow

Unproven = tuple[tuple[str, str], ...]  # (parameter, the call that does not pass it a tensor), by name
UnreadImports = Sequence[tuple[str, tuple[Import, ...]]]  # (path, imports) of the files not summarised
# Decorators that hand the function their callers' arguments unchanged, or never call it.
TRANSPARENT_DECORATORS = frozenset({
    "staticmethod", "classmethod", "property", "functools.wraps", "functools.lru_cache", "functools.cache",
    "functools.cached_property", "abc.abstractmethod", "typing.overload", "typing.override",
    "typing_extensions.override", "typing.final",
})


class CallerArguments:
    """What the calls of some traced functions pass them, judged once per solve."""

    def __init__(self, program: Program, solver: _TensorFlow, unread: UnreadImports) -> None:
        self.program = program
        self.solver = solver
        # The unread files' imports by the module imported, each list in the files' order, and each
        # function's answer by its module and top-level name: every finding on a parameter asks, and
        # a scan of every unread file's imports per finding was a tenth of the solve on a large tree.
        self._importers: dict[str, list[tuple[int, str, frozenset[str]]]] = {}
        for order, (path, imports) in enumerate(unread):
            for imported, names in imports:
                self._importers.setdefault(imported, []).append((order, path, names))
        self._importer_of: dict[tuple[str, str], str | None] = {}

    def unproven(self, fids: Iterable[FunctionId]) -> dict[FunctionId, Unproven]:
        """For each of `fids` (traced functions), its parameters some call does not pass a tensor."""
        candidates = {fid: names for fid in fids if (names := self._candidates(fid))}
        calls: dict[FunctionId, list[tuple[FunctionId, CallSite, bool]]] = {}
        # Untraced callers first: the reason shown is the first call found, and code nothing compiles
        # is where a numpy array or a Python number usually comes from.
        for caller, site, callee in self.solver.untraced_callers.calling(set(candidates)):
            calls.setdefault(callee, []).append((caller, site, False))
        for (caller, index), targets in self.solver.targets.items():
            for target in targets:
                if target in candidates:
                    calls.setdefault(target, []).append((caller, self.program.function(caller).calls[index], True))
        values = self._value_uses(set(candidates))
        return {fid: self._reasons(fid, names, calls.get(fid, []), values.get(fid)) for fid, names in candidates.items()}

    def _reasons(self, fid: FunctionId, candidates: list[str], calls: list[tuple[FunctionId, CallSite, bool]],
                 value_use: str | None) -> Unproven:
        reasons: dict[str, str] = {}
        if value_use is not None:
            reasons = dict.fromkeys(candidates, value_use)
        for caller, site, traced in calls:
            passed = self.solver._arguments(site, fid)
            for name in candidates:
                kind = passed.get(name)
                if name not in reasons and (kind is None or not self._holds(caller, kind, traced)):
                    what = "no value for" if kind is None else "a value not known to be a tensor to"
                    reasons[name] = f"`{_qualified(caller)}` ({self._where(caller)}) passes {what} `{name}`"
        importer = self._unread_importer(fid)
        if importer is not None:
            for name in candidates:
                reasons.setdefault(name, f"{importer} imports it and is not analysed (no entry point reaches it)")
        return tuple(sorted(reasons.items()))

    def _value_uses(self, candidates: set[FunctionId]) -> dict[FunctionId, str]:
        """For each of `candidates` used as a value in the tree (not called where it is named) or
        under an unknown decorator: where, as the reason its parameters are unproven."""
        program = self.program
        uses: dict[FunctionId, str] = {}
        for fid in candidates:
            summary = program.modules[fid[0]]
            for decorator in program.function(fid).decorators:
                first, _, rest = decorator.partition(".")
                full = ".".join(filter(None, (summary.imports.get(first, first), rest)))
                if full not in TRANSPARENT_DECORATORS and not full.startswith("torch."):
                    uses.setdefault(fid, f"its decorator `@{decorator}` may call it with other values")
        names = callee_names(candidates)
        for module, summary in program.modules.items():
            if module in program.dependency_modules:
                continue
            for qualname, function in summary.functions.items():
                for reference in function.references:
                    for target in self._referenced(module, qualname, reference, names):
                        if target in candidates:
                            uses.setdefault(target, f"`{_qualified((module, qualname))}` ({summary.path}) uses it as "
                                                    "a value: what calls it then is not seen")
            for table, values in summary.registries.items():
                for value in values:
                    for target in self._referenced(module, None, value, names):
                        if target in candidates:
                            uses.setdefault(target, f"`{module}.{table}` ({summary.path}) holds it: what calls it "
                                                    "from there is not seen")
        return uses

    def _referenced(self, module: str, qualname: str | None, reference: str, names: set[str]) -> list[FunctionId]:
        """The functions of the tree a value reference names (`norm`, `utils.norm`, `self.block`)."""
        if reference.startswith("self."):
            method = reference[len("self."):].partition(" ")[0]
            if qualname is None or method not in names:
                return []
            return self.program._passed_methods((module, qualname), method)
        if reference.rpartition(".")[2] not in names:
            return []
        found = self.program._resolve_dotted(module, reference)
        return [(found[1], found[2])] if found is not None and found[0] == "function" else []

    def _candidates(self, fid: FunctionId) -> list[str]:
        """The parameters callers give values to: all but the implicit `self`/`cls` and those the
        signature itself makes tensors (a `torch.Tensor` annotation: a seed callers cannot change)."""
        function = self.program.function(fid)
        implicit = function.params[:1] if function.class_qualname is not None and (
            "staticmethod" not in function.decorators) else ()
        fixed = self.solver.fixed.get(fid, set())
        seeded = self.solver.params.get(fid, {})
        return [name for name in function.params
                if name not in implicit and not (name in fixed and seeded.get(name))]

    def _holds(self, caller: FunctionId, kind: Kind, traced: bool) -> bool:
        solver = self.solver
        if traced:
            return solver.holds(caller, kind)
        return solver.untraced_callers.holds(caller, kind, solver.attributes, solver.returns.__getitem__,
                                             solver._arguments)

    def _where(self, caller: FunctionId) -> str:
        """The caller's file, without the call's row: an edit above the call moves it, and a warm
        check keeps this text from the solve before (tests/test_incremental_solve.py)."""
        return self.program.modules[caller[0]].path

    def _unread_importer(self, fid: FunctionId) -> str | None:
        """The first file the prefilter did not summarise whose imports can reach the function's name:
        from its module (the name, or everything), from its package (the module), or from a
        package above it re-exporting the name."""
        module, name = fid[0], fid[1].split(".", 1)[0]
        if (module, name) not in self._importer_of:
            package, _, last = module.rpartition(".")
            above = {module[:cut] for cut, char in enumerate(module) if char == "."}
            first: list[tuple[int, str]] = []  # the first importer through each module imported
            for imported in {module, package, *above}:
                for order, path, names in self._importers.get(imported, ()):
                    if (imported == module and (name in names or EVERYTHING in names)) or (
                            imported == package and last in names) or (imported in above and name in names):
                        first.append((order, path))
                        break
            self._importer_of[(module, name)] = min(first)[1] if first else None
        return self._importer_of[(module, name)]


def _qualified(fid: FunctionId) -> str:
    return f"{fid[0]}.{fid[1]}"
