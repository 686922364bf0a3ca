"""Decide across modules what TorchDynamo traces, and which drafts are real findings.

Entry points are the `forward` of every nn.Module subclass, functions decorated with or passed
to `torch.compile`, modules compiled with `torch.compile(model)` / `model.compile()`, and the
configured extra entry points; in the library scope and `auto`'s public-api scope also every
public callable of the package, in `auto`'s tensor-api scope (a lone file) those that take or
return a tensor (public_api.py, which also says when `auto` picks which). Scope is everything reachable from them through calls, function
references and decorators. Then a small fixpoint decides which parameters receive tensors and
which functions return them, so a helper's `if x.sum() > 0` is reported when a tensor reaches it.
"""

from __future__ import annotations

import fnmatch
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Set, Sized
from dataclasses import dataclass

from graphmend_bot.analysis import bound_methods, held_functions, none_fallbacks, operator_dunders
from graphmend_bot.analysis.apply_arity import shifted_arguments
from graphmend_bot.analysis.autograd_functions import untraceable_applies
from graphmend_bot.analysis.breaking_constructions import constructions_breaking_inside
from graphmend_bot.analysis.breaking_reads import after_read, breaking_reads, quiet_reads, statement_tails
from graphmend_bot.analysis.breaking_reads import eager_rests as read_eager_rests
from graphmend_bot.analysis.built_managers import constructions_entered
from graphmend_bot.analysis.cached_property_reads import cached_property_reads, locked_reads
from graphmend_bot.analysis.callee_modes import CalleeModes
from graphmend_bot.analysis.callee_refs import classmethod_class
from graphmend_bot.analysis.caller_arguments import CallerArguments, Unproven, UnreadImports
from graphmend_bot.analysis.class_resolution import property_getters, value_classes
from graphmend_bot.analysis.compile_helpers import helper_compiled_roots
from graphmend_bot.analysis.dependency_breaks import calls_breaking_inside
from graphmend_bot.analysis.disabled_calls import disabled_function_calls, disabled_value_calls
from graphmend_bot.analysis.dispatch_modes import dispatch_mode_entries
from graphmend_bot.analysis.dropped_results import DroppedResults
from graphmend_bot.analysis.eager_entries import traced_only
from graphmend_bot.analysis.eager_frames import metaclass_calls
from graphmend_bot.analysis.entered_managers import breaking_manager_bodies, breaking_manager_entries
from graphmend_bot.analysis.files import read_source
from graphmend_bot.analysis.generator_breaks import up_to_first_break
from graphmend_bot.analysis.generator_managers import manager_without_yield_calls
from graphmend_bot.analysis.getattribute_classes import getattribute_constructions
from graphmend_bot.analysis.held_contexts import held_context_entries
from graphmend_bot.analysis.held_methods import held_method_calls
from graphmend_bot.analysis.held_module_calls import held_module_calls
from graphmend_bot.analysis.held_objects import held_object_breaks
from graphmend_bot.analysis.held_ranks import held_rank_indices
from graphmend_bot.analysis.hierarchy import AttributeTypes, ClassHierarchy
from graphmend_bot.analysis.instance_forwards import called_plainly, module_forwards
from graphmend_bot.analysis.keyword_sorts import unsortable_keyword_calls
from graphmend_bot.analysis.lone_modules import lone_library
from graphmend_bot.analysis.loop_calls import eager_after_loop_calls, surely_breaking
from graphmend_bot.analysis.masks import loop_rests as mask_loop_rests
from graphmend_bot.analysis.masks import masks_made_elsewhere
from graphmend_bot.analysis.model import CallSite, Draft, FunctionSummary, ModuleSummary
from graphmend_bot.analysis.object_operands import object_operations
from graphmend_bot.analysis.opaque_sources import OPAQUE_CODES, OpaqueSources
from graphmend_bot.analysis.outside_callables import holds_outside_callable
from graphmend_bot.analysis.own_frame_managers import own_frame_entries
from graphmend_bot.analysis.passed_ranks import passed_rank_indices
from graphmend_bot.analysis.property_reads import setter_qualname
from graphmend_bot.analysis.public_api import (
    PUBLIC_API,
    TENSOR_API,
    compiles_something,
    exports_modules,
    is_package_module,
    knows_its_roots,
    library_roots,
    public_callables,
    roots_settled_by_what_is_read,
    signature_tensor_roots,
)
from graphmend_bot.analysis.pydantic_classes import pydantic_constructions
from graphmend_bot.analysis.receiver_breaks import ReceiverBreaks
from graphmend_bot.analysis.returned_holders import returned_holders
from graphmend_bot.analysis.scalar_returns import scalars_made_elsewhere
from graphmend_bot.analysis.skipped_frames import breaking_try_bodies, comprehension_findings
from graphmend_bot.analysis.str_enums import str_enum_findings
from graphmend_bot.analysis.subclass_inits import subclass_init_constructions
from graphmend_bot.analysis.subclass_methods import subclass_method_calls
from graphmend_bot.analysis.super_calls import PROPERTY_READ, object_method_super_calls
from graphmend_bot.analysis.tensor_constructions import tensor_constructions
from graphmend_bot.analysis.torch_function_overrides import torch_function_overrides
from graphmend_bot.analysis.torch_layers import LayerResult, layer_result
from graphmend_bot.analysis.typed_dicts import typed_dict_constructions
from graphmend_bot.analysis.untraced_callers import UntracedCallers
from graphmend_bot.analysis.value_class import is_property
from graphmend_bot.vocabulary.kind import CallResult, Kind

FunctionId = tuple[str, str]  # (module, qualname)
Callers = dict[FunctionId, set[FunctionId]]  # callee -> its traced callers (_TensorFlow.callers)
MODULE_BASES = ("torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module")


class BreakingFunctions:
    """The functions that break, asked about one at a time, and only so: every `in` is recorded
    in `asked`, which a solved state keeps (redraft.py: a function may start or stop breaking
    without a solve when no pass asked about it or about a traced function calling it)."""

    __slots__ = ("_asked", "_functions")

    def __init__(self, functions: set[FunctionId], asked: set[FunctionId]) -> None:
        self._functions = functions
        self._asked = asked

    def __contains__(self, fid: object) -> bool:
        self._asked.add(fid)  # type: ignore[arg-type]  # the passes ask about FunctionIds
        return fid in self._functions


@dataclass(frozen=True)
class TracedDraft:
    module: ModuleSummary
    function: FunctionSummary
    draft: Draft
    # The summary's draft that `draft` was made from with another message (Draft.in_every_mode):
    # redraft.solved_facts finds a draft in its summary by identity.
    made_from: Draft | None = None


