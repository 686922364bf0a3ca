"""Decide across modules what TorchDynamo traces, and which drafts are real findings.

Entry points are the `forward` of every nn.Module subclass, functions decorated with or passed
to `torch.compile`, modules compiled with `torch.compile(model)` / `model.compile()`, and the
configured extra entry points. Scope is everything reachable from them through calls, function
references and decorators. Then a small fixpoint decides which parameters receive tensors and
which functions return them, so a helper's `if x.sum() > 0` is reported when a tensor reaches it.
"""

from __future__ import annotations

import fnmatch
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from graphmend_bot.analysis.kind import Kind
from graphmend_bot.analysis.model import CallSite, Draft, FunctionSummary, ModuleSummary

FunctionId = tuple[str, str]  # (module, qualname)
MODULE_BASES = ("torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module")


@dataclass(frozen=True)
class TracedDraft:
    module: ModuleSummary
    function: FunctionSummary
    draft: Draft


class Program:
    def __init__(self, modules: Iterable[ModuleSummary], extra_entry_points: Iterable[str] = ()) -> None:
        self.modules = {m.module: m for m in modules}
        self.extra_entry_points = list(extra_entry_points)
        self._module_classes: dict[tuple[str, str], bool] = {}

    # ---- name resolution ----------------------------------------------------------------
    def function(self, fid: FunctionId) -> FunctionSummary:
        return self.modules[fid[0]].functions[fid[1]]

    def _split_qualified(self, dotted: str) -> tuple[str, str] | None:
        """Split `pkg.mod.Class.method` into a checked module and a name inside it."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return module, ".".join(parts[cut:])
        return None

    def _lookup(self, module: str, name: str, depth: int = 0) -> tuple[str, str, str] | None:
        """Find `name` defined in `module` or re-exported by it: ("function"|"class", mod, qualname)."""
        summary = self.modules.get(module)
        if summary is None or depth > 5:
            return None
        if name in summary.functions:
            return "function", module, name
        if name in summary.classes:
            return "class", module, name
        head, _, rest = name.partition(".")
        imported = summary.imports.get(head)
        if imported is not None:
            target = f"{imported}.{rest}" if rest else imported
            split = self._split_qualified(target)
            if split is not None:
                return self._lookup(split[0], split[1], depth + 1)
        return None

    def _method(self, module: str, class_qualname: str, name: str, skip_self: bool = False) -> FunctionId | None:
        """Method resolution along in-tree bases (depth-first, which matches simple MROs)."""
        seen: set[tuple[str, str]] = set()
        stack = [(module, class_qualname)]
        while stack:
            mod, cls = stack.pop(0)
            if (mod, cls) in seen:
                continue
            seen.add((mod, cls))
            summary = self.modules[mod].classes.get(cls)
            if summary is None:
                continue
            if not (skip_self and (mod, cls) == (module, class_qualname)) and name in summary.methods:
                return mod, f"{cls}.{name}"
            stack.extend(self._base_classes(mod, cls))
        return None

    def _submodule_forward(self, module: str, class_qualname: str, attribute: str) -> FunctionId | None:
        """`self.encoder(...)`: the forward of the in-tree class assigned to self.encoder."""
        seen: set[tuple[str, str]] = set()
        stack = [(module, class_qualname)]
        while stack:
            mod, cls = stack.pop(0)
            summary = self.modules[mod].classes.get(cls)
            if summary is None or (mod, cls) in seen:
                continue
            seen.add((mod, cls))
            constructor = summary.attributes.get(attribute)
            if constructor is not None:
                found = self._resolve_dotted(mod, constructor)
                if found is not None and found[0] == "class":
                    return self._method(found[1], found[2], "forward")
                return None
            stack.extend(self._base_classes(mod, cls))
        return None

    def _base_classes(self, module: str, class_qualname: str) -> Iterator[tuple[str, str]]:
        for base in self.modules[module].classes[class_qualname].bases:
            found = self._resolve_dotted(module, base)
            if found is not None and found[0] == "class":
                yield found[1], found[2]

    def _resolve_dotted(self, module: str, dotted: str) -> tuple[str, str, str] | None:
        found = self._lookup(module, dotted)
        if found is None:
            split = self._split_qualified(dotted)
            if split is not None:
                found = self._lookup(*split)
        return found

    def is_module_class(self, module: str, class_qualname: str) -> bool:
        key = (module, class_qualname)
        if key not in self._module_classes:
            self._module_classes[key] = False  # cycles end here
            summary = self.modules[module].classes[class_qualname]
            result = False
            for base in summary.bases:
                found = self._resolve_dotted(module, base)
                if found is not None and found[0] == "class":
                    result = self.is_module_class(found[1], found[2])
                elif base in MODULE_BASES or base.startswith("torch.nn."):
                    result = True
                elif found is None and "forward" in summary.methods:
                    result = True  # an external base of a class with forward: a module by duck typing
                if result:
                    break
            self._module_classes[key] = result
        return self._module_classes[key]

    def resolve_call(self, fid: FunctionId, site_ref: str) -> list[FunctionId]:
        module, qualname = fid
        kind, _, name = site_ref.partition(":")
        function = self.function(fid)
        if kind in ("self", "super"):
            if function.class_qualname is None:
                return []
            method = self._method(module, function.class_qualname, name, skip_self=kind == "super")
            if method is None and kind == "self":
                method = self._submodule_forward(module, function.class_qualname, name)
            return [method] if method else []
        if kind == "name":
            nested = f"{qualname}.{name}"
            if nested in self.modules[module].functions:
                return [(module, nested)]
        found = self._resolve_dotted(module, name)
        if found is None:
            return []
        what, mod, target = found
        if what == "function":
            return [(mod, target)]
        init = self._method(mod, target, "__init__")
        return [init] if init else []

    # ---- scope --------------------------------------------------------------------------
    def entry_points(self) -> set[FunctionId]:
        entries: set[FunctionId] = set()
        for module, summary in self.modules.items():
            for qualname, function in summary.functions.items():
                if function.compiled or (
                    function.name == "forward"
                    and function.class_qualname is not None
                    and self.is_module_class(module, function.class_qualname)
                ) or self._configured_entry(module, qualname):
                    entries.add((module, qualname))
            for target in summary.compile_targets:
                entries.update(self._compile_target(module, target.ref, target.constructor, target.method))
        return entries

    def _configured_entry(self, module: str, qualname: str) -> bool:
        name = f"{module}:{qualname}"
        return any(
            fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(f"{module}.{qualname}", pattern)
            for pattern in self.extra_entry_points
        )

    def _compile_target(
        self, module: str, ref: str, constructor: str | None, method: str = "forward"
    ) -> list[FunctionId]:
        for candidate in (constructor, ref.removesuffix(".forward"), ref):
            if not candidate:
                continue
            found = self._resolve_dotted(module, candidate)
            if found is None:
                continue
            what, mod, target = found
            if what == "function":
                return [(mod, target)]
            name = method if candidate == constructor else "forward"
            # An nn.Module runs forward; any other callable object runs __call__.
            called = self._method(mod, target, name) or self._method(mod, target, "__call__")
            return [called] if called else []
        return []

    def traced_functions(self) -> set[FunctionId]:
        traced: set[FunctionId] = set()
        queue = deque(self.entry_points())
        while queue:
            fid = queue.popleft()
            if fid in traced or fid[0] not in self.modules or fid[1] not in self.modules[fid[0]].functions:
                continue
            traced.add(fid)
            queue.extend(self._successors(fid))
        return traced

    def reachable_from(self, roots: Iterable[str]) -> set[FunctionId]:
        """What is reachable from exactly `roots` ("module:callable"), not from the default entry
        points: the reach of a `graphmend verify` factory. A class root, and each class constructed
        on the way (reached through its `__init__`), adds its forward and __call__, since the
        module a factory builds is then called (an over-approximation, like the rest of scope)."""
        queue: deque[FunctionId] = deque()
        for root in roots:
            module, _, name = root.partition(":")
            found = self._lookup(module, name) if module in self.modules else None
            if found is not None and found[0] == "function":
                queue.append((found[1], found[2]))
            elif found is not None:
                queue.extend(self._class_calls(found[1], found[2], "__init__"))
        reached: set[FunctionId] = set()
        while queue:
            fid = queue.popleft()
            if fid in reached or fid[0] not in self.modules or fid[1] not in self.modules[fid[0]].functions:
                continue
            reached.add(fid)
            queue.extend(self._successors(fid))
            function = self.function(fid)
            if function.name == "__init__" and function.class_qualname is not None:
                queue.extend(self._class_calls(fid[0], function.class_qualname))
        return reached

    def _class_calls(self, module: str, class_qualname: str, *extra: str) -> list[FunctionId]:
        methods = (self._method(module, class_qualname, name) for name in (*extra, "forward", "__call__"))
        return [method for method in methods if method is not None]

    def _successors(self, fid: FunctionId) -> Iterator[FunctionId]:
        module = fid[0]
        function = self.function(fid)
        for site in function.calls:
            yield from self.resolve_call(fid, site.ref)
        for reference in function.references:
            found = self._resolve_dotted(module, reference)
            if found is not None and found[0] == "function":
                yield found[1], found[2]
        # A decorator defined in the tree wraps the function: its inner wrapper runs traced.
        for decorator in function.decorators:
            found = self._resolve_dotted(module, decorator)
            if found is not None and found[0] == "function":
                prefix = f"{found[2]}."
                for name in self.modules[found[1]].functions:
                    if name.startswith(prefix):
                        yield found[1], name

    # ---- tensor flow --------------------------------------------------------------------
    def traced_drafts(self) -> list[TracedDraft]:
        traced = self.traced_functions()
        solver = _TensorFlow(self, traced)
        solver.solve()
        result: list[TracedDraft] = []
        for fid in sorted(traced):
            function = self.function(fid)
            for draft in function.drafts:
                if solver.holds(fid, draft.deps) and not solver.holds(fid, draft.suppressed_if):
                    result.append(TracedDraft(self.modules[fid[0]], function, draft))
        return result


class _TensorFlow:
    """Which parameters receive tensors and which functions return them (a monotone fixpoint)."""

    def __init__(self, program: Program, traced: set[FunctionId]) -> None:
        self.program = program
        self.traced = traced
        self.params: dict[FunctionId, dict[str, bool]] = {
            fid: dict(program.function(fid).param_seeds) for fid in traced
        }
        self.fixed: dict[FunctionId, set[str]] = {
            fid: set(program.function(fid).param_seeds) for fid in traced
        }
        self.targets: dict[tuple[FunctionId, int], list[FunctionId]] = {}
        for fid in traced:
            for index, site in enumerate(program.function(fid).calls):
                targets = [t for t in program.resolve_call(fid, site.ref) if t in traced]
                if targets:
                    self.targets[(fid, index)] = targets
        # A forward called from the tree gets its tensors from its callers, not from being an
        # entry point: `self.bias(window_size)` passes a tuple, whatever the signature says.
        called = {target for targets in self.targets.values() for target in targets}
        for fid in called:
            for name in program.function(fid).entry_params:
                self.params[fid].pop(name, None)
                self.fixed[fid].discard(name)
        self.returns: dict[FunctionId, bool] = {fid: False for fid in traced}
        self.element_returns: dict[FunctionId, list[bool]] = {
            fid: [False] * len(elements)
            for fid in traced
            if (elements := program.function(fid).return_elements) is not None
        }

    def holds(self, fid: FunctionId, deps: Kind) -> bool:
        if deps.always:
            return True
        params = self.params[fid]
        if any(params.get(name, False) for name in deps.params):
            return True
        for call in deps.calls:
            targets = self.targets.get((fid, call.site), ())
            if call.element is None and any(self.returns[t] for t in targets):
                return True
            if call.element is not None and any(self._element_returns(t, call.element) for t in targets):
                return True
        return False

    def _element_returns(self, fid: FunctionId, index: int) -> bool:
        """Whether element `index` of what `fid` returns is a tensor (the whole result when unknown)."""
        elements = self.element_returns.get(fid)
        if elements is None or index >= len(elements):
            return self.returns[fid]
        return elements[index]

    def solve(self) -> None:
        for _ in range(50):
            changed = False
            for fid in self.traced:
                function = self.program.function(fid)
                if not self.returns[fid] and self.holds(fid, function.returns):
                    self.returns[fid] = changed = True
                flags = self.element_returns.get(fid)
                if flags is not None and function.return_elements is not None:
                    for index, kind in enumerate(function.return_elements):
                        if not flags[index] and self.holds(fid, kind):
                            flags[index] = changed = True
                for index, site in enumerate(function.calls):
                    for target in self.targets.get((fid, index), ()):
                        changed |= self._pass_arguments(fid, site, target)
            if not changed:
                return

    def _pass_arguments(self, caller: FunctionId, site: CallSite, callee: FunctionId) -> bool:
        function = self.program.function(callee)
        params = list(function.params)
        if (
            function.class_qualname is not None
            and "staticmethod" not in function.decorators
            and (site.bound or function.name == "__init__")
        ):
            params = params[1:]
        changed = False
        named = [(params[i], kind) for i, kind in enumerate(site.args) if i < len(params)]
        for name, kind in [*named, *site.kwargs]:
            if name in self.fixed[callee] or self.params[callee].get(name):
                continue
            if self.holds(caller, kind):
                self.params[callee][name] = changed = True
        return changed