class Program:
    def __init__(self, modules: Iterable[ModuleSummary], extra_entry_points: Iterable[str] = (),
                 dependencies: Iterable[ModuleSummary] = (), scope: str = "model",
                 source_of: Callable[[str], str] = read_source, unread_imports: UnreadImports = ()) -> None:
        self.modules = {m.module: m for m in modules}
        # What the files the prefilter did not summarise import: a call from one is never seen.
        self.unread_imports = unread_imports
        # The text a module was summarised from (a rewrite not yet written, in `--fix`), for the
        # few findings made here from a call site's row (GM620).
        self.source_of = source_of
        self._dropped_results = DroppedResults(source_of)
        # The paths whose rows past what redraft.py compares the solve read (the conditional blocks
        # an eager rest ends with, `conditional_spans`): kept as the texts read are (incremental.py).
        self.rows_read: set[str] = set()
        # Modules of configured dependencies: followed by calls, never entry points or reported.
        extra = [m for m in dependencies if m.module not in self.modules]
        self.dependency_modules = frozenset(m.module for m in extra)
        self.modules.update((m.module, m) for m in extra)
        # Every function by its id, for `function`: the solver asks over half a million times on
        # a large tree, and one lookup by the pair takes a quarter less than two nested ones.
        self._functions: dict[FunctionId, FunctionSummary] = {
            (name, qualname): function for name, summary in self.modules.items()
            for qualname, function in summary.functions.items()
        }
        # The function of an id: the dict's own lookup, called with no Python frame in between
        # (a method wrapping it was a twentieth of the solve on transformers 5.24).
        self.function: Callable[[FunctionId], FunctionSummary] = self._functions.__getitem__
        self.extra_entry_points = list(extra_entry_points)
        self._module_classes: dict[tuple[str, str], bool] = {}
        self._hierarchy: ClassHierarchy | None = None
        self._resolved_calls: dict[tuple[FunctionId, str], list[FunctionId]] = {}
        self._successors_found: dict[FunctionId, list[FunctionId]] = {}
        self._overrides_found: dict[tuple[str, str, str], list[FunctionId]] = {}
        self._constructors_found: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
        self._bound_attributes_found: dict[tuple[str, str, str], list[FunctionId]] = {}
        self._resolved_names: dict[tuple[str, str], tuple[str, str, str] | None] = {}
        self._methods_found: dict[tuple[str, str, str, bool], FunctionId | None] = {}
        self._bases_found: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._search_orders: dict[tuple[str, str], list[tuple[str, str, frozenset[str]]]] = {}  # _search_order
        self._method_names: dict[tuple[str, str], frozenset[str]] = {}  # per class, for _search_order
        self._wrappers_found: dict[tuple[FunctionId, int], list[FunctionId]] = {}
        self._factory_instances_found: dict[tuple[FunctionId, int], list[tuple[str, str]]] = {}
        self._classes_by_name: dict[str, list[tuple[str, str]]] | None = None  # _named_class
        # per `__init__`, (place or keyword, module, name) of what its builders pass (given_values)
        self._given_to: dict[FunctionId, list[tuple[str, str, str]]] | None = None
        # (dotted name called, method) pairs resolved through a module-level instance (instance_bound)
        self._instance_bound: set[tuple[str, FunctionId]] = set()
        self._scope = scope  # "model", "library", or "auto" (public_api.py decides on first use)
        self._library_roots: set[FunctionId] | None = None
        self._tensor_api: set[FunctionId] | None = None
        self._public: set[FunctionId] | None = None
        self._traced: set[FunctionId] | None = None
        self._surely_compiled: set[FunctionId] | None = None
        self._traced_order: list[FunctionId] | None = None
        self._traced_own: list[tuple[FunctionId, FunctionSummary]] | None = None  # traced_holding's
        self._model_entries: set[FunctionId] | None = None
        self._helper_roots: set[FunctionId] | None = None
        # After traced_drafts: the tensor flow it solved, the findings before the consequence
        # passes (what makes a function break) and all of them (a solved state keeps what they settled).
        self.solved: tuple[_TensorFlow, list[TracedDraft], list[TracedDraft]] | None = None
        # After traced_drafts: the functions whose "breaks?" a consequence pass asked (BreakingFunctions)
        self.break_asked: set[FunctionId] = set()
        # After traced_drafts: the modes breaks below a call are confined to, when a GM605 asked (callee_modes.py)
        self.callee_modes: CalleeModes | None = None

    @property
    def hierarchy(self) -> ClassHierarchy:
        """Subclasses within the tree, indexed once on first use."""
        if self._hierarchy is None:
            self._hierarchy = ClassHierarchy(
                ((mod, cls), list(self._base_classes(mod, cls)))
                for mod, summary in self.modules.items()
                for cls in summary.classes
            )
        return self._hierarchy

    # ---- name resolution ----------------------------------------------------------------
    def _split_qualified(self, dotted: str) -> tuple[str, str] | None:
        """Split `pkg.mod.Class.method` into a checked module and a name inside it."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return module, ".".join(parts[cut:])
        return None

    def _lookup(self, module: str, name: str) -> tuple[str, str, str] | None:
        """Find `name` defined in `module` or re-exported by it: ("function"|"class", mod, qualname)."""
        return self._through_imports(module, name, _defined_here)

    def _through_imports(self, module: str, name: str, here: Callable[[ModuleSummary, str], _Found | None],
                         depth: int = 0) -> _Found | None:
        """What `here` finds for `name` in `module`, or in the module it imports the name from."""
        summary = self.modules.get(module)
        if summary is None or depth > 5:
            return None
        found = here(summary, name)
        if found is not None:
            return found
        head, _, rest = name.partition(".")
        imported = summary.imports.get(head)
        if imported is not None:
            target = f"{imported}.{rest}" if rest else imported
            split = self._split_qualified(target)
            if split is not None:
                return self._through_imports(split[0], split[1], here, depth + 1)
        # `from .affine import *` re-exports; later imports shadow earlier ones
        for star in reversed(summary.star_imports):
            found = self._through_imports(star, name, here, depth + 1)
            if found is not None:
                return found
        return None

    def _method(self, module: str, class_qualname: str, name: str, skip_self: bool = False) -> FunctionId | None:
        """Method resolution along in-tree bases (depth-first, which matches simple MROs).
        Memoised, as resolve_call: the solver asks for the same methods of the same classes again
        and again (a base's `__init__` and `forward` once per subclass and call site)."""
        key = (module, class_qualname, name, skip_self)
        if key in self._methods_found:
            return self._methods_found[key]
        found = self._methods_found[key] = self._find_method(module, class_qualname, name, skip_self)
        return found

    def _find_method(self, module: str, class_qualname: str, name: str, skip_self: bool) -> FunctionId | None:
        for mod, cls, methods in self._search_order(module, class_qualname):
            if name in methods and not (skip_self and mod == module and cls == class_qualname):
                return mod, f"{cls}.{name}"
        return None

    def _search_order(self, module: str, class_qualname: str) -> list[tuple[str, str, frozenset[str]]]:
        """The classes _find_method searches, in order, each with its method names: the class, then
        its in-tree bases breadth-first, each once (a class the tree lacks ends its branch).
        Memoised (shared, never to be changed): transformers 5.x asks for 54k (class, name) pairs,
        and walking the bases and scanning each class's method tuple again for every name cost
        a quarter more than this."""
        key = (module, class_qualname)
        order = self._search_orders.get(key)
        if order is None:
            order = self._search_orders[key] = []
            seen: set[tuple[str, str]] = set()
            queue = deque([key])
            while queue:
                mod, cls = queue.popleft()
                if (mod, cls) in seen:
                    continue
                seen.add((mod, cls))
                summary = self.modules[mod].classes.get(cls)
                if summary is None:
                    continue
                methods = self._method_names.get((mod, cls))
                if methods is None:
                    methods = self._method_names[(mod, cls)] = frozenset(summary.methods)
                order.append((mod, cls, methods))
                queue.extend(self._base_classes(mod, cls))
        return order

    def _super_start(self, module: str, class_qualname: str, start: str) -> tuple[str, str]:
        """The class whose bases `super(START, self)` searches: START among the enclosing class
        and its in-tree bases (linear_operator's `super(TriangularLinearOperator, self)` in a
        subclass of DiagLinearOperator), else the enclosing class."""
        seen: set[tuple[str, str]] = set()
        stack = [(module, class_qualname)] if start else []
        while stack:
            mod, cls = stack.pop(0)
            if (mod, cls) in seen:
                continue
            seen.add((mod, cls))
            if cls.rpartition(".")[2] == start:
                return mod, cls
            stack.extend(self._base_classes(mod, cls))
        return module, class_qualname

    def _attribute_constructor(self, module: str, class_qualname: str, attribute: str) -> tuple[str, str] | None:
        """(module, callee) of `self.ATTRIBUTE = callee(...)` in the class's or a base's __init__."""
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
                return mod, constructor
            stack.extend(self._base_classes(mod, cls))
        return None

    def _submodule_forward(self, module: str, class_qualname: str, attribute: str) -> list[FunctionId]:
        """`self.encoder(...)`: the forward (or __call__) of the in-tree class assigned to
        self.encoder; `self.schedule(t)`: the closure `self.schedule = self._make(...)` returns."""
        return [
            target
            for mod, constructor in self._attribute_constructors(module, class_qualname, attribute)
            for target in self._built_attribute_call(module, class_qualname, mod, constructor)
        ] or self._call_values(self.given_values(module, class_qualname, attribute))

    def _shadowing_closures(self, module: str, class_qualname: str, name: str) -> list[FunctionId]:
        """`self.update(x)` where `__init__` did `self.update = self._wrap_update(self.update)`: the
        instance attribute shadows the method, so the closure the factory returns runs, and it
        calls the method (torchmetrics' Metric; Dynamo traces the closure, measured on torch 2.13).
        Only a factory of the class (`self._wrap(...)`) or another bound method (`self.update =
        self._update_fast`) counts: a submodule built under a method's name is left to the method."""
        return [
            target
            for mod, constructor in self._attribute_constructors(module, class_qualname, name)
            if constructor.startswith(("self.", bound_methods.PREFIX))
            for target in self._built_attribute_call(module, class_qualname, mod, constructor)
        ]

    def _attribute_constructors(self, module: str, class_qualname: str, attribute: str) -> list[tuple[str, str]]:
        """Where `self.ATTRIBUTE` is built: in the class or a base, else in the subclasses that set it
        (kornia's base class calls `self._param_generator(...)`, each augmentation builds its own).
        Memoised, as resolve_call (a base with a thousand subclasses is asked once per call site):
        the list returned is shared, never to be changed."""
        key = (module, class_qualname, attribute)
        constructors = self._constructors_found.get(key)
        if constructors is None:
            found = self._attribute_constructor(module, class_qualname, attribute)
            constructors = self._constructors_found[key] = [found] if found is not None else [
                (mod, constructor)
                for mod, cls in self.hierarchy.descendants((module, class_qualname))
                if (constructor := self.modules[mod].classes[cls].attributes.get(attribute)) is not None
            ]
        return constructors

    def held_constructors(self, module: str, class_qualname: str, attribute: str) -> list[str]:
        """What may have built the object `self.ATTRIBUTE(...)` calls (qualified names, "torch.nn.LSTM"),
        or nothing when ATTRIBUTE is a method of the class."""
        if self._method(module, class_qualname, attribute) is not None:
            return []
        return [constructor for _, constructor in self._attribute_constructors(module, class_qualname, attribute)]

    def held_classes(self, cls: tuple[str, str], attribute: str) -> list[tuple[str, str]]:
        """The in-tree classes `self.ATTRIBUTE` of class `cls` is built or typed with."""
        return [
            built
            for found in self._attribute_constructors(cls[0], cls[1], attribute)
            for built in self._classes_built_by(*found)
        ]

    def _built_attribute_call(self, module: str, class_qualname: str, mod: str, constructor: str) -> list[FunctionId]:
        if constructor.startswith(bound_methods.PREFIX):  # `self.NAME = self.m` (bound_methods.py)
            return self._held_methods([(module, class_qualname)], constructor)
        if constructor.startswith(held_functions.PREFIX):  # `self.NAME = f if c else g` (held_functions.py)
            return [
                (found[1], found[2])
                for name in held_functions.decode(constructor)
                if (found := self._resolve_dotted(mod, name)) is not None and found[0] == "function"
            ]
        if constructor.startswith("self."):
            factory = self._method(mod, class_qualname, constructor[len("self."):]) or self._method(
                module, class_qualname, constructor[len("self."):]
            )
            if factory is None:  # `self.Js[k] = self.JacobianClass(...)`: an instance of a class held
                classes = self._given_classes(module, class_qualname, constructor[len("self."):])
                return [called for cls in classes if (called := self._call_method(*cls))]
            return self._call_values(self._returned_values(factory))
        classes = self._classes_built_by(mod, constructor)
        if constructor.startswith("typed:"):
            # an instance of the annotated class or of any subclass: each one's forward, and the
            # __call__ the tree defines for them (gpytorch's Likelihood.__call__ runs marginal)
            return self._methods_of_instances(classes, "forward") + self._methods_of_instances(classes, "__call__")
        return [called for cls in classes if (called := self._call_method(*cls))] + self._functions_returned_by(
            mod, constructor
        )

    def _functions_returned_by(self, module: str, callee: str) -> list[FunctionId]:
        """`self.contract = pick_contraction(kind)` and then `self.contract(x, w)`: what the factory
        function of the tree returns by name (a module-level function, a closure, a class), as for a
        local (`f = make(...)`, `f(x)`) and a factory method (`self.f = self._make(...)`)."""
        found = self._resolve_dotted(module, callee)
        if found is None or found[0] != "function":
            return []
        return self._call_values(self._returned_values((found[1], found[2])))

    def _call_method(self, module: str, class_qualname: str) -> FunctionId | None:
        """What calling an instance runs: an nn.Module's forward, else __call__."""
        return self._method(module, class_qualname, "forward") or self._method(module, class_qualname, "__call__")

    def _classes_built_by(self, module: str, callee: str) -> list[tuple[str, str]]:
        """The in-tree classes `callee(...)` makes an instance of: the class it names, or those a
        factory function it names returns instances of (`make_dist(...)`)."""
        found = self._resolve_dotted(module, callee.removeprefix("typed:"))
        if found is None:
            return self._named_class(callee.removeprefix("typed:")) if callee.startswith("typed:") else []
        if found[0] == "class":
            return [(found[1], found[2])]
        return [] if callee.startswith("typed:") else self._factory_instances((found[1], found[2]))

    def _named_class(self, name: str) -> list[tuple[str, str]]:
        """The one top-level class of the tree named `name` when the module naming it does not
        import it: a docstring's type (`model (:obj:`System`)`) is a cross-reference Sphinx
        resolves across the package. Two classes of that name resolve to neither."""
        if self._classes_by_name is None:
            self._classes_by_name = {}
            for mod, summary in self.modules.items():
                if mod not in self.dependency_modules:
                    for cls in summary.classes:
                        if "." not in cls:
                            self._classes_by_name.setdefault(cls, []).append((mod, cls))
        found = self._classes_by_name.get(name, [])
        return found if len(found) == 1 else []

    def _made_by_own_factory(self, module: str, class_qualname: str, constructor: str) -> list[tuple[str, str]]:
        """The in-tree classes `self.NAME = self.make()` may hold in an instance of the class:
        those `make` returns instances of, or the override of a subclass does (each of
        pytorch_metric_learning's losses overrides `get_default_distance`)."""
        if not constructor.startswith("self."):
            return []
        name = constructor[len("self."):]
        method = self._method(module, class_qualname, name)
        factories = [*([method] if method is not None else []), *self._overrides(module, class_qualname, name)]
        if not factories:  # `self.layers.append(self.layer_class())`: the class the object was given
            return self._given_classes(module, class_qualname, name)
        return [cls for factory in factories for cls in self._factory_instances(factory)]

    def _given_classes(self, module: str, class_qualname: str, attribute: str) -> list[tuple[str, str]]:
        """The in-tree classes `self.ATTRIBUTE` holds when the object's builders pass them to its
        `__init__` (given_callables.py)."""
        return [(mod, target) for what, mod, target in self.given_values(module, class_qualname, attribute)
                if what == "class"]

    def given_values(self, module: str, class_qualname: str, attribute: str) -> list[tuple[str, str, str]]:
        """What `self.ATTRIBUTE` holds when the first of the class and its bases whose `__init__`
        stores a parameter there (ClassSummary.given) is built: the classes and functions of the
        tree the calls building it, or a subclass's `super().__init__(...)`, pass to it."""
        for mod, cls in self.class_and_bases(module, class_qualname):
            given = self.modules[mod].classes[cls].given.get(attribute)
            if given is None:
                continue
            index, param = given
            passed = self._builders_passing().get((mod, f"{cls}.__init__"), [])
            return [
                found
                for slot, passed_in, name in passed
                if slot in (str(index), param) and (found := self._resolve_dotted(passed_in, name)) is not None
                and found[0] in ("class", "function")
            ]
        return []

    def _builders_passing(self) -> dict[FunctionId, list[tuple[str, str, str]]]:
        """Per `__init__` of the tree, (place or keyword, module, name) of the names the calls
        reaching it pass. Indexed once, on the first attribute so recorded."""
        if self._given_to is None:
            self._given_to = {}
            for module, summary in self.modules.items():
                for callee, slot, name in summary.given_arguments:
                    if callee.startswith("super:"):
                        init = self._method(module, callee[len("super:"):], "__init__", skip_self=True)
                    else:
                        found = self._resolve_dotted(module, callee)
                        init = self._method(found[1], found[2], "__init__") if found and found[0] == "class" else None
                    if init is not None:
                        self._given_to.setdefault(init, []).append((slot, module, name))
        return self._given_to

    def _factory_instances(self, factory: FunctionId, depth: int = 0) -> list[tuple[str, str]]:
        """The in-tree classes whose instances `factory` returns: `return CategoricalDistribution(n)`
        in stable_baselines3's `make_proba_distribution`, through two more factories it returns the
        result of at most. Memoised (shared, never to be changed): every call of an attribute the
        factory built asks."""
        key = (factory, depth)
        found = self._factory_instances_found.get(key)
        if found is not None:
            return found
        found = self._factory_instances_found[key] = []
        function = self.function(factory)
        for result in function.returns.calls:
            kind, _, name = function.calls[result.site].ref.partition(":")
            if result.element is not None or kind not in ("name", "dotted"):
                continue
            value = self._resolve_dotted(factory[0], name)
            if value is not None and value[0] == "class":
                found.append((value[1], value[2]))
            elif value is not None and depth < 2 and (value[1], value[2]) != factory:
                found.extend(self._factory_instances((value[1], value[2]), depth + 1))
        return found

    def _returned_values(self, factory: FunctionId) -> list[tuple[str, str, str]]:
        """The classes and functions `factory` returns by name (`return _closure`, `return Euler`)."""
        return [value for name in self.function(factory).returned_functions
                if (value := self._returned_value(factory, name)) is not None]

    def _returned_value(self, factory: FunctionId, name: str) -> tuple[str, str, str] | None:
        """What the name `factory` returns is: a closure nested in it, or what the module names so."""
        module, qualname = factory
        nested = f"{qualname}.{name}"
        if nested in self.modules[module].functions:
            return ("function", module, nested)
        return self._resolve_dotted(module, name)

    def _element_calls(self, fid: FunctionId, element: str) -> list[FunctionId]:
        """`unpack_one(y)` after `packed, unpack_one = pack_one(x)` ("INDEX>REF"): the function each
        callee of REF returns at place INDEX of its tuple (vector_quantize_pytorch's `pack_one`
        returns its closure beside the packed tensor; Dynamo traces the closure)."""
        index, _, constructor = element.partition(">")
        return self._call_values([
            value
            for factory in self.resolve_call(fid, constructor) if factory in self._functions
            for place, name in self.function(factory).returned_element_functions
            if str(place) == index and (value := self._returned_value(factory, name)) is not None
        ])

    def _call_values(self, values: list[tuple[str, str, str]]) -> list[FunctionId]:
        """What calling one of `values` runs: a function itself, a class its __init__."""
        return [
            target
            for what, mod, value in values
            for target in ([(mod, value)] if what == "function" else self._initializer(mod, value))
        ]

    def _registry_values(self, module: str, name: str) -> list[tuple[str, str, str]]:
        """What `NAME[key]` may be, for a registry dict NAME defined in or imported into module,
        or a module-level object NAME whose class looks keys up in its own tables."""
        summary = self.modules[module]
        values = summary.registries.get(name)
        if values is None:
            imported = summary.imports.get(name)
            split = self._split_qualified(imported) if imported else None
            if split is None or split[0] not in self.modules:
                return self._mapping_values(module, name)
            module, values = split[0], self.modules[split[0]].registries.get(split[1])
            if values is None:
                return self._mapping_values(module, split[1])
        return [found for value in values if (found := self._resolve_dotted(module, value)) is not None]

    def _mapping_values(self, module: str, name: str) -> list[tuple[str, str, str]]:
        """`ALL_MASK_ATTENTION_FUNCTIONS[key]` on a module-level instance of a class with a
        `__getitem__` (transformers' GeneralInterface, a MutableMapping): the functions and classes
        the dict tables of its class body hold (`_global_mapping = {"sdpa": sdpa_mask, ...}`), each
        table as the first of the class and its bases to bind that name defines it. Dynamo inlines
        `__getitem__` and calls what it returns (measured on torch 2.13, tests/test_scope_given.py)."""
        built = self._module_instance(module, name)
        found: list[tuple[str, str, str]] = []
        for cls in self._classes_built_by(*built) if built is not None else []:
            if self._method(*cls, "__getitem__") is None:
                continue
            seen: set[str] = set()
            for mod, owner in self.class_and_bases(*cls):
                for table, values in self.modules[mod].classes[owner].tables.items():
                    if table not in seen:
                        seen.add(table)
                        found += [value for name in values if (value := self._resolve_dotted(mod, name)) is not None]
        return found

    def _constructed_classes(self, fid: FunctionId, constructor: str) -> list[tuple[str, str]]:
        """The in-tree classes an object may be an instance of, from the ref of its constructor."""
        module, class_qualname = fid[0], self.self_class(fid)
        kind, _, name = constructor.partition(":")
        if kind == "attr":
            if class_qualname is None:
                return []
            return [
                cls
                for found in self._attribute_constructors(module, class_qualname, name)
                for cls in (self._classes_built_by(*found) or self._made_by_own_factory(module, class_qualname, found[1]))
            ] or value_classes(self, fid, constructor)  # a property's return annotation
        if kind in ("self", "typed", "member", "result"):
            return value_classes(self, fid, constructor)
        if kind == "registry":
            return [(mod, target) for what, mod, target in self._registry_values(module, name) if what == "class"]
        if kind == "returned":
            return [
                (mod, target)
                for factory in self.resolve_call(fid, name)
                for what, mod, target in self._returned_values(factory)
                if what == "class"
            ]
        if kind in ("name", "dotted"):
            return self._classes_built_by(module, name)
        if kind == "held":  # `TABLE[k]` on a module-level `TABLE = Table()` (imported, too)
            built = self._module_instance(module, name)
            return self._classes_built_by(*built) if built is not None else []
        return []

    def constructed_classes(self, fid: FunctionId, constructor: str) -> list[tuple[str, str]]:
        """The in-tree classes an object `fid` calls a method of may be, from its constructor's ref."""
        return self._constructed_classes(fid, constructor)

    def _methods_of_instances(self, classes: list[tuple[str, str]], name: str) -> list[FunctionId]:
        """`obj.name(...)` on an instance of any of `classes` or of their in-tree subclasses."""
        found: list[FunctionId] = []
        for mod, cls in classes:
            method = self._method(mod, cls, name)
            if method is not None:
                found.append(method)
            found.extend(self._overrides(mod, cls, name))
            if method is None:
                found.extend(self._bound_method_attribute(mod, cls, name))
        return found

    def _bound_method_attribute(self, module: str, class_qualname: str, name: str) -> list[FunctionId]:
        """`obj.NAME(...)` where NAME is no method but an attribute holding the object's own bound
        methods (`self.NAME = {...: self.m_a}.get(key, self.m_b)`), set in the class or a subclass.
        Memoised as _attribute_constructors."""
        key = (module, class_qualname, name)
        targets = self._bound_attributes_found.get(key)
        if targets is None:
            targets = self._bound_attributes_found[key] = [
                target
                for mod, cls in [(module, class_qualname), *self.hierarchy.descendants((module, class_qualname))]
                if (held := self.modules[mod].classes[cls].attributes.get(name, "")).startswith(bound_methods.PREFIX)
                for target in self._held_methods([(mod, cls)], held)
            ]
        return targets

    def _held_methods(self, classes: list[tuple[str, str]], attribute: str) -> list[FunctionId]:
        """The methods (and their overrides) a bound-method attribute of `classes` may hold."""
        return [
            target
            for name in bound_methods.decode(attribute)
            for mod, cls in classes
            for target in [self._method(mod, cls, name), *self._overrides(mod, cls, name)]
            if target is not None
        ]

    def _overrides(self, module: str, class_qualname: str, name: str) -> list[FunctionId]:
        """Methods named `name` that subclasses in the tree define: `self.name()` may run them.
        Memoised, as resolve_call: the list returned is shared, never to be changed."""
        key = (module, class_qualname, name)
        found = self._overrides_found.get(key)
        if found is None:
            found = self._overrides_found[key] = [
                (mod, f"{cls}.{name}")
                for mod, cls in self.hierarchy.descendants((module, class_qualname))
                if name in self.modules[mod].classes[cls].methods
            ]
        return found

    def _base_classes(self, module: str, class_qualname: str) -> list[tuple[str, str]]:
        """The in-tree bases of a class, in order. Memoised (shared, never to be changed): every
        method lookup and attribute search walks them."""
        key = (module, class_qualname)
        bases = self._bases_found.get(key)
        if bases is None:
            bases = self._bases_found[key] = [
                (found[1], found[2])
                for base in self.modules[module].classes[class_qualname].bases
                if (found := self._resolve_dotted(module, base)) is not None and found[0] == "class"
            ]
        return bases

    def _resolve_dotted(self, module: str, dotted: str) -> tuple[str, str, str] | None:
        """Memoised: the scope walk, the solver and the findings resolve the same names (bases,
        references, decorators) again and again, and the modules never change in a Program."""
        key = (module, dotted)
        if key in self._resolved_names:
            return self._resolved_names[key]
        found = self._lookup(module, dotted)
        if found is None:
            split = self._split_qualified(dotted)
            if split is not None:
                found = self._lookup(*split)
        self._resolved_names[key] = found
        return found

    def is_module_class(self, module: str, class_qualname: str) -> bool:
        key = (module, class_qualname)
        if key not in self._module_classes:
            self._module_classes[key] = False  # cycles end here
            summary = self.modules[module].classes[class_qualname]
            result = False
            for base in summary.bases:
                found = self._resolve_dotted(module, base)
                # By name first: with torch itself in `dependencies`, nn.Module resolves to torch's
                # own class, whose bases say nothing of being a module.
                if base in MODULE_BASES:
                    result = True
                elif found is not None and found[0] == "class":
                    result = f"{found[1]}.{found[2]}" in MODULE_BASES or self.is_module_class(found[1], found[2])
                elif base.startswith("torch.nn."):
                    result = True
                elif found is None and "forward" in summary.methods:
                    result = True  # an external base of a class with forward: a module by duck typing
                if result:
                    break
            self._module_classes[key] = result
        return self._module_classes[key]

    def resolve_call(self, fid: FunctionId, site_ref: str) -> list[FunctionId]:
        """What a call site may run. Memoised: the scope walk and the tensor-flow solver ask for
        every site of every traced function; the list returned is shared, never to be changed."""
        key = (fid, site_ref)
        targets = self._resolved_calls.get(key)
        if targets is None:
            targets = self._resolved_calls[key] = self._resolve_call(fid, site_ref)
        return targets

    def _resolve_call(self, fid: FunctionId, site_ref: str) -> list[FunctionId]:
        module = fid[0]
        kind, _, name = site_ref.partition(":")
        function = self.function(fid)
        if kind == "instance":
            constructor, _, method_name = name.rpartition(">")
            classes = self._constructed_classes(fid, constructor)
            targets = self._methods_of_instances(classes, method_name)
            if not targets and method_name in operator_dunders.FALLBACKS:  # `if box:` with no `__bool__`: `__len__`
                targets = self._methods_of_instances(classes, operator_dunders.FALLBACKS[method_name])
            if method_name == "__call__":  # `net(x)` on an nn.Module of the tree: its forward runs
                targets = targets + module_forwards(self, classes)
            if method_name == "__call__" and constructor != "self" and not constructor.startswith(
                ("returned:", "typed:", "member:", "result:")  # not built by a call here
            ):
                # f(...) where f = make(...): what make returns runs (a closure, a class's __init__)
                targets += [
                    target
                    for factory in self.resolve_call(fid, constructor)
                    if self.function(factory).name != "__init__"
                    for target in self._call_values(self._returned_values(factory))
                ]
            return targets
        if kind == "registry":
            return self._call_values(self._registry_values(module, name))
        if kind == "element":
            return self._element_calls(fid, name)
        if kind == "getter":  # a property read on a value of a known class (value_class.py)
            return self._property_getters(fid, name)
        if kind == "setter":  # `self.NAME = v` on a property: its setter runs
            return self._property_setters(fid, name.rpartition(">")[2])
        if kind == "super":
            if function.class_qualname is None:
                return []
            name, _, start = name.partition("@")
            mod, cls = self._super_start(module, function.class_qualname, start)
            method = self._method(mod, cls, name, skip_self=True)
            return [method] if method else []
        if kind == "self":
            own = self.self_class(fid)
            if own is None:
                return []
            if name.endswith("*"):  # getattr(self, f"m_{kind}")(...)
                return self._methods_named_from(module, own, name[:-1])
            method = self._method(module, own, name)
            overrides = self._overrides(module, own, name)
            if method is None:
                return overrides or self._submodule_forward(module, own, name)
            return [method, *overrides, *self._shadowing_closures(module, own, name)]
        if kind == "name" and (own := classmethod_class(name, function.decorators, function.class_qualname)):
            kind, _, name = own.partition(":")  # `cls(...)` in a classmethod: its class's `__init__`
        if kind == "name" and (nested := self._nested_function(fid, name)) is not None:
            return [nested]
        found = self._resolve_dotted(module, name)
        if found is None:
            return (self._module_instance_calls(module, name) or self._autograd_forward(module, name)
                    or self._inherited_class_method(module, name))
        what, mod, target = found
        if what == "function":
            return [(mod, target)]
        return self._initializer(mod, target)

    def _nested_function(self, fid: FunctionId, name: str) -> FunctionId | None:
        """The function `name` is nested in `fid` or in an enclosing function (a wrapper's sibling
        helper). Class bodies are not enclosing scopes, so the walk stops at the first non-function."""
        module, scope = fid
        functions = self.modules[module].functions
        while scope in functions:
            nested = f"{scope}.{name}"
            if nested in functions:
                return module, nested
            scope = scope.rpartition(".")[0]
        return None

    def _module_instance_calls(self, module: str, name: str) -> list[FunctionId]:
        """`COUNTER.bump(x)` or `COUNTER(x)` (also `registry.COUNTER(x)`, imported) where a module
        of the tree binds `COUNTER = Counter(...)`: the method of the in-tree class it was built
        from (or that the factory it names returns), as Dynamo traces it. Such a method receives
        the object as `self`, so the call is recorded as bound (`instance_bound`)."""
        owner, _, method = name.rpartition(".")
        for held, called in ((name, "__call__"), (owner, method)):
            built = self._module_instance(module, held) if held else None
            if built is None:
                continue
            classes = self._classes_built_by(*built)
            targets = [
                target for cls in classes
                if (target := self._call_method(*cls) if called == "__call__" else self._method(*cls, called))
            ]
            self._instance_bound.update((name, target) for target in targets)
            return targets
        return []

    def _inherited_class_method(self, module: str, name: str) -> list[FunctionId]:
        """`settings.max_cholesky_size.value()`: a method the named class inherits from an in-tree
        base (a classmethod or staticmethod called on the class), which names no function of the
        class itself. `Fn.apply` is left to _autograd_forward."""
        owner, _, method = name.rpartition(".")
        found = self._resolve_dotted(module, owner) if owner and method != "apply" else None
        if found is None or found[0] != "class":
            return []
        target = self._method(found[1], found[2], method)
        return [target] if target is not None else []

    def _module_instance(self, module: str, name: str) -> tuple[str, str] | None:
        """(module, callee) of the module-level `NAME = callee(...)` that `name` refers to from
        `module`: defined there, imported (`from .registry import COUNTER`, `registry.COUNTER`) or
        star-imported, as _lookup follows names."""
        found = self._through_imports(module, name, _instance_here)
        if found is None and (split := self._split_qualified(name)) is not None:  # `pkg.registry.COUNTER`
            found = self._through_imports(*split, _instance_here)
        return None if found is None else (found[1], found[2])

    def module_builder(self, module: str, name: str) -> str | None:
        """What built the module-level object `name` refers to from `module` (`NAME = callee(...)`,
        defined there or imported), as summary.py names it; None when no such object."""
        found = self._module_instance(module, name)
        return None if found is None else found[1]

    def first_param_implicit(self, site: CallSite, callee: FunctionId) -> bool:
        """Whether the call passes `callee`'s first parameter itself: `self` of a method called bound
        or through a module-level instance, of an `__init__`; `cls` of a classmethod however it is
        called (`Beam.build(x)` binds x to the second parameter)."""
        function = self.function(callee)
        if function.class_qualname is None or "staticmethod" in function.decorators:
            return False
        return (site.bound or function.name == "__init__" or "classmethod" in function.decorators
                or self.instance_bound(site.ref, callee))

    def instance_bound(self, ref: str, callee: FunctionId) -> bool:
        """Whether `callee` was reached from a call `ref` ("dotted:COUNTER.bump") through a
        module-level instance: the object is then its `self`."""
        kind, _, name = ref.partition(":")
        return kind in ("name", "dotted") and (name, callee) in self._instance_bound

    def _property_setters(self, fid: FunctionId, name: str) -> list[FunctionId]:
        """The setter `self.NAME = v` runs: of the class's property NAME (its own or a base's of the tree)."""
        own = self.self_class(fid)
        getter = self._method(fid[0], own, name) if own is not None else None
        if getter is None or not is_property(self.function(getter).decorators):
            return []
        setter = (getter[0], setter_qualname(getter[1]))
        return [setter] if setter in self._functions else []

    def _property_getters(self, fid: FunctionId, ref: str) -> list[FunctionId]:
        """The properties a read runs, of the tree or a dependency. Dynamo inlines the getter and
        reports a break inside it at its own line (measured on torch 2.13: `.item()`, a branch on
        a tensor, `print` in the getter of an nn.Module, of a plain object built in the frame or
        passed in; a torch.distributions subclass built in the frame also breaks at the read, as
        step_unsupported, and then in the getter). For a dependency the read is where GM608
        reports what breaks inside."""
        if ref.startswith("self>"):
            own, name = self.self_class(fid), ref[len("self>"):]
            return [] if own is None else [
                method for method in [self._method(fid[0], own, name), *self._overrides(fid[0], own, name)]
                if method is not None and is_property(self.function(method).decorators)
            ]
        return property_getters(self, fid, ref)

    def self_class(self, fid: FunctionId) -> str | None:
        """The class whose instance `self` is in `fid`: a method's own, or, in a closure nested in
        one that does not bind `self` itself (torchmetrics' `wrapped_func` in `_wrap_compute`,
        calling `self.sync_context(...)`), the enclosing method's, whose `self` it closes over."""
        function = self.function(fid)
        functions = self.modules[fid[0]].functions
        scope = fid[1]
        while function.class_qualname is None and "self" not in function.params and "cls" not in function.params:
            scope = scope.rpartition(".")[0]
            if scope not in functions:
                return None
            function = functions[scope]
        return function.class_qualname

    def _initializer(self, module: str, class_qualname: str) -> list[FunctionId]:
        """`Cls(...)` runs Cls.__init__ in traced code, or, where `@dataclass` wrote the first
        `__init__` along the bases, the `__post_init__` that one calls (dataclass_inits.py); and
        first the `__new__` of the class or an in-tree base, which Dynamo inlines too (a tensor
        subclass's `__new__` included: measured on torch 2.13, test_scope_closures.py)."""
        new = self._method(module, class_qualname, "__new__")
        if self._generated_init(module, class_qualname):
            init = self._method(module, class_qualname, "__post_init__")
        else:
            init = self._method(module, class_qualname, "__init__")
        return [method for method in (new, init) if method is not None]

    def _generated_init(self, module: str, class_qualname: str) -> bool:
        """Whether the first class along the bases (as _find_method walks them) to have an
        `__init__` has it from `@dataclass`."""
        seen: set[tuple[str, str]] = set()
        stack = [(module, class_qualname)]
        while stack:
            mod, cls = stack.pop(0)
            summary = self.modules[mod].classes.get(cls)
            if (mod, cls) in seen or summary is None:
                continue
            seen.add((mod, cls))
            if summary.generated_init or "__init__" in summary.methods:
                return summary.generated_init
            stack.extend(self._base_classes(mod, cls))
        return False

    def _autograd_forward(self, module: str, name: str) -> list[FunctionId]:
        """`Fn.apply(a, b)` on an in-tree autograd.Function runs its static `forward(ctx, a, b)`,
        so that forward gets its tensors from the callers like any called function. A static
        `setup_context(ctx, inputs, output)` beside it runs too, and Dynamo traces it (measured on
        torch 2.13, test_scope_edges.py); it receives no argument of the call by position."""
        owner, _, method = name.rpartition(".")
        if method != "apply" or not owner:
            return []
        found = self._resolve_dotted(module, owner)
        if found is None or found[0] != "class":
            return []
        forward = self._method(found[1], found[2], "forward")
        setup = self._method(found[1], found[2], "setup_context")
        if setup is not None and not _is_setup_context(self.function(setup)):
            setup = None
        if forward is None or not _is_autograd_forward(self.function(forward)):
            return [setup] if setup is not None and forward is not None else []
        return [forward, *([setup] if setup is not None else [])]

    # ---- scope --------------------------------------------------------------------------
    @property
    def scope(self) -> str:
        """The scope in force: "library", "model", or one `auto` settles to (public_api.py):
        "public-api", the forwards and what is compiled of a package that exports nn.Modules or
        compiles kernels of its own and its public callables, or "tensor-api", a lone file's
        public callables on tensors."""
        if self._scope == "auto":
            package = any(is_package_module(summary) for module, summary in self.modules.items()
                          if module not in self.dependency_modules)
            if not package and not self.extra_entry_points and self._functional_lone_module():
                # a lone file is a script unless its signatures say it is tensor API (lone_modules.py)
                self._scope = TENSOR_API if self.scope_roots(TENSOR_API) else "model"
            elif not package or knows_its_roots(self) or not self.library_roots():
                self._scope = "model"
            elif not compiles_something(self) and not exports_modules(self):
                # Every public callable is the library scope's guess at what users compile; the
                # maintainer's entry points, when declared, say it instead.
                self._scope = "model" if self.extra_entry_points else "library"
            else:  # a package exporting nn.Modules, or compiling kernels of its own
                self._scope = PUBLIC_API
        return self._scope

    def _functional_lone_module(self) -> bool:
        """A single-module library of functions (lone_modules.py): no nn.Module, nothing compiled, so
        its users compile its functions, those on tensors (a helper of a script stays out). A lone
        file of models (a user's `model.py`) or one that compiles says where its roots are, and
        keeps the model scope."""
        return lone_library(self) is not None and not compiles_something(self) and not exports_modules(self)

    def knows_its_roots(self) -> bool:
        """Whether the tree compiles something itself (public_api.knows_its_roots)."""
        return knows_its_roots(self)

    def roots_settled_by_what_is_read(self) -> bool:
        """knows_its_roots as the modules read so far tell it (public_api.roots_settled_by_what_is_read)."""
        return roots_settled_by_what_is_read(self)

    def library_roots(self) -> set[FunctionId]:
        """The library scope's roots (public_api.py), whatever the scope."""
        if self._library_roots is None:
            self._library_roots = library_roots(self)
        return self._library_roots

    def public_callables(self) -> set[FunctionId]:
        """The package's public functions and methods, builders included (public_api.py)."""
        if self._public is None:
            self._public = public_callables(self)
        return self._public

    def scope_roots(self, scope: str | None = None) -> set[FunctionId]:
        """The roots `scope` (default: the one in force) adds to the model scope's."""
        scope = scope or self.scope
        if scope == "library":
            return self.library_roots()
        if scope == PUBLIC_API:  # every public callable, as the library scope's
            return self.library_roots()
        if scope == TENSOR_API:  # a lone file's callables on tensors, not a script's helpers
            return self._signature_roots()
        return set()

    def _signature_roots(self) -> set[FunctionId]:
        if self._tensor_api is None:
            self._tensor_api = signature_tensor_roots(self)
        return self._tensor_api

    def surely_compiled(self) -> set[FunctionId]:
        """The traced functions the roots users surely compile reach: in the public-api scope the
        forwards, what is compiled, and the public callables whose signatures name tensors
        (public_api.signature_tensor_roots); in the others every traced function. What these
        construct is built in compiled code (held_contexts.holder_built_in_traced_code); a public
        callable that only may be compiled (`make_private(optimizer)`) builds at setup as often,
        and the object reaches a compiled `step` from outside. Memoised."""
        if self._surely_compiled is None:
            if self.scope == PUBLIC_API:
                roots = self.model_entry_points() | self._signature_roots()
                self._surely_compiled = self._closure(roots, self.successors)
            else:
                self._surely_compiled = self.traced_functions()
        return self._surely_compiled

    def public_api_reach(self) -> dict[FunctionId, str]:
        """Traced functions that only the scope's extra roots reach -> `module.qualname` of the
        nearest such root: what a finding there says, since no forward explains it."""
        roots = sorted(self.scope_roots() - self.model_entry_points())
        if not roots:
            return {}
        by_model = self._closure(self.model_entry_points(), self.successors)
        reach: dict[FunctionId, str] = {}
        queue = deque((root, root) for root in roots if root not in by_model)
        while queue:  # breadth first from every root at once: each function gets its nearest root
            fid, root = queue.popleft()
            if fid in reach or fid in by_model or fid not in self._functions:
                continue
            reach[fid] = f"{root[0]}.{root[1]}"
            queue.extend((callee, root) for callee in self.successors(fid))
        return reach

    def entry_points(self) -> set[FunctionId]:
        return self.model_entry_points() | self.scope_roots()

    def model_entry_points(self) -> set[FunctionId]:
        """Forwards, what is compiled, and the configured entry points: the model scope's roots.
        Memoised (shared, never to be changed): the scope walk and public_api_reach both ask, and
        finding them looks at every function of the tree."""
        if self._model_entries is None:
            self._model_entries = self._find_model_entry_points()
        return self._model_entries

    def _find_model_entry_points(self) -> set[FunctionId]:
        entries: set[FunctionId] = set()
        for module, summary in self.modules.items():
            if module in self.dependency_modules:
                continue
            for qualname, function in summary.functions.items():
                if function.compiled or self._module_call(module, function) or self.configured_entry(module, qualname):
                    entries.add((module, qualname))
            for target in summary.compile_targets:
                entries.update(self._compile_target(module, target.ref, target.constructor, target.method))
        return entries | self.helper_compiled_roots()

    def helper_compiled_roots(self) -> set[FunctionId]:
        """What the tree compiles through its own helpers (compile_helpers.py). Memoised."""
        if self._helper_roots is None:
            self._helper_roots = helper_compiled_roots(self)
        return self._helper_roots

    def _module_call(self, module: str, function: FunctionSummary) -> bool:
        """An nn.Module's `forward`, or the `__call__` a Module subclass of the tree overrides:
        calling the module runs that `__call__` (kornia's AugmentationSequential), and Dynamo
        traces it, compiled or called from traced code (measured on torch 2.13)."""
        return (
            function.name in ("forward", "__call__")
            and function.class_qualname is not None
            and self.is_module_class(module, function.class_qualname)
        )

    def configured_entry(self, module: str, qualname: str) -> bool:
        return any(entry_matches(pattern, module, qualname) for pattern in self.extra_entry_points)

    def declared_entry(self, fid: FunctionId) -> bool:
        """Configured, a root of the scope in force (library, public-api, tensor-api), or a Module's own `__call__`: its
        parameters get tensors as a forward's do."""
        return (self.configured_entry(*fid) or fid in self.scope_roots()
                or (self.function(fid).name == "__call__" and self._module_call(fid[0], self.function(fid))))

    def unmatched_entry_points(self) -> list[str]:
        """The configured entry points that match no function of the checked code (a typo, or code
        outside the checked paths)."""
        functions = [
            (module, qualname)
            for module, summary in self.modules.items()
            if module not in self.dependency_modules
            for qualname in summary.functions
        ]
        return [
            pattern for pattern in self.extra_entry_points
            if not any(entry_matches(pattern, module, qualname) for module, qualname in functions)
        ]

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
        """Memoised: the solve asks, and then the cache keeps it (analysis/incremental.py). Shared,
        never to be changed."""
        if self._traced is None:
            self._traced = self._closure(self.entry_points(), self.successors)
        return self._traced

    def traced_in_order(self) -> list[FunctionId]:
        """The traced functions sorted, the order every pass of traced_drafts walks them in. Sorted
        once: a dozen passes each sorting tens of thousands of ids was a tenth of the solve on a
        large tree. Shared, never to be changed."""
        if self._traced_order is None:
            self._traced_order = sorted(self.traced_functions())
        return self._traced_order

    def traced_holding(self, drafts: Callable[[FunctionSummary], Sized]) -> list[FunctionId]:
        """The traced functions of the checked tree (not of its dependencies), in order, whose
        summaries hold drafts of one kind (`lambda f: f.try_body_drafts`): what a pass walks."""
        if self._traced_own is None:  # paired once: seven passes ask (each walk was 0.7% of the solve)
            self._traced_own = [(fid, self.function(fid)) for fid in self.traced_in_order()
                                if fid[0] not in self.dependency_modules]
        return [fid for fid, function in self._traced_own if drafts(function)]

    def _closure(self, starts: Iterable[FunctionId], successors: Callable[[FunctionId], Iterable[FunctionId]]
                 ) -> set[FunctionId]:
        """Every function in the tree reachable from `starts` through `successors`."""
        reached: set[FunctionId] = set()
        queue = deque(starts)
        queue.extend(closure for start in list(queue) if self._returns_closures(start)
                     for closure in self._returned_closures(start))
        while queue:
            fid = queue.popleft()
            if fid in reached or fid not in self._functions:
                continue
            reached.add(fid)
            queue.extend(successors(fid))
        return reached

    def reached_from_calls(self, callees: Iterable[FunctionId]) -> set[FunctionId]:
        """`callees` and what they reach, as traced code follows calls (analysis/added_calls.py)."""
        return self._closure(callees, self.successors)

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
        return self._closure(queue, self._successors_with_built_modules)

    def _successors_with_built_modules(self, fid: FunctionId) -> Iterator[FunctionId]:
        """The successors, plus forward/__call__ of a class whose __init__ runs (it is then called)."""
        yield from self._successors(fid)
        function = self.function(fid)
        if function.name == "__init__" and function.class_qualname is not None:
            yield from self._class_calls(fid[0], function.class_qualname)

    def _class_calls(self, module: str, class_qualname: str, *extra: str) -> list[FunctionId]:
        methods = (self._method(module, class_qualname, name) for name in (*extra, "forward", "__call__"))
        return [method for method in methods if method is not None]

    def successors(self, fid: FunctionId) -> list[FunctionId]:
        """The functions traced code goes on to from `fid`. Memoised: the scope walk asks for every
        traced function, and eager_entries.py walks them again; the list is shared, never to be changed."""
        found = self._successors_found.get(fid)
        if found is None:
            found = self._successors_found[fid] = list(self._successors(fid))
        return found

    def _successors(self, fid: FunctionId) -> Iterator[FunctionId]:
        module = fid[0]
        function = self.function(fid)
        if function.disabled in ("recursive", "skipped", "numba"):
            return  # Dynamo traces nothing a disabled function calls
        for site in function.calls:
            targets = self.resolve_call(fid, site.ref)
            yield from targets
            for target in targets:  # a closure the callee returns, when this caller keeps its result
                if self._returns_closures(target):  # (or the callee keeps it too: `self.fn = inner`)
                    dropped = self._dropped(module, fid[1], site)
                    yield from (closure for closure in self._returned_closures(target)
                                if not dropped or self._kept_by_factory(target, closure))
        for reference in function.references:
            if reference.startswith("self."):
                name, _, callee = reference[len("self."):].partition(" ")
                if not callee or self._calls_back(fid, callee):
                    yield from self._passed_methods(fid, name)
                continue
            if reference.startswith("closure:"):  # a nested function passed to a call (callee_refs)
                name, _, callee = reference[len("closure:"):].partition(" ")
                if (not callee or self._calls_back(fid, callee)) and (nested := self._nested_function(fid, name)):
                    yield nested
                continue
            found = self._resolve_dotted(module, reference)
            if found is not None and found[0] == "function":
                yield found[1], found[2]
        # A decorator defined in the tree wraps the function: its inner wrapper runs traced. A
        # class of the tree used as one makes the name an instance of it: calling it runs the
        # class's `__call__`, which Dynamo inlines (measured on torch 2.13, test_scope_edges.py).
        for decorator in function.decorators:
            found = self._resolve_dotted(module, decorator)
            if found is not None and found[0] == "function":
                yield from self._decorator_wrappers((found[1], found[2]))
            elif found is not None and found[0] == "class" and (call := self._method(found[1], found[2], "__call__")):
                yield call
        if function.name == "forward" and function.class_qualname is not None:
            yield from self._forward_hooks(module, function.class_qualname)
        if function.class_qualname is not None:
            yield from torch_function_overrides(self, fid)
        if function.attribute_writes:
            yield from self._attribute_setters(fid)

    def _returns_closures(self, fid: FunctionId) -> bool:
        function = self._functions.get(fid)
        return function is not None and bool(function.returned_functions or function.returned_element_functions)

    def _returned_closures(self, fid: FunctionId) -> Iterator[FunctionId]:
        """The closures `fid` returns (`return hook`, `return step_sizes, alphas`): a caller that keeps
        the result calls them or hands them over as hooks, and Dynamo traces them there; one that
        drops it never runs them (test_scope_closures.py). An entry point's run where its caller,
        out of sight, calls them."""
        function = self.function(fid)
        for name in (*function.returned_functions, *(name for _, name in function.returned_element_functions)):
            if (nested := self._nested_function(fid, name)) is not None and nested[1].startswith(f"{fid[1]}."):
                yield nested

    def _dropped(self, module: str, qualname: str, site: CallSite) -> bool:
        """Whether `qualname` drops the result of `site` (dropped_results.py); its module's text read."""
        path = self.modules[module].path
        self.rows_read.add(path)
        return self._dropped_results(path, qualname, site.row, site.ref)

    def _kept_by_factory(self, factory: FunctionId, closure: FunctionId) -> bool:
        """Whether `factory` hands `closure` on other than by returning it (dropped_results.kept_elsewhere)."""
        path = self.modules[factory[0]].path
        self.rows_read.add(path)
        return self._dropped_results.kept_elsewhere(path, factory[1], closure[1].rpartition(".")[2])

    def _attribute_setters(self, fid: FunctionId) -> list[FunctionId]:
        """`self.NAME = value` in a method runs the class's own `__setattr__` (its own or a base's
        of the tree, or a subclass's override), which Dynamo inlines (measured on torch 2.13: a
        break inside torchmetrics-like `Metric.__setattr__` is reported there)."""
        own = self.self_class(fid)
        if own is None:
            return []
        setter = self._method(fid[0], own, "__setattr__")
        return [*([setter] if setter is not None else []), *self._overrides(fid[0], own, "__setattr__")]

    def _methods_named_from(self, module: str, class_qualname: str, prefix: str) -> list[FunctionId]:
        """The methods `getattr(self, PREFIX + ...)` may fetch: each method whose name starts with
        PREFIX, of the class, its in-tree bases (the first definition of each name) and its
        subclasses (overrides)."""
        classes = [*self.class_and_bases(module, class_qualname), *self.hierarchy.descendants((module, class_qualname))]
        names = {method for mod, cls in classes for method in self.modules[mod].classes[cls].methods
                 if method.startswith(prefix)}
        found: list[FunctionId] = []
        for name in sorted(names):
            method = self._method(module, class_qualname, name)
            found.extend([*([method] if method else []), *self._overrides(module, class_qualname, name)])
        return self._callable_methods(found)

    def _calls_back(self, fid: FunctionId, callee_ref: str, depth: int = 0) -> bool:
        """Whether the call `callee_ref` that is passed a bound method may call it back: it runs a
        function of the tree that calls one of its parameters, itself or in a nested function
        (`fn(part)` in `apply_chunks(fn, ...)`), or hands one on to a call that does (its
        `forwards`: posteriors' `flexi_tree_map` to a pytree map, measured on torch 2.13; two
        helpers deep). A call out of the tree, or into one that only
        stores what it is given (`self.hooks.append(fn)`), does not run the method (measured
        on torch 2.13: a `print` in it then breaks nowhere)."""
        for module, qualname in self.resolve_call(fid, callee_ref):
            functions = self.modules[module].functions
            if qualname not in functions:
                continue
            params = functions[qualname].params  # `fn(part)`, or `steps[i](part)` on a tuple of them
            called = {f"{kind}:{param}" for param in params for kind in ("name", "registry")}
            prefix = f"{qualname}."
            callers = [functions[qualname], *(functions[name] for name in functions if name.startswith(prefix))]
            if any(site.ref in called for function in callers for site in function.calls):
                return True
            if depth < 2 and any(not ref or self._calls_back((module, qualname), ref, depth + 1)
                                 for ref in functions[qualname].forwards):
                return True
        return False

    def _passed_methods(self, fid: FunctionId, name: str) -> list[FunctionId]:
        """`checkpoint(self._block, x)` in a method: the callee calls the bound method back (a known
        caller back, or one of the tree: _calls_back), and Dynamo traces it there (measured on
        torch 2.13), so the method and the overrides `self.NAME(...)` may run are reached. A
        submodule passed (`isinstance(self.norm, ...)`, `init(self.encoder)`) is no method: its
        forward is reached only where it is called; nor is a property."""
        class_qualname = self.self_class(fid)
        if class_qualname is None:
            return []
        method = self._method(fid[0], class_qualname, name)
        return self._callable_methods([*([method] if method else []), *self._overrides(fid[0], class_qualname, name)])

    def _callable_methods(self, methods: list[FunctionId]) -> list[FunctionId]:
        """Those of `methods` that are no property: `fn(self.shape)` passes the getter's value, read
        in the caller, which reaches the getter (_property_getters)."""
        return [method for method in methods if not is_property(self.function(method).decorators)]

    def _forward_hooks(self, module: str, class_qualname: str) -> list[FunctionId]:
        """The methods the class's `__init__` (or a base's) registers as forward hooks: they run
        around forward when the module is called (bound_methods.FORWARD_HOOKS)."""
        return [
            target
            for mod, cls in self.class_and_bases(module, class_qualname)
            for name in bound_methods.decode(
                self.modules[mod].classes[cls].attributes.get(bound_methods.FORWARD_HOOKS, ""), bound_methods.HOOKS_PREFIX
            )
            for target in [self._method(module, class_qualname, name), *self._overrides(module, class_qualname, name)]
            if target is not None
        ]

    def _decorator_wrappers(self, decorator: FunctionId, depth: int = 0) -> list[FunctionId]:
        """The wrappers of a decorator and of the decorators it delegates to: gpytorch's
        `@cached(name=...)` returns `_cached(method=method, name=name)`, whose nested `g` runs the
        method. Two levels of delegation cover the factories seen; deeper chains stop there.
        Memoised (shared, never to be changed): transformers decorates thousands of methods with
        the same few decorators, and finding a wrapper reads every function of its module."""
        key = (decorator, depth)
        wrappers = self._wrappers_found.get(key)
        if wrappers is None:
            wrappers = self._wrappers_found[key] = list(self._find_decorator_wrappers(decorator, depth))
        return wrappers

    def _find_decorator_wrappers(self, decorator: FunctionId, depth: int) -> Iterator[FunctionId]:
        yield from self._wrappers(*decorator)
        if depth >= 2:
            return
        for site in self.function(decorator).calls:
            for target in self.resolve_call(decorator, site.ref):
                if target != decorator and target in self._functions:
                    yield from self._decorator_wrappers(target, depth + 1)

    def _wrappers(self, module: str, decorator: str) -> Iterator[FunctionId]:
        """The functions nested in a decorator that call what it was given (`fn(*args)` in a
        `wrapper`): they run on every call. A decorator that only edits and returns its argument
        (transformers' `@auto_docstring`) runs at import time, and none of it is traced."""
        functions = self.modules[module].functions
        prefix = f"{decorator}."
        nested = [name for name in functions if name.startswith(prefix)]
        given = {f"name:{param}" for name in (decorator, *nested) for param in functions[name].params}
        # What a wrapper calls by its local name (a sibling helper) is resolved by resolve_call.
        for name in nested:
            if any(site.ref in given for site in functions[name].calls):
                yield module, name

    # ---- tensor flow --------------------------------------------------------------------
    def traced_drafts(self) -> list[TracedDraft]:
        solver = _TensorFlow(self, self.traced_functions())
        solver.solve()
        return self.drafts_of(solver)

    def _passes_object(self, caller: FunctionId, site: int, callee: FunctionId, param: str) -> bool:
        """Whether the call passes plain function `callee`'s `param` an object of a known class by position."""
        function = self.function(callee)
        classes = self.function(caller).dependency_call_classes.get(site, ())
        at = function.params.index(param) if function.class_qualname is None and param in function.params else -1
        return 0 <= at < len(classes) and classes[at] is not None

    def drafts_of(self, solver: _TensorFlow) -> list[TracedDraft]:
        """traced_drafts, the tensor flow solved: the drafts that stand and every pass after them
        (apart so that benchmarks/check_profile.py times the passes without solving twice)."""
        traced = solver.traced
        self.break_asked = set()
        self.callee_modes = None
        result: list[TracedDraft] = []
        inner: list[TracedDraft] = []  # in dependencies: they make the calls into them break
        opaque = OpaqueSources(self, solver)
        for fid in self.traced_in_order():
            function = self.function(fid)
            standing = inner if fid[0] in self.dependency_modules else result
            dead = solver.dead_guards.get(fid, ())
            for draft in function.drafts:
                if dead and any(first <= draft.row <= last for first, last in dead):
                    continue  # under `if p is not None:` with every call leaving `p` None
                if (solver.holds(fid, solver.tested(fid, draft)) or (
                        draft.code in OPAQUE_CODES and opaque.holds(fid, draft.deps))
                ) and not solver.holds(fid, draft.suppressed_if):
                    if draft.any_mode_message is not None and solver.holds(fid, draft.any_mode_if):
                        standing.append(TracedDraft(self.modules[fid[0]], function, draft.in_every_mode(), draft))
                    else:
                        standing.append(TracedDraft(self.modules[fid[0]], function, draft))
        result += str_enum_findings(self, solver.targets, solver.holds)
        result += typed_dict_constructions(self)
        result += pydantic_constructions(self)
        result += getattribute_constructions(self)
        result += subclass_init_constructions(self)
        result += dispatch_mode_entries(self)
        result += untraceable_applies(self)
        supers = object_method_super_calls(self)
        # a property read through `super()` raises in the trace (GB0088): Dynamo reports it there and not at the callers
        property_reads = [t for t in supers if t.draft.gb_id == PROPERTY_READ]
        result += [t for t in supers if t.draft.gb_id != PROPERTY_READ]
        given: list[TracedDraft] = []  # in dependencies, by what a call passes (dependency_breaks.py)
        result += object_operations(self, solver.holds, given)
        mask_loop_rows: dict[FunctionId, list[int]] = {}  # masks in loop bodies: the frame's rest is eager
        result += masks_made_elsewhere(self, solver.targets, solver.holds, mask_loop_rows)
        result += scalars_made_elsewhere(self, solver.targets, solver.holds)
        result += held_rank_indices(self, solver.holds)
        result += passed_rank_indices(self, solver.targets, solver.holds, solver._bind_arguments)
        result += disabled_function_calls(self, solver.targets)
        result += disabled_value_calls(self, solver.targets)
        reads = locked_reads(self, solver.targets)
        result += cached_property_reads(self, solver.targets, reads=reads)
        result += manager_without_yield_calls(self, solver.targets)
        result += held_module_calls(self)
        result += held_context_entries(self)
        result += held_method_calls(self, solver)
        consequences = self._consequences(traced, solver.targets, solver.callers, [*result, *inner], solver.holds)
        consequences += subclass_method_calls(self, solver.targets, lambda: self._breaking(solver.callers, [*result, *inner]))
        consequences += comprehension_findings(
            self, solver.targets, lambda: self._breaking(solver.callers, [*result, *inner]), solver.holds,
            {(fid, index) for fid, index, _ in reads},
        )
        consequences += breaking_try_bodies(
            self, solver.targets, lambda: self._usually_breaking(solver.callers, [*result, *inner]), solver.holds
        )
        read_statements = breaking_reads(  # GM657: Dynamo goes back to the statement, and runs the rest eagerly
            self, solver.targets, lambda: self._usually_breaking(solver.callers, [*result, *inner]), solver.holds
        )
        consequences += read_statements
        if self.dependency_modules:
            inside = calls_breaking_inside(self, solver.targets, inner, given, self._passes_object)
            # a keyword sort breaks by what each call passes: its constructions are judged there
            inside += _new_sites(inside, constructions_breaking_inside(self, solver.targets, inside))
            consequences += inside + _new_sites(inside, unsortable_keyword_calls(self, solver.targets, solver.holds))
        # what runs eagerly after a `with` Dynamo cannot enter, and what it calls and then skips
        # and after a loop-body call whose callee breaks (loop_calls.py)
        standing = [*result, *inner, *consequences]
        loop_rests = eager_after_loop_calls(
            self, solver.targets, self._usually_breaking(solver.callers, standing), standing
        )
        # the reads not reported leave the rest eager too when Dynamo cannot go back to them
        tails: dict[FunctionId, list[tuple[int, int, int, int, int]]] = {}
        if eager_reads := [*read_statements, *quiet_reads(self, read_statements, solver.holds, solver.targets)]:
            getters = {callee for t in eager_reads for sites, *_ in t.function.breaking_read_drafts
                       for site in sites for callee in solver.targets.get(((t.module.module, t.function.qualname), site), ())}
            surely = surely_breaking(self, solver.targets, standing, getters)
            for fid, rests in read_eager_rests(self, eager_reads, solver.targets, surely).items():
                loop_rests.setdefault(fid, []).extend(rests)
            tails = statement_tails(eager_reads, solver.targets, surely)
        mask_loop_rests(self, mask_loop_rows, loop_rests)
        found = traced_only(self, result + consequences + property_reads, solver.holds, loop_rests)
        if tails:  # what a quiet read's statement evaluates after the read runs eagerly
            found = [t for t in found if not any(after_read(t.draft, tail) for tail in
                                                 tails.get((t.module.module, t.function.qualname), ()))]
        # a generator runs eagerly after its first break: what follows breaks nowhere
        found = up_to_first_break(found, lambda traced: traced.function, lambda traced: traced.draft)
        self.solved = (solver, [*result, *inner], found)
        return found

    def conditional_spans(self, module: ModuleSummary, function: FunctionSummary) -> tuple[tuple[int, int], ...] | None:
        """The function's FunctionSummary.conditional_spans, its module's path noted as read."""
        self.rows_read.add(module.path)
        return function.conditional_spans

    def unproven_parameters(self, fids: Iterable[FunctionId]) -> dict[FunctionId, Unproven]:
        """After traced_drafts: for each of `fids`, its parameters some call in the tree does not
        pass a tensor (caller_arguments.py)."""
        if self.solved is None:
            return {}
        return CallerArguments(self, self.solved[0], self.unread_imports).unproven(fids)

    def _consequences(
        self, traced: set[FunctionId], targets: dict[tuple[FunctionId, int], list[FunctionId]],
        callers: Callers, standing: list[TracedDraft], holds: Callable[[FunctionId, Kind], bool],
    ) -> list[TracedDraft]:
        """Breaks Dynamo reports because of other breaks: a call it cannot resume at (GM605) and
        `super().__init__` of a module whose `__init__` it then runs as its own frame (GM606)."""
        pending = [fid for fid in self.traced_in_order() if fid[0] not in self.dependency_modules
                   and (self.function(fid).callee_break_drafts or self.function(fid).module_init_drafts)]
        entering = self.traced_holding(lambda f: f.entered_manager_drafts)
        bodies = self.traced_holding(lambda f: f.manager_body_drafts)
        building = self.traced_holding(lambda f: f.built_manager_drafts)
        owning = self.traced_holding(lambda f: f.own_frame_context_drafts)
        holding = any(self.function(fid).held_object_drafts for fid in traced)
        if not pending and not holding and not entering and not building and not bodies and not owning:
            return []
        breaking_set = self._breaking_set(callers, standing)
        breaking = BreakingFunctions(breaking_set, self.break_asked)
        own = ((traced_draft.module.module, traced_draft.function.qualname) for traced_draft in standing)
        on_receiver = ReceiverBreaks(self, targets, callers, breaking, own)
        in_modes = self.callee_modes = CalleeModes(callers, breaking_set, standing)  # callees breaking in a mode only
        found = [
            TracedDraft(self.modules[fid[0]], self.function(fid), in_modes.named(draft, targets.get((fid, site), ())), draft)
            for fid in pending
            for site, draft in self.function(fid).callee_break_drafts
            if on_receiver.call_breaks(fid, site)
        ]
        eager_inits: set[FunctionId] = set()
        # Frames that run eagerly: all of one Dynamo gave up on at a call (GM605, GM609)
        eager_rows = {(traced_draft.module.module, traced_draft.function.qualname): 0 for traced_draft in found}
        if holding:  # a break in a frame holding an object with bound methods (held_objects.py)
            held, eager_inits, held_rows = held_object_breaks(self, targets, breaking, [*standing, *found], in_modes)
            found += held
            for fid, row in held_rows.items():
                eager_rows[fid] = min(row, eager_rows.get(fid, row))
        found += metaclass_calls(self, eager_rows, targets)
        found += returned_holders(self, eager_rows, targets)
        if entering:
            found += breaking_manager_entries(self, entering, targets, self._usually_breaking(callers, [*standing, *found]), holds)
        if bodies:
            found += breaking_manager_bodies(self, bodies, targets, self._usually_breaking(callers, [*standing, *found]), holds)
        if building:
            so_far = [*standing, *found]
            found += constructions_entered(self, building, targets, self._usually_breaking(callers, so_far), so_far)
        if owning:  # a manager entered as an input of a frame compiled on its own
            found += own_frame_entries(self, owning, targets, self._usually_breaking(callers, [*standing, *found]), holds)
        return found + self._uninitialized_module_inits(pending, targets, breaking, eager_inits)

    def call_targets(self, fid: FunctionId) -> list[FunctionId]:
        """The in-tree functions a function's calls may run (calls only: no references or decorators)."""
        return [
            target
            for site in self.function(fid).calls
            for target in self.resolve_call(fid, site.ref)
            if target in self._functions
        ]

    def call_targets_at(self, fid: FunctionId, index: int) -> list[FunctionId]:
        """The in-tree functions call site `index` of `fid` may run."""
        return [
            target
            for target in self.resolve_call(fid, self.function(fid).calls[index].ref)
            if target in self._functions
        ]

    def resolve_name(self, module: str, name: str) -> tuple[str, str, str] | None:
        """("function"|"class", module, qualname) that `name` in `module` is or re-exports."""
        return self._lookup(module, name)

    def class_and_bases(self, module: str, class_qualname: str) -> list[tuple[str, str]]:
        """The class and its in-tree bases, each once."""
        found: list[tuple[str, str]] = []
        stack = [(module, class_qualname)]
        while stack:
            cls = stack.pop(0)
            if cls not in found and cls[1] in self.modules[cls[0]].classes:
                found.append(cls)
                stack.extend(self._base_classes(*cls))
        return found

    def resolve_class(self, module: str, dotted: str) -> tuple[str, str] | None:
        """The in-tree class `dotted` names in `module`, if it is one."""
        found = self._resolve_dotted(module, dotted)
        return (found[1], found[2]) if found is not None and found[0] == "class" else None

    def resolve_function(self, module: str, dotted: str) -> FunctionId | None:
        """The in-tree function `dotted` names in `module`, if it is one."""
        found = self._resolve_dotted(module, dotted)
        return (found[1], found[2]) if found is not None and found[0] == "function" else None

    def class_method(self, module: str, class_qualname: str, name: str) -> FunctionId | None:
        """Method `name` of the class, along its in-tree bases."""
        return self._method(module, class_qualname, name)

    def breaking_functions(self) -> set[FunctionId]:
        """After traced_drafts: the functions that break (`_breaking`), for a solved state to keep."""
        if self.solved is None:
            return set()
        solver, seeds, _ = self.solved
        return self._breaking_set(solver.callers, seeds)

    def _breaking(self, callers: Callers, standing: list[TracedDraft]) -> BreakingFunctions:
        """The breaking functions as the consequence passes ask about them, each question recorded."""
        return BreakingFunctions(self._breaking_set(callers, standing), self.break_asked)

    def _usually_breaking(self, callers: Callers, standing: list[TracedDraft]) -> BreakingFunctions:
        """The functions that break on the usual path: by a finding off an error or misconfiguration
        branch (Draft.rare), or by calling one (a call on such a branch counts: an upper bound)."""
        return self._breaking(callers, [traced_draft for traced_draft in standing if not traced_draft.draft.rare])

    def _breaking_set(self, callers: Callers, standing: list[TracedDraft]) -> set[FunctionId]:
        """Functions with a finding, and every traced function that calls one (a break in an
        inlined callee ends tracing at the call in the frame); `callers`: the solver's."""
        breaking = {(traced_draft.module.module, traced_draft.function.qualname) for traced_draft in standing}
        queue = deque(breaking)
        while queue:
            for caller in callers.get(queue.popleft(), ()):
                if caller not in breaking:
                    breaking.add(caller)
                    queue.append(caller)
        return breaking

    def _uninitialized_module_inits(
        self, pending: list[FunctionId], targets: dict[tuple[FunctionId, int], list[FunctionId]],
        breaking: BreakingFunctions, eager_inits: Set[FunctionId] = frozenset(),
    ) -> list[TracedDraft]:
        """An nn.Module's `__init__` that breaks makes its construction break; Dynamo then runs it
        as its own frame, where `super().__init__` meets an uninitialized module and breaks, and so
        on up the in-tree bases (measured on torch 2.13). `eager_inits`: constructors that run
        eagerly because the frame building them gave up (held_objects.py), with the same effect."""
        queue = deque(fid for fid in pending if (fid in breaking or fid in eager_inits) and self._module_init(fid))
        reached = set(queue)
        found: list[TracedDraft] = []
        while queue:
            fid = queue.popleft()
            function = self.function(fid)
            for site, draft in function.module_init_drafts:
                found.append(TracedDraft(self.modules[fid[0]], function, draft))
                for base_init in targets.get((fid, site), ()):
                    if (base_init not in reached and base_init[0] not in self.dependency_modules
                            and self._module_init(base_init)):
                        reached.add(base_init)
                        queue.append(base_init)
        return found

    def _module_init(self, fid: FunctionId) -> bool:
        function = self.function(fid)
        return (
            function.name == "__init__"
            and function.class_qualname is not None
            and self.is_module_class(fid[0], function.class_qualname)
        )


class _TensorFlow:
    """Which parameters receive tensors and which functions return them (a monotone fixpoint)."""

    def __init__(self, program: Program, traced: set[FunctionId]) -> None:
        self.program = program
        self.traced = traced
        self._passed: dict[tuple[int, FunctionId], dict[str, Kind]] = {}  # _arguments' memo
        self._dirty: set[FunctionId] = set()  # to examine in solve's next or current round
        self._reads_attributes: set[FunctionId] = set()  # whose `holds` asked about an attribute
        self.params: dict[FunctionId, dict[str, bool]] = {
            fid: dict(program.function(fid).param_seeds) for fid in traced
        }
        # Seeds callers cannot change; a hint (annotation, default) yields to a tensor passed in.
        self.fixed: dict[FunctionId, set[str]] = {
            fid: set(program.function(fid).param_seeds).difference(program.function(fid).hinted_params)
            for fid in traced
        }
        self.targets: dict[tuple[FunctionId, int], list[FunctionId]] = {}
        self.layers: dict[tuple[FunctionId, int], LayerResult] = {}  # `self.proj(x)` on a torch.nn layer
        for fid in traced:
            for index, site in enumerate(program.function(fid).calls):
                targets = [t for t in program.resolve_call(fid, site.ref) if t in traced]
                if targets:
                    self.targets[(fid, index)] = targets
                elif (layer := self._torch_layer(fid, site.ref)) is not None:
                    self.layers[(fid, index)] = layer
        # `Labeled(x)` on a torch.Tensor subclass of the tree: a tensor (tensor_constructions.py)
        self.tensor_builds = {(fid, index) for fid in traced for index in tensor_constructions(program, fid)}
        # Each traced callee's traced callers: whom a change in what it returns concerns (solve),
        # and how a break spreads up the calls (Program._breaking_set).
        self.callers: Callers = {}
        for (caller, _), targets in self.targets.items():
            for target in targets:
                self.callers.setdefault(target, set()).add(caller)
        for fid in traced:
            if program.declared_entry(fid):
                function = program.function(fid)
                for name in function.configured_entry_params:
                    self.params[fid][name] = True
                    self.fixed[fid].add(name)
        hinted = {fid for fid in traced if program.function(fid).hinted_params}
        self.untraced_callers = UntracedCallers(program, traced, hinted)
        self._keep_confirmed_hints(hinted)
        # A forward called from the tree gets its tensors from its callers, not from being an
        # entry point: `self.bias(window_size)` passes a tuple, whatever the signature says. Not
        # a forward only reached through `net(x)` on an annotated base class (instance_forwards.py).
        for fid in called_plainly(program, self.targets):
            function = program.function(fid)
            for name in (*function.entry_params, *function.configured_entry_params):
                self.params[fid].pop(name, None)
                self.fixed[fid].discard(name)
        self.returns: dict[FunctionId, bool] = {fid: False for fid in traced}
        self.attributes = AttributeTypes(program, traced)
        self.element_returns: dict[FunctionId, list[bool]] = {
            fid: [False] * len(elements)
            for fid in traced
            if (elements := program.function(fid).return_elements) is not None
        }
        # (pseudo-parameter, kind) of each `if p is None: p = ...` some call may leave `p` None at
        # and the rows of `if p is not None:` blocks no call runs (every call leaves `p` None)
        seen = none_fallbacks.CallsSeen(self, {fid for fid in traced if program.function(fid).none_fallbacks
                                               or program.function(fid).default_guards
                                               or program.function(fid).param_guards})
        self.fallbacks = none_fallbacks.gates(self, seen)
        self.dead_guards = none_fallbacks.dead_guards(self, seen)

    def _keep_confirmed_hints(self, callees: Set[FunctionId]) -> None:
        """A hint yields to the tensors callers pass only when no traced caller confirms it: once a
        call site passes a Python value (`past_key_values_length=0`), the annotation stands for
        every caller, so one caller passing a tensor does not flag the callee for all of them.
        `callees`: the traced functions with hinted parameters (a few of them on a large tree)."""
        for (caller, index), targets in self.targets.items():
            for callee in targets:
                if callee in callees:
                    self._confirm_hints(callee, self._arguments(self.program.function(caller).calls[index], callee))
        for _, site, callee in self.untraced_callers.sites:
            self._confirm_hints(callee, self._arguments(site, callee))

    def _confirm_hints(self, callee: FunctionId, passed: dict[str, Kind]) -> None:
        """The hinted parameters of `callee` a call passes a Python value keep their hint."""
        for name in self.program.function(callee).hinted_params:
            kind = passed.get(name)
            if kind is not None and not kind.nonempty:
                self.fixed[callee].add(name)

    def holds(self, fid: FunctionId, deps: Kind) -> bool:
        if deps.always:
            return True
        params = self.params[fid]
        for name in deps.params:
            if params.get(name, False):
                return True
            if name.startswith("self."):
                self._reads_attributes.add(fid)
                if self.attributes.is_tensor(fid, name[len("self."):]):
                    return True
        for call in deps.calls:
            if (fid, call.site) in self.tensor_builds:
                return True
            targets = self.targets.get((fid, call.site), ())
            if call.element is None and any(self._returns_at(fid, call.site, t) for t in targets):
                return True
            if not targets and self._callback_returns(fid, call.site, call.element is None):
                return True
            if call.element is not None and any(self._element_returns(t, call.element) for t in targets):
                return True
            if not targets and (layer := self.layers.get((fid, call.site))) is not None and layer.element(call.element):
                return True
        return False

    def _torch_layer(self, fid: FunctionId, ref: str) -> LayerResult | None:
        """What `self.NAME(...)` returns when every class that built `self.NAME` is a torch.nn
        layer of torch_layers' table."""
        kind, _, name = ref.partition(":")
        class_qualname = self.program.function(fid).class_qualname
        if kind != "self" or class_qualname is None or not name.isidentifier():
            return None
        constructors = self.program.held_constructors(fid[0], class_qualname, name)
        if constructors and all(constructor.endswith("nn.Sequential") for constructor in constructors):
            # an nn.Sequential returns what its last layer returns (summary.py notes it as NAME[-1])
            last = self.program.held_constructors(fid[0], class_qualname, f"{name}[-1]")
            constructors = last if len(last) == len(constructors) else []
        return layer_result(constructors)

    def tested(self, fid: FunctionId, draft: Draft) -> Kind:
        """What `draft` converts: its deps less the call results its condition tests whole where
        every callee returns a collection (`_, tokens = self.helper()` then `if tokens:` tests a
        list's length; its elements stay tensors for every other use)."""
        deps = draft.deps
        sized = frozenset(call for call in draft.length_tested.calls if self._returns_collection(fid, call))
        if not sized:
            return deps
        return Kind(deps.always, deps.params, deps.calls - sized, deps.boolean, deps.data_dependent_bool)

    def _returns_collection(self, fid: FunctionId, call: CallResult) -> bool:
        targets = self.targets.get((fid, call.site), ())
        if not targets:
            return False
        for target in targets:
            function = self.program.function(target)
            if call.element is None:
                if not function.returns_sized:
                    return False
                continue
            sizes = function.return_elements_sized
            if sizes is None or call.element >= len(sizes) or not sizes[call.element]:
                return False
        return True

    def _callback_returns(self, fid: FunctionId, index: int, whole: bool) -> bool:
        """`event_fn(t, y)` on a parameter holding a function from outside the tree (a user
        callback): a tensor when it is given one (torchdiffeq's `if event_fn(t1, y1) == 0:`)."""
        function = self.program.function(fid)
        site = function.calls[index]
        kind, _, name = site.ref.partition(":")
        if kind == "name" and name in function.params:
            if not whole:
                return False
        elif not holds_outside_callable(self.program, fid, site.ref):
            return False  # `self.subnet(x)` on a module or function the builder gave: outside_callables.py
        return any(self.holds(fid, arg) for arg in (*site.args, *(value for _, value in site.kwargs)))

    def _returns_at(self, caller: FunctionId, index: int, callee: FunctionId) -> bool:
        """Whether `callee` returns a tensor at this call site. A callee whose result depends on
        its parameters only (`default(val, d)`, `first(xs)`) is judged by the arguments this
        site passes, so `default(flag, self.flag)` is not a tensor because other sites pass
        tensors to `default`. A parameter not passed here keeps what all callers give it."""
        if not self.returns[callee]:
            return False
        kind = self.program.function(callee).returns
        if kind.always or kind.calls:
            return True
        passed = self._arguments(self.program.function(caller).calls[index], callee)
        params = self.params[callee]
        try:
            return any(
                self.holds(caller, passed[name]) if name in passed and name not in self.fixed[callee]
                else params.get(name, False) or self._attribute_returned(caller, callee, name)
                for name in kind.params
            )
        except RecursionError:
            # `x = self.f(x) + 1` a few hundred times in one function: each result is judged by the
            # one before, deeper than Python's stack. Taken as a tensor, as such a chain carries.
            return True

    def _attribute_returned(self, caller: FunctionId, callee: FunctionId, name: str) -> bool:
        """`return self.total * 2`: a tensor attribute of the callee's object, whichever site calls
        it. The caller is examined again when the attributes change, as the callee is."""
        if not name.startswith("self."):
            return False
        self._reads_attributes.add(caller)
        return self.holds(callee, Kind.of_param(name))

    def _element_returns(self, fid: FunctionId, index: int) -> bool:
        """Whether element `index` of what `fid` returns is a tensor (the whole result when unknown)."""
        elements = self.element_returns.get(fid)
        if elements is None or index >= len(elements):
            return self.returns[fid]
        return elements[index]

    def solve(self) -> None:
        # Per traced function, in the order the rounds visit them: its summary and, per resolved
        # call, the callee and what each of its parameters receives there (fixed while solving).
        # Only arguments that may be tensors, to parameters callers can change: `_pass_arguments`
        # skips the others in every round (`holds` is False for them; `fixed` is set before).
        edges = [
            (fid, function, [
                (target, passed)
                for index, site in enumerate(function.calls)
                for target in self.targets.get((fid, index), ())
                if (passed := [(name, kind) for name, kind in self._arguments(site, target).items()
                               if (kind.always or kind.params or kind.calls) and name not in self.fixed[target]])
            ])
            for fid in self.traced
            for function in (self.program.function(fid),)
        ]
        # Semi-naive rounds: a function is examined again only when something its `holds` reads
        # changed since its last examination (its parameters, what its callees return or receive,
        # the tensor attributes). Examining any other would set nothing, so every round ends in
        # the same state as a round examining every function, and the fixpoint is the same.
        self._dirty = set(self.traced)
        for _ in range(50):
            changed = False
            dirty = self._dirty
            for fid, function, calls in edges:
                if fid not in dirty:
                    continue
                dirty.discard(fid)
                if not self.returns[fid] and self.holds(fid, function.returns):
                    self.returns[fid] = changed = True
                    self._touched(fid)
                for name, kind in self.fallbacks.get(fid, ()):
                    if not self.params[fid].get(name) and self.holds(fid, kind):
                        self.params[fid][name] = changed = True
                        self._received(fid, (name,))
                flags = self.element_returns.get(fid)
                if flags is not None and function.return_elements is not None:
                    for index, kind in enumerate(function.return_elements):
                        if not flags[index] and self.holds(fid, kind):
                            flags[index] = changed = True
                            self._touched(fid)
                if calls:
                    open_calls = []
                    for target, passed in calls:
                        passed_now, still_open = self._pass_arguments(fid, passed, target)
                        changed |= passed_now
                        if still_open:
                            open_calls.append((target, still_open))
                    calls[:] = open_calls  # a call whose every parameter is set has nothing left to pass
            if self.attributes.update(self.holds):
                changed = True
                dirty.update(self._reads_attributes)
            changed |= self._pass_untraced_arguments()
            if not changed:
                return

    def _touched(self, fid: FunctionId) -> None:
        """What `fid` returns changed: it and its callers are examined again."""
        self._dirty.add(fid)
        self._dirty.update(self.callers.get(fid, ()))

    def _received(self, fid: FunctionId, names: Iterable[str]) -> None:
        """Parameters `names` of `fid` became tensors: it is examined again, and its callers only
        where what they read of it can change (`_returns_at`: a result already a tensor that
        depends on one of these parameters). A result not yet a tensor reads as none whatever the
        parameters, and when it becomes one `_touched` examines the callers then."""
        self._dirty.add(fid)
        if self.returns[fid]:
            kind = self.program.function(fid).returns
            if not (kind.always or kind.calls) and not kind.params.isdisjoint(names):
                self._dirty.update(self.callers.get(fid, ()))

    def _pass_untraced_arguments(self) -> bool:
        """A hinted parameter becomes a tensor when an untraced caller in the tree passes one."""
        changed = False
        for caller, site, callee in self.untraced_callers.sites:
            hinted = self.program.function(callee).hinted_params
            for name, kind in self._arguments(site, callee).items():
                if name not in hinted or name in self.fixed[callee] or self.params[callee].get(name):
                    continue
                if self.untraced_callers.holds(caller, kind, self.attributes, self.returns.__getitem__, self._arguments):
                    self.params[callee][name] = changed = True
                    self._received(callee, (name,))
        return changed

    def _arguments(self, site: CallSite, callee: FunctionId) -> dict[str, Kind]:
        """The kind each parameter of `callee` receives at `site`, by position and keyword.

        Memoised per (site, callee): summaries do not change while the solver runs, and every
        fixpoint round asks again for every edge. The dict returned is shared, never changed."""
        key = (id(site), callee)
        passed = self._passed.get(key)
        if passed is None:
            passed = self._passed[key] = self._bind_arguments(site, callee)
        return passed

    def _bind_arguments(self, site: CallSite, callee: FunctionId) -> dict[str, Kind]:
        function = self.program.function(callee)
        params = function.params
        passed: dict[str, Kind] = {}
        if self.program.first_param_implicit(site, callee):
            params = params[1:]
        elif site.ref.endswith(".apply") and function.name == "setup_context":
            return passed  # Fn.apply's arguments reach it packed in `inputs`, not by position
        elif site.ref.endswith(".apply") and _is_autograd_forward(function):
            params = params[1:]  # ctx
            passed.update(shifted_arguments(function, site))  # Dynamo's binding without grad
        star = params.index(function.vararg) if function.vararg in params else len(params)
        passed.update(zip(params[:star], site.args))  # by position, up to the *args parameter
        if star < len(params) and len(site.args) > star:
            passed[params[star]] = Kind.union(site.args[star:]).without_flags()
        passed.update(site.kwargs)
        return passed

    def _pass_arguments(self, caller: FunctionId, passed: list[tuple[str, Kind]], callee: FunctionId
                        ) -> tuple[bool, list[tuple[str, Kind]]]:
        """(whether a parameter of `callee` became a tensor, the arguments of `passed` whose
        parameter is still not one). Parameters only ever become tensors, so an argument whose
        parameter is set never passes anything again: the next round is handed only the others
        (solve's edges leave out the `fixed` parameters, which do not change while solving)."""
        received: list[str] = []
        still_open: list[tuple[str, Kind]] = []
        params = self.params[callee]
        for argument in passed:
            name = argument[0]
            if params.get(name):
                continue
            if self.holds(caller, argument[1]):
                params[name] = True
                received.append(name)
            else:
                still_open.append(argument)
        if received:
            self._received(callee, received)
        return bool(received), still_open


_Found = tuple[str, str, str]  # (what, module, name): what _through_imports finds


def _defined_here(summary: ModuleSummary, name: str) -> _Found | None:
    if name in summary.functions:
        return "function", summary.module, name
    if name in summary.classes:
        return "class", summary.module, name
    return None


def _instance_here(summary: ModuleSummary, name: str) -> _Found | None:
    callee = summary.instances.get(name)
    return None if callee is None else ("instance", summary.module, callee)


def _new_sites(found: list[TracedDraft], more: list[TracedDraft]) -> list[TracedDraft]:
    """The findings of `more` at a call no finding of the same rule in `found` is at."""
    seen = {(t.module.module, t.draft.code, t.draft.row, t.draft.column) for t in found}
    return [t for t in more if (t.module.module, t.draft.code, t.draft.row, t.draft.column) not in seen]


def _is_setup_context(function: FunctionSummary) -> bool:
    """A static `setup_context(ctx, inputs, output)` of a torch.autograd.Function subclass."""
    return "staticmethod" in function.decorators and len(function.params) == 3 and function.params[0] == "ctx"


def _is_autograd_forward(function: FunctionSummary) -> bool:
    """A static `forward(ctx, ...)`: what torch.autograd.Function subclasses define."""
    return (
        function.name == "forward"
        and "staticmethod" in function.decorators
        and function.params[:1] == ("ctx",)
    )


def entry_matches(pattern: str, module: str, qualname: str) -> bool:
    """`module:qualname` or `module.qualname` against a configured entry point (wildcards allowed)."""
    return fnmatch.fnmatchcase(f"{module}:{qualname}", pattern) or fnmatch.fnmatchcase(f"{module}.{qualname}", pattern)
