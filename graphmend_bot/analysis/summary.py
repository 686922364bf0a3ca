"""Turn one parsed module into a ModuleSummary: imports, classes, functions and their drafts.

This runs in worker processes, so it returns plain picklable data and never the AST.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections import deque
from collections.abc import Callable, Container, Iterator
from typing import cast

from graphmend_bot.analysis import (
    autograd_functions,
    bound_methods,
    compile_helpers,
    dataclass_inits,
    disabled_values,
    documented_types,
    eager_entries,
    generator_breaks,
    generator_managers,
    getattribute_classes,
    given_callables,
    guarded_classes,
    held_functions,
    held_mappings,
    iterated_builders,
    logger_bindings,
    lone_modules,
    model_reductions,
    module_containers,
    named_tuples,
    off_flags,
    parameter_guards,
    property_reads,
    pydantic_classes,
    shadowed_builtins,
    star_builtins,
    star_torch,
    starred_sequentials,
    subclass_inits,
    super_calls,
    suppressions,
    tensor_uses,
    typed_dicts,
)
from graphmend_bot.analysis.closures import closure_builds
from graphmend_bot.analysis.code_text import function_text
from graphmend_bot.analysis.conditional_blocks import conditional_spans, first_definitions
from graphmend_bot.analysis.documented_types import documented_classes
from graphmend_bot.analysis.entry_text import compile_rows, mentions_compile
from graphmend_bot.analysis.function import FunctionAnalyzer
from graphmend_bot.analysis.guards import GuardHelpers, package_root
from graphmend_bot.analysis.local_nodes import every_node, fields_present
from graphmend_bot.analysis.model import (
    ClassSummary,
    CompileTarget,
    FunctionSummary,
    ModuleSummary,
)
from graphmend_bot.analysis.module_aliases import module_aliases
from graphmend_bot.analysis.number_keys import NumberKeys
from graphmend_bot.analysis.parameter_annotations import may_hold_tensor, mentions_tensor
from graphmend_bot.analysis.suppressions import MARKER as SUPPRESSION_MARKER
from graphmend_bot.analysis.tensor_rank import python_number
from graphmend_bot.analysis.value_class import class_annotation, without_optional
from graphmend_bot.rules import ALL_RULES_BY_CODE
from graphmend_bot.source_lines import physical_lines
from graphmend_bot.vocabulary.dotted_names import dotted_name

_NESTED_BODIES = ("body", "orelse", "finalbody", "handlers")
# Dynamo calls a function with one of these decorators while tracing; it never traces its body.
CONSTANT_RESULT_DECORATORS = frozenset({"torch.compiler.assume_constant_result", "torch._dynamo.assume_constant_result"})

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
# A store to a subscript (`X[key] = value`): its `]`, then only closing parentheses, spaces,
# comments and line continuations before a lone `=`.
_SUBSCRIPT_STORE = re.compile(r"\][\s)\\]*(?:#[^\n]*\n[\s)\\]*)*=(?!=)")
_UNRESOLVED = object()  # a node the resolve memo has not seen


class Imports:
    """Local names bound by imports, mapped to the fully qualified names they stand for."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.names: dict[str, str] = {}
        self.star_modules: list[str] = []  # `from pkg.mod import *`: names looked up there too
        self.relative_torch: list[str] = []  # `from ..backend import torch`: the modules named (settle_backend_torch)

    def add(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.names[alias.asname] = alias.name
                else:
                    head = alias.name.split(".", 1)[0]
                    self.names[head] = head
            return
        base = node.module or ""
        if node.level:
            parts = self.package.split(".") if self.package else []
            parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
            base = ".".join([*parts, base] if base else parts)
        for alias in node.names:
            if alias.name == "torch" and node.level and not alias.asname:
                self.relative_torch.append(base)
            if alias.name != "*":
                self.names[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
            elif base:
                self.star_modules.append(base)

    def add_aliases(self, aliases: dict[str, str]) -> None:
        """Module-level names bound once to an imported name (analysis/module_aliases.py) resolve
        as that name does."""
        for name, qualified in aliases.items():
            self.names.setdefault(name, qualified)

    def settle_backend_torch(self, has_module: Callable[[str], bool | None]) -> None:
        """`from ..backend import torch` where the package has no module `backend.torch` is torch:
        a backend module that binds the framework at run time (DeepXDE's `backend/__init__.py`
        sets `torch` with `setattr` on loading its PyTorch backend), which no static reading of the
        package finds. A `backend/torch.py` of the package is that module, not torch."""
        for base in self.relative_torch:
            if self.names.get("torch") == f"{base}.torch" and has_module(f"{base}.torch") is False:
                self.names["torch"] = "torch"

    def resolve(self, node: ast.expr) -> str | None:
        """The qualified dotted name of `node` when its head is an imported name."""
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if not isinstance(node, ast.Attribute):
            return None
        # The head first: most chains start at no import (`self.norm.weight`), and their dotted
        # name is never spelled out.
        head = node.value
        while isinstance(head, ast.Attribute):
            head = head.value
        if not isinstance(head, ast.Name) or (target := self.names.get(head.id)) is None:
            return None
        return target + cast(str, dotted_name(node))[len(head.id):]

    def settled_resolve(self) -> Callable[[ast.expr], str | None]:
        """`resolve`, remembered per node: for after the module's imports are all read (the
        collector adds them as it walks). Function bodies' hooks resolve each callee about three
        times; the nodes are the keys (held, so no id is reused while the memo lives)."""
        memo: dict[ast.expr, str | None] = {}

        def resolve(node: ast.expr) -> str | None:
            found = memo.get(node, _UNRESOLVED)  # a fifth are misses: no KeyError raised for them
            if found is _UNRESOLVED:
                found = memo[node] = self.resolve(node)
            return found  # type: ignore[return-value]

        return resolve


def summarize_module(
    source: str, path: str, module: str, is_package: bool, dependency_calls: bool = False
) -> ModuleSummary:
    tree = ast.parse(source, filename=path)
    lines = physical_lines(source)
    imports = Imports(module, is_package)
    collector = _Collector(imports, source, tree, lines)
    collector.visit(tree)
    imports.add_aliases(module_aliases(tree, imports.resolve, set(imports.names), lines))
    logger_names = frozenset(collector.logger_names)
    module_objects = logger_bindings.module_objects(collector.module_constructors, logger_names)
    resolve = imports.settled_resolve()
    deferred = _deferred_functions(tree) if "reorderable_logging_functions" in source else set()
    functions: dict[str, FunctionSummary] = {}
    python_keys = frozenset(collector.python_keys)
    number_keys = collector.number_keys.keys()
    top_level = {node.name: node for qualname, class_qualname, node in collector.functions if qualname == node.name}
    guard_helpers = GuardHelpers(path, module, is_package, top_level, resolve,
                                 frozenset(name for name in collector.classes if "." not in name))
    imports.settle_backend_torch(guard_helpers.has_module)
    if imports.star_modules and star_torch.may_use(source, imports.names):  # `torch.cat(...)` after `from ..layers import *`
        root = package_root(path, module, is_package)
        for name, target in star_torch.torch_bindings(root, imports.star_modules, guard_helpers.read).items():
            imports.names.setdefault(name, target)
    # Properties of this module's classes: `self.NAME` runs one when read.
    properties = property_reads.module_properties(collector.functions)
    guarded = guarded_classes.guarded_class_methods(tree) if "__getattribute__" in source else frozenset()
    star = star_builtins.tree_star_bindings(package_root(path, module, is_package), module, is_package, guard_helpers.read)
    shadows = _ShadowedBuiltins(tree, collector, source, lines, star if imports.star_modules else None)
    tensor_names = eager_entries.tensor_modules(imports.names)
    nodes = {qualname: node for qualname, _, node in collector.functions} if collector.enclosing else {}
    rebound = disabled_values.rebound_functions(tree, resolve) if "disable" in source else {}
    typed_attributes = {name: _typed_attributes(cls) | collector.opaque_mappings.get(name, frozenset())
                        for name, cls in collector.classes.items()}
    containers = {  # the submodule containers each class's __init__ builds (module_containers.py)
        class_qualname: module_containers.container_attributes(node, resolve)
        for _, class_qualname, node in collector.functions if class_qualname is not None and node.name == "__init__"
    } if module_containers.may_build(source) else {}
    flags = _ClassFlags(collector.functions)
    switches = off_flags.module_flags(tree, source)
    definitions = first_definitions(tree)
    own_tensor_methods = frozenset(node.name for _, cls, node in collector.functions if cls is not None) & tensor_uses.PROVING_METHODS
    for qualname, class_qualname, node in collector.functions:
        written_qualname = qualname
        if qualname in functions and property_reads.accessor_of_property(
                node.name, accessors := tuple(filter(None, map(dotted_name, node.decorator_list)))):
            # a getter's setter or deleter (same qualname): reads of the property run the getter kept;
            # `self.NAME = v` runs the setter, kept under its own name (property_reads.setter_qualname)
            qualname = property_reads.setter_qualname(qualname)
            if qualname in functions or f"{node.name}.setter" not in accessors:
                continue
        compiled = _is_compiled(node, imports)
        entry = (class_qualname is not None and node.name == "forward") or compiled
        summary = FunctionSummary(
            qualname=qualname,
            name=node.name,
            class_qualname=class_qualname,
            params=(),
            param_seeds={},
            compiled=compiled,
            decorators=tuple(
                ref for d in node.decorator_list if (ref := dotted_name(_decorator_callee(d)))
            ),
            return_class=class_annotation(node.returns, resolve),
            tensor_signature=_tensor_signature(node),
            disabled=_disabled(node, imports) or rebound.get(qualname, ""),
        )
        summary.manager_without_yield = generator_managers.manager_without_yield(node, summary.decorators)
        if node.name == "__init__" and class_qualname is not None:
            summary.param_guards = parameter_guards.method_guards(node)
        elif node.name != "forward":  # an entry point: its calls are not all seen (none_fallbacks.py)
            summary.default_guards = parameter_guards.method_guards(node, attributes=False)
        # its docstring blanked: no yield, with or torch name is code there (a method's made already)
        text = collector.texts.pop(node, None) or function_text(node, lines)
        is_method = class_qualname is not None and "staticmethod" not in summary.decorators
        if not summary.tensor_signature and _may_be_public(qualname):  # what public_api.takes_tensor reads
            summary.tensor_signature = (_state_result(node, is_method)
                                        or tensor_uses.uses_param_as_tensor(node, text, resolve)
                                        or tensor_uses.documents_param_as_tensor(node)
                                        or documented_types.documents_tensor_result(node)
                                        or model_reductions.reduces_over_model(node, text))
            if summary.tensor_signature:
                summary.tensor_params = tensor_uses.tensor_param_names(node, text, resolve)
        enclosing = _enclosing_nodes(written_qualname, collector, nodes)
        summary.eager_entry = eager_entries.entry_classes(node, text, is_method, resolve, tensor_names, enclosing)
        if enclosing and "with" in text:  # what a `with NAME:` on a free name enters (held_contexts.py)
            summary.closure_builds = closure_builds(node, enclosing, resolve)
        summary.with_tails = eager_entries.with_tails(node, text)
        summary.generator_steps = generator_breaks.steps(node, "yield" in text and eager_entries.is_generator(node))
        if qualname == written_qualname and (definition := definitions.get(qualname)) is not None:
            summary.conditional_spans = conditional_spans(definition)
        if qualname in deferred or _runs_while_tracing(node, imports):
            functions[qualname] = summary  # Dynamo calls it after the graph or while tracing: never traced
            continue
        FunctionAnalyzer(
            node, summary, resolve, logger_names, lines, entry, guard_helpers, dependency_calls,
            collector.named_tuples, python_keys, properties, module_objects, guarded, shadows.inherited(qualname),
            number_keys,
            typed_attributes.get(class_qualname or "", frozenset()),
            flags.of(class_qualname) | off_flags.parameter_flags(node) | (off_flags.module_flags_of(switches, node, text) if switches else frozenset()),
            containers.get(class_qualname or "", frozenset()), text=text, own_tensor_methods=own_tensor_methods,
        ).run()
        if summary.disabled:
            _untraced(summary)  # kept: what it returns and calls, for its callers and callees
        functions[qualname] = summary
    typed_dicts.drop_unbuildable(functions, collector.classes)
    pydantic_classes.drop_unbuildable(functions, collector.classes)
    getattribute_classes.drop_unbuildable(functions, collector.classes)
    subclass_inits.drop_unbuildable(functions, collector.classes)
    defined = {name for name in (*functions, *collector.classes) if "." not in name}  # module-level, not `self`
    return ModuleSummary(
        path=path,
        module=module,
        imports=imports.names,
        functions=functions,
        classes=collector.classes,
        compile_targets=collector.compile_targets,
        parameter_passes=tuple(collector.parameter_passes),
        handed_functions=tuple(collector.handed_functions),
        registries=collector.registries,
        # module-level `NAME = call(...)` (dotted targets, `self.x`, are no globals)
        # and a function's or class's attribute (`jacobian._Jacobians = Jacobians(...)`)
        instances={name: callee for name, callee in collector.module_constructors.items()
                   if name.isidentifier() or name.partition(".")[0] in defined},
        given_arguments=given_callables.module_names_only(collector.given, defined),
        star_imports=tuple(imports.star_modules),
        exports=collector.exports.names,
        defines_only=not is_package and "." not in module and lone_modules.defines_only(tree.body),
        read_files=guard_helpers.read_files(),
        # A comment that hides a finding names the marker: most files have none, no line to search.
        suppressions=suppressions.comments(lines, ALL_RULES_BY_CODE) if SUPPRESSION_MARKER in source else (),
    )


class _ShadowedBuiltins:
    """Per function, the builtin names the module and its enclosing functions bind (shadowed_builtins.py)."""

    def __init__(self, tree: ast.Module, collector: _Collector, source: str, lines: list[str],
                 star: star_builtins.StarBindings | None) -> None:
        self._nodes = {qualname: node for qualname, _, node in collector.functions}
        self._lines = lines
        self._enclosing = collector.enclosing
        self._module = shadowed_builtins.module_bindings(tree, self._nodes.values(), source, star)
        self._inherited: dict[str, frozenset[str]] = {}

    def inherited(self, qualname: str) -> frozenset[str]:
        outer = self._enclosing.get(qualname)
        if outer is None:
            return self._module
        found = self._inherited.get(outer)
        if found is None:
            found = self._inherited[outer] = self.inherited(outer) | shadowed_builtins.function_bindings(
                self._nodes[outer], self._lines)
        return found


class Exports:
    """A module's `__all__`, read from its module-level statements: `__all__ = [...]`, `+=`,
    `.extend([...])`, `.append("...")` with string literals. Any other statement that binds or
    changes it (`__all__ = a.__all__ + b.__all__`) makes it unknown: `names` is then None, as it
    is for a module without one, and the public API falls back to the public names."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._state = "absent"  # "listed" once read from literals, "unknown" once computed

    @property
    def names(self) -> tuple[str, ...] | None:
        return tuple(dict.fromkeys(self._names)) if self._state == "listed" else None

    def read(self, stmt: ast.stmt) -> None:
        if self._state == "unknown":
            return
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                return
            names = _string_literals(stmt.value)
            if names is None or len(targets) > 1 or (isinstance(stmt, ast.AugAssign) and self._state == "absent"):
                self._state = "unknown"
                return
            self._names = [*self._names, *names] if isinstance(stmt, ast.AugAssign) else names
            self._state = "listed"
            return
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "__all__"
        ):
            added = _string_literals(call.args[0]) if call.func.attr == "extend" and len(call.args) == 1 else None
            if call.func.attr == "append" and len(call.args) == 1:
                added = _string_literals(ast.List([call.args[0]]))
            if added is None or self._state == "absent":
                self._state = "unknown"
            else:
                self._names.extend(added)


def _string_literals(node: ast.expr | None) -> list[str] | None:
    """The strings of a list or tuple display of string constants; None for anything else."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    names = [element.value for element in node.elts
             if isinstance(element, ast.Constant) and isinstance(element.value, str)]
    return names if len(names) == len(node.elts) else None


class _ClassFlags:
    """Per class of the module, the attributes it keeps off by default (off_flags.py), on demand."""

    def __init__(self, functions: list[tuple[str, str | None, FunctionNode]]) -> None:
        self._methods: dict[str, list[FunctionNode]] = {}
        for _, owner, node in functions:
            if owner is not None:
                self._methods.setdefault(owner, []).append(node)
        self._found: dict[str, frozenset[str]] = {}

    def of(self, class_qualname: str | None) -> frozenset[str]:
        if class_qualname is None:
            return frozenset()
        if class_qualname not in self._found:
            self._found[class_qualname] = off_flags.off_flags(self._methods.get(class_qualname, ()))
        return self._found[class_qualname]


def _enclosing_nodes(
    qualname: str, collector: _Collector, nodes: dict[str, FunctionNode]
) -> tuple[FunctionNode, ...]:
    """The functions a nested function is defined in, innermost first (none for most)."""
    found: list[FunctionNode] = []
    while (qualname := collector.enclosing.get(qualname, "")) in nodes:
        found.append(nodes[qualname])
    return tuple(found)


def _typed_attributes(summary: ClassSummary) -> frozenset[str]:
    """The attributes a class's `__init__` stores an instance of a named class in (`typed:`)."""
    return frozenset(name for name, held in summary.attributes.items() if held.startswith("typed:"))


def _deferred_functions(tree: ast.Module) -> set[str]:
    """Module-level functions registered with `torch._dynamo.config.reorderable_logging_functions
    .add(f)` (what `--fix` writes in defer mode): Dynamo defers their calls past the graph."""
    found: set[str] = set()
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "add"
            and isinstance(call.func.value, ast.Attribute)
            and call.func.value.attr == "reorderable_logging_functions"
            and len(call.args) == 1
            and isinstance(call.args[0], ast.Name)
        ):
            found.add(call.args[0].id)
    return found


def _decorator_callee(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def _runs_while_tracing(node: FunctionNode, imports: Imports) -> bool:
    """`@torch.compiler.assume_constant_result` (what `--fix` writes for a `warning_once` notice):
    Dynamo calls the function while tracing and bakes its result, so its body is never traced."""
    return bool(node.decorator_list) and any(
        imports.resolve(_decorator_callee(d)) in CONSTANT_RESULT_DECORATORS for d in node.decorator_list
    )


def _disabled(node: FunctionNode, imports: Imports) -> str:
    """`@torch.compiler.disable` / `@torch._dynamo.disable`, bare or called: "recursive", or
    "frame" for `recursive=False`; `@torch._disable_dynamo`: "skipped"; numba's `@jit`: "numba";
    "" otherwise."""
    for decorator in node.decorator_list:
        callee = imports.resolve(_decorator_callee(decorator))
        if callee in disabled_values.SKIPPED_DECORATORS:
            return "skipped"
        if callee in disabled_values.NUMBA_DECORATORS:
            return "numba"
        if callee in disabled_values.DISABLE_DECORATORS:
            recursive = next(
                (k.value for k in getattr(decorator, "keywords", ()) if k.arg == "recursive"), None
            )
            return "frame" if isinstance(recursive, ast.Constant) and recursive.value is False else "recursive"
    return ""


def _unpacked_pairs(node: ast.Assign) -> list[tuple[ast.expr, ast.expr]]:
    """(target, value) of `A, B = f(), g()`: a single tuple (or list) target as long as the tuple
    value, nothing starred; empty for any other assignment."""
    if len(node.targets) != 1:
        return []
    target, value = node.targets[0], node.value
    if not isinstance(target, (ast.Tuple, ast.List)) or not isinstance(value, (ast.Tuple, ast.List)):
        return []
    if len(target.elts) != len(value.elts) or any(
        isinstance(part, ast.Starred) for part in (*target.elts, *value.elts)
    ):
        return []
    return list(zip(target.elts, value.elts))


def _seeded(call: ast.Call) -> ast.Call | None:
    """`Cls(...)` of `Cls(...).manual_seed(s)`, which returns the object it seeds (a torch.Generator:
    GM646 judges a held generator by it)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "manual_seed" and isinstance(func.value, ast.Call):
        return func.value
    return None


def _builder_name(call: ast.Call, callee: str) -> str:
    """What built a held object, named as the tables judging it read it (`iter(list)`,
    `torch.compiler.disable(recursive=False)`)."""
    return disabled_values.builder_name(call, iterated_builders.builder_name(call, callee))


def _untraced(summary: FunctionSummary) -> None:
    """Dynamo runs a disabled function eagerly: nothing in its frame breaks a graph (its callers
    break at the call instead, GM620)."""
    summary.drafts = []
    summary.callee_break_drafts = []
    summary.module_init_drafts = []
    summary.dependency_call_drafts = []
    summary.held_object_drafts = []
    summary.metaclass_call_drafts = []
    summary.str_method_drafts = []
    summary.skipped_frame_drafts = []
    summary.typed_dict_drafts = []
    summary.pydantic_drafts = []
    summary.getattribute_drafts = []
    summary.dispatch_mode_drafts = []
    summary.apply_drafts = []
    summary.subclass_method_drafts = []
    summary.entered_manager_drafts = []
    summary.built_manager_drafts = []
    summary.manager_body_drafts = []
    summary.try_body_drafts = []
    summary.breaking_read_drafts = []
    summary.super_object_drafts = []
    summary.object_operand_drafts = []
    summary.mask_index_drafts = []
    summary.scalar_index_drafts = []
    summary.held_rank_drafts = []
    summary.passed_rank_drafts = []
    summary.subclass_init_drafts = []


def _is_compiled(node: FunctionNode, imports: Imports) -> bool:
    return any(
        imports.resolve(_decorator_callee(d)) == "torch.compile" for d in node.decorator_list
    )


# The statement-list fields each statement type has (an assignment or a call, most statements, has none).
_body_fields = fields_present(_NESTED_BODIES)


def _element_call(node: ast.expr) -> ast.Call | None:
    """The call building each element of `[C(...) for ...]`, `[C(...), ...]`, `{k: C(...) for ...}`
    or `{"a": C(...), ...}`."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and isinstance(node.elt, ast.Call):
        return node.elt
    if isinstance(node, ast.DictComp) and isinstance(node.value, ast.Call):
        return node.value
    if isinstance(node, ast.List) and node.elts and isinstance(node.elts[0], ast.Call):
        return node.elts[0]
    if isinstance(node, ast.Dict) and node.values and isinstance(node.values[0], ast.Call):
        return node.values[0]
    return None


class _Collector:
    """One walk over the statements: imports, classes, every function, loggers, compile calls.

    Only statements are visited (an ast.NodeVisitor over every expression costs more than
    parsing); expressions are searched for compile calls only in files that mention "compile".
    """

    def __init__(self, imports: Imports, source: str, tree: ast.Module, lines: list[str]) -> None:
        self.imports = imports
        self._module_builtins = _ModuleBuiltins(tree, source)  # `staticmethod(f)`, `getattr(o, n, self.m)`
        self._lines = lines
        # function_text of the methods _elements_built read, for summarize_module to take, not make again
        self.texts: dict[ast.AST, str] = {}
        self.functions: list[tuple[str, str | None, FunctionNode]] = []
        self.enclosing: dict[str, str] = {}  # a nested function's qualname -> the nearest enclosing function's
        self.classes: dict[str, ClassSummary] = {}
        self.opaque_mappings: dict[str, frozenset[str]] = {}  # held_mappings.py: "NAME()" marks
        self.compile_targets: list[CompileTarget] = []
        self.registries: dict[str, tuple[str, ...]] = {}
        self.logger_names: set[str] = set()
        self.named_tuples: dict[str, tuple[str, ...]] = {}  # module-level named tuple types: fields
        self.pydantic: dict[str, str] = {}  # module-level pydantic classes: the id building one breaks with
        # module-level plain classes (getattribute_classes.py): whether each defines `__getattribute__`
        self.plain_classes: dict[str, bool] = {}
        self.typed_dicts: dict[str, bool] = {}  # module-level TypedDicts: whether one has optional keys
        # Keys some statement stores a Python value under (`cache["slen"] += x.size(1)`): a dict
        # annotated `Dict[str, Tensor]` does not hold a tensor there whatever it says.
        self.python_keys: set[str] = set()
        self.number_keys = NumberKeys()  # keys every dict of the module holds a Python number under
        # The names calls building objects pass (given_callables.py), with whether imports resolved each
        self.given: list[tuple[given_callables.GivenArgument, bool]] = []
        self.classes_given: dict[str, dict[str, tuple[int, str]]] = {}  # ClassSummary.given, per class
        self.exports = Exports()
        self._scan_compile = mentions_compile(source)
        # What a file that mentions compile hands its calls (compile_helpers.py): parameters in
        # scope (each name -> the function binding it, innermost last), functions of the module.
        self.parameter_passes: list[compile_helpers.ParameterPass] = []
        self.handed_functions: list[compile_helpers.HandedFunction] = []
        self._owners: list[dict[str, str]] = [{}]
        self._module_defs = {
            stmt.name for stmt in tree.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        } if self._scan_compile else set()
        # Only statements whose lines say "compile" are searched for compile calls, unless an
        # import names torch.compile otherwise (walking every expression cost a tenth of a summary).
        self._compile_rows = compile_rows(source) if self._scan_compile else []
        self._compile_aliased = False
        self._prefix: list[str] = []
        self._class: list[str | None] = [None]
        self._function: list[str | None] = [None]
        self._method_class: list[str | None] = [None]  # the class of the method being walked
        self._constructors: list[dict[str, str]] = [{}]

    def visit(self, tree: ast.Module) -> None:
        self._body(tree.body)

    @property
    def module_constructors(self) -> dict[str, str]:
        """Module-level `NAME = call(...)` (and dotted targets): NAME -> the callee, resolved through the imports."""
        return self._constructors[0]

    def _body(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.imports.add(stmt)
                self._compile_aliased |= self._aliases_compile(stmt)
            elif isinstance(stmt, ast.ClassDef):
                self._class_def(stmt)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._function_def(stmt)
            else:
                if not self._prefix:
                    self.exports.read(stmt)
                if isinstance(stmt, ast.Assign):
                    self._assign(stmt)
                elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and not self._prefix:
                    # `TABLE: Registry = Registry()` binds as `TABLE = Registry()` does (typed code
                    # annotates module-level instances, loggers and registries)
                    self._assign(ast.Assign(targets=[stmt.target], value=stmt.value, lineno=stmt.lineno))
                if isinstance(stmt, (ast.Assign, ast.AugAssign)):
                    self.python_keys.update(_keys_given_python_values(stmt))
                self.number_keys.read(stmt)
                if isinstance(stmt, (ast.Assign, ast.Expr)) and isinstance(stmt.value, ast.Call):
                    self.given += given_callables.construction_arguments(
                        stmt.value, self.imports.resolve, self._method_class[-1])
                    if self._scan_compile and not self._prefix:  # `step = jit(step)`
                        self.handed_functions += compile_helpers.call_arguments(
                            stmt.value, "", {}, self._handable, self._helper)[1]
                if self._scan_compile and self._may_call_compile(stmt):
                    self._find_compile_calls(stmt)
                for field in _body_fields(type(stmt)):
                    nested = getattr(stmt, field)
                    if nested:
                        self._body(nested)

    def _class_def(self, node: ast.ClassDef) -> None:
        qualname = ".".join([*self._prefix, node.name])
        # `Ops[torch.Tensor]` (a Generic base, subscripted) is `Ops` in the class's MRO
        bases = tuple(
            self.imports.resolve(base) or name
            for base in (base.value if isinstance(base, ast.Subscript) else base for base in node.bases)
            if (name := dotted_name(base)) is not None
        )
        methods = tuple(
            stmt.name for stmt in node.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        )
        writes: dict[str, list[str]] = {}
        partly_built: set[str] = set()
        attributes = self._submodules(node, qualname, writes, partly_built)  # fills classes_given[qualname] too
        self.opaque_mappings[qualname] = held_mappings.opaque_mappings(node, attributes, self.texts)
        self.classes[qualname] = ClassSummary(qualname, bases, methods, attributes,
                                              dunders_unknown=super_calls.dunders_unknown(node),
                                              rewritten=_rewritten(writes), partly_built=tuple(sorted(partly_built)),
                                              not_functions=super_calls.not_functions(node),
                                              generated_init=dataclass_inits.generates_init(node),
                                              given=self.classes_given.pop(qualname, {}),
                                              tables=self._class_tables(node))
        metaclass = next((keyword.value for keyword in node.keywords if keyword.arg == "metaclass"), None)
        if metaclass is not None and (written := dotted_name(metaclass)) is not None:
            self.classes[qualname].metaclass = self.imports.resolve(metaclass) or written
        fields = named_tuples.class_fields(node, self.imports.resolve) if not self._prefix else None
        if fields is not None:
            self.named_tuples[node.name] = fields
        optional = typed_dicts.optional_keys(node, self.imports.resolve, self.typed_dicts) if not self._prefix else None
        if optional is not None:
            self.typed_dicts[node.name] = self.classes[qualname].optional_keys = optional
        self.classes[qualname].build_breaks = pydantic_classes.build_breaks(node, self.imports.resolve, self.pydantic)
        if not self._prefix:
            self.pydantic[node.name] = self.classes[qualname].build_breaks
        guards = getattribute_classes.guards_attributes(node, self.plain_classes)
        self.classes[qualname].guards_attributes = bool(guards)
        if guards is not None and not self._prefix:
            self.plain_classes[node.name] = guards
        self.classes[qualname].init_binding = subclass_inits.init_binding(node)
        self.classes[qualname].apply_breaks = autograd_functions.apply_breaks(node, self.imports.resolve)
        self.classes[qualname].unbound_methods = autograd_functions.unbound_methods(node, self.imports.resolve)
        self._enter(node.name, qualname, None, node.body)

    def _submodules(
        self, node: ast.ClassDef, qualname: str, writes: dict[str, list[str]], partly_built: set[str],
    ) -> dict[str, str]:
        """`self.NAME = Callee(...)` in __init__, and ModuleList/ModuleDict elements as NAME[];
        `self.NAME = param` of a parameter annotated with a class as "typed:Class" (an instance
        of it or of any subclass: `bm: BaseBrownian`, then `self.bm(t0, t1)`), and
        `self.NAME = self` as "typed:" this class (`self._last_interval._loc(ta, tb)`).
        Adds to `writes` what each `self.NAME = value` of __init__ stores: the callee of a call,
        else "" (the last one is all `attributes` keeps)."""
        attributes: dict[str, str] = {}
        for stmt in node.body:
            # `covar: LinearOperator` in the class body: what its instances hold there
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and (annotated := class_annotation(stmt.annotation, self.imports.resolve)) is not None
            ):
                attributes.setdefault(stmt.target.id, f"typed:{annotated}")
            if (held := held_functions.class_body_functions(stmt, self._dotted, self._module_builtins)) is not None:
                attributes.setdefault(held[0], held_functions.encode(held[1]))  # `stat = staticmethod(f)`
            if isinstance(stmt, ast.FunctionDef):
                self._elements_built(stmt, attributes)
            if not (isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__"):
                continue
            typed_params = {**self._documented_classes(node, stmt), **self._class_annotations(stmt.args)}
            local_names = _BoundNames(stmt)  # __init__'s parameters and locals
            for child in _statements(stmt):
                if isinstance(child, (ast.Expr, ast.Assign)) and (hooks := bound_methods.forward_hook_names(child.value)):
                    known = bound_methods.decode(attributes.get(bound_methods.FORWARD_HOOKS, ""), bound_methods.HOOKS_PREFIX)
                    attributes[bound_methods.FORWARD_HOOKS] = bound_methods.encode((*known, *hooks), bound_methods.HOOKS_PREFIX)
                    continue
                if isinstance(child, ast.Expr):
                    attributes.update(
                        (name, value) for name, value in _registered_modules(child.value, typed_params).items()
                        if name not in attributes
                    )
                    continue
                # `self.NAME = value`, or annotated (`self.update: Callable = self._wrap(self.update)`)
                if isinstance(child, ast.Assign) and len(child.targets) == 1:
                    target, value = child.targets[0], child.value
                elif isinstance(child, ast.AnnAssign) and child.value is not None:
                    target, value = child.target, child.value
                else:
                    continue
                if not (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    continue
                value = _unmoved(value)
                callee = self._callee(value) if isinstance(value, ast.Call) else None
                writes.setdefault(target.attr, []).append(callee or "")
                if isinstance(value, ast.Name) and value.id in typed_params:
                    attributes.setdefault(target.attr, f"typed:{typed_params[value.id]}")
                elif isinstance(value, ast.Name) and value.id == "self":
                    attributes.setdefault(target.attr, f"typed:{qualname}")
                elif methods := bound_methods.bound_method_names(value, hidden=_Either(local_names, self._module_builtins)):
                    # each branch's choice adds to what the attribute may hold
                    known = bound_methods.decode(attributes.get(target.attr, bound_methods.PREFIX))
                    if known or target.attr not in attributes:
                        attributes[target.attr] = bound_methods.encode((*known, *methods))
                    continue
                elif not isinstance(value, ast.Call):
                    functions = held_functions.held_function_names(value, local_names, self._dotted, local_names.defaults)
                    if given := held_functions.default_function_names(value, local_names.defaults, self._dotted):
                        before = held_functions.decode_defaults(attributes.get(held_functions.DEFAULT_FUNCTIONS, ""))
                        attributes[held_functions.DEFAULT_FUNCTIONS] = held_functions.encode_defaults((*before, *given))
                    known = held_functions.decode(attributes.get(target.attr, held_functions.PREFIX))
                    if functions and (known or target.attr not in attributes):
                        attributes[target.attr] = held_functions.encode(tuple(dict.fromkeys((*known, *functions))))
                    elif not functions and (parameter := given_callables.init_parameter(stmt, value)) is not None:
                        # `self.JacobianClass = JacobianClass`: what the object's builders pass there
                        self.classes_given.setdefault(qualname, {}).setdefault(target.attr, parameter)
                    elif not functions and (built := _built_side(value)) is not None and (found := self._callee(built)):
                        # `self.distance = self.default_distance() if distance is None else distance`:
                        # the part built when the caller passes none (the other side is the caller's)
                        attributes.setdefault(target.attr, found)
                        if _may_be_unbuilt(value):
                            partly_built.add(target.attr)
                    continue
                if not isinstance(value, ast.Call) or callee is None:
                    continue
                if callee == "functools.partial" and value.args and not value.args[1:]:
                    # `self.fn = functools.partial(f, k=v)`: calling it calls f with the same
                    # positional arguments (a positional one bound would shift them: left out)
                    functions = held_functions.held_function_names(value.args[0], local_names, self._dotted)
                    if functions:
                        attributes[target.attr] = held_functions.encode(functions)
                elif callee.endswith(("ModuleList", "ModuleDict")) and value.args:
                    element = _element_call(value.args[0])
                    if element is not None and (inner := self._callee(element)) is not None:
                        attributes[f"{target.attr}[]"] = inner
                elif callee.endswith("nn.Sequential") and value.args and isinstance(value.args[0], ast.Call):
                    # `nn.Sequential(Block(), ...)`: called, it runs torch's forward; its elements, iterated or
                    # indexed (`self.blocks[0](x)`), are Block's instances
                    attributes[target.attr] = callee
                    if (inner := self._callee(value.args[0])) is not None:
                        attributes[f"{target.attr}[]"] = inner
                    if all(isinstance(arg, ast.Call) for arg in value.args) and isinstance(layer := value.args[-1], ast.Call) and (
                            last := self._callee(layer)) is not None:
                        attributes[f"{target.attr}[-1]"] = last  # it returns what its last layer returns
                elif (callee.endswith("nn.Sequential") and len(value.args) == 1 and isinstance(value.args[0], ast.Starred)
                      and (last := starred_sequentials.last_layer(stmt, value.args[0].value, self._callee)) is not None):
                    attributes[target.attr] = callee
                    attributes[f"{target.attr}[-1]"] = last  # `nn.Sequential(*layers)` of torch layers
                else:
                    attributes[target.attr] = callee
        return attributes

    def _elements_built(self, method: ast.FunctionDef, attributes: dict[str, str]) -> None:
        """`self.NAME[key] = Callee(...)` or `self.NAME.append(Callee(...))` in any method: the
        objects the container NAME holds, as "NAME[]" (the first builder a method names). Walked only
        when the method's code says `append` or stores to a subscript (two thirds of transformers'
        methods do neither)."""
        text = self.texts[method] = function_text(method, self._lines)
        if "append" not in text and not _SUBSCRIPT_STORE.search(text):
            return
        for child in _statements(method):
            if isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Subscript):
                container, value = child.targets[0].value, child.value
            elif (isinstance(child, ast.Expr) and isinstance(child.value, ast.Call) and len(child.value.args) == 1
                  and isinstance(child.value.func, ast.Attribute) and child.value.func.attr == "append"):
                container, value = child.value.func.value, child.value.args[0]
            else:
                continue
            if (isinstance(value, ast.Call) and isinstance(container, ast.Attribute)
                    and isinstance(container.value, ast.Name) and container.value.id == "self"
                    and (callee := self._callee(value)) is not None):
                attributes.setdefault(f"{container.attr}[]", callee)

    def _class_annotations(self, args: ast.arguments) -> dict[str, str]:
        """Parameters annotated with one class name (`bm: BaseBrownian`, `Optional[Solver]`)."""
        found: dict[str, str] = {}
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if arg.annotation is None:
                continue
            annotation = without_optional(arg.annotation)
            name = dotted_name(annotation)
            if name is not None and name.rsplit(".", 1)[-1][:1].isupper():
                found[arg.arg] = self.imports.resolve(annotation) or name
        return found

    def _documented_classes(self, node: ast.ClassDef, init: ast.FunctionDef) -> dict[str, str]:
        """Unannotated parameters of `__init__` its docstring, or else the class's, documents as one
        class (documented_types.documented_classes), qualified through the module's imports."""
        args = init.args
        unannotated = [arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs) if arg.annotation is None]
        documented = documented_classes(init, unannotated) or documented_classes(node, unannotated)
        return {param: self.imports.resolve(ast.parse(name, mode="eval").body) or name for param, name in documented.items()}

    def _callee(self, call: ast.Call) -> str | None:
        callee = self._dotted(call.func)
        if callee is None and (seeded := _seeded(call)) is not None:
            inner = self._dotted(seeded.func)
            return f"{inner}.manual_seed" if inner is not None else None
        return iterated_builders.view_name(call) if callee is None else _builder_name(call, callee)

    def _dotted(self, node: ast.expr) -> str | None:
        """The dotted name `node` spells, qualified when its head is imported."""
        name = dotted_name(node)
        return None if name is None else self.imports.resolve(node) or name

    def _function_def(self, node: FunctionNode) -> None:
        qualname = ".".join([*self._prefix, node.name])
        self.functions.append((qualname, self._class[-1], node))
        if self._function[-1] is not None:
            self.enclosing[qualname] = self._function[-1]
        self._method_class.append(self._class[-1] or self._method_class[-1])
        if self._scan_compile:
            owners = {**self._owners[-1], **dict.fromkeys(compile_helpers.parameter_names(node), qualname)}
            self._owners.append(owners)
            passes, handed = compile_helpers.function_calls(node, qualname, owners, self._handable, self._helper)
            self.parameter_passes += passes
            self.handed_functions += handed
        self._enter(node.name, None, qualname, node.body)
        if self._scan_compile:
            self._owners.pop()
        self._method_class.pop()

    def _handable(self, value: ast.expr) -> str | None:
        """The function `value` names when a call is given it: `self.METHOD` of the class being
        walked, a function this module defines, or an imported name; None otherwise."""
        name = dotted_name(value)
        if name is None:
            return None
        owner, _, attr = name.rpartition(".")
        if owner == "self":
            own = self._method_class[-1]
            return name if own is not None and attr in self.classes[own].methods else None
        if name.partition(".")[0] in self._owners[-1]:
            return None  # a parameter, or an attribute of one
        if not owner and name in self._module_defs:
            return name
        resolved = self.imports.resolve(value)
        return resolved if resolved is not None and self._in_package(resolved) else None

    def _helper(self, call: ast.Call) -> str | None:
        """The callee of `call` when it may compile what it is given: torch.compile, or a function
        of this package by name (not a method of a parameter, a local or `self`)."""
        resolved = self.imports.resolve(call.func)
        if resolved is not None:
            return resolved if resolved == "torch.compile" or self._in_package(resolved) else None
        name = dotted_name(call.func)
        return name if name is not None and name.partition(".")[0] in self._module_defs else None

    def _in_package(self, resolved: str) -> bool:
        return resolved.partition(".")[0] == self.imports.module.partition(".")[0]

    def _enter(self, name: str, class_qualname: str | None, function: str | None, body: list[ast.stmt]) -> None:
        self._prefix.append(name)
        self._class.append(class_qualname)
        self._function.append(function or self._function[-1])
        self._constructors.append({})
        self._body(body)
        self._prefix.pop()
        self._class.pop()
        self._function.pop()
        self._constructors.pop()

    def _assign(self, node: ast.Assign) -> None:
        if self._prefix and not self._scan_compile:
            # In a class or function body, what a name was built by matters only to a compile
            # call's target (_constructor), and a file that never says "compile" has none.
            return
        if pairs := _unpacked_pairs(node):
            # `SO3_type, so3_type = SO3Type(), so3Type()` binds each name as its own statement would
            # (pypose's module-level Lie types, whose methods its functional API calls)
            for target, value in pairs:
                self._assign(ast.Assign(targets=[target], value=value, lineno=node.lineno))
            return
        if isinstance(node.value, ast.Dict) and not self._prefix:
            self._registry(node)
        if not isinstance(node.value, ast.Call):
            self._unbind_disabled(node.targets)
            return
        fields = named_tuples.factory_fields(node.value, self.imports.resolve) if not self._prefix else None
        if fields is not None:
            self.named_tuples.update((target.id, fields) for target in node.targets if isinstance(target, ast.Name))
        if not self._prefix and typed_dicts.functional_has_optional_keys(node.value, self.imports.resolve):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.typed_dicts[target.id] = True
                    self.classes[target.id] = ClassSummary(target.id, ("typing.TypedDict",), (), optional_keys=True)
        callee = dotted_name(node.value.func)
        built = (iterated_builders.view_name(node.value) if callee is None  # `{...}.values()`
                 else _builder_name(node.value, self.imports.resolve(node.value.func) or callee))
        if callee is None and (seeded := _seeded(node.value)) is not None and (inner := dotted_name(seeded.func)):
            built = f"{self.imports.resolve(seeded.func) or inner}.manual_seed"  # `torch.Generator().manual_seed(0)`
        if built is None:
            return
        for target in node.targets:
            name = dotted_name(target)
            if name is None:
                continue
            self._constructors[-1][name] = built
            is_logger = logger_bindings.builds_logger(
                self._constructors[-1][name], self.classes, self.imports.module.partition(".")[0])
            if is_logger and not self._prefix:
                self.logger_names.add(name)

    def _unbind_disabled(self, targets: list[ast.expr]) -> None:
        """`eigh = torch.linalg.eigh` after `eigh = torch.compiler.disable(torch.linalg.eigh)`: the
        name holds the plain function again, which Dynamo traces (GM620 must not report its calls).
        Only a disable builder is dropped: the other rules reading builders keep theirs as before."""
        for target in targets:
            name = dotted_name(target)
            if name is not None and disabled_values.disabling(self._constructors[-1].get(name, "")):
                del self._constructors[-1][name]

    def _class_tables(self, node: ast.ClassDef) -> dict[str, tuple[str, ...]]:
        """The dispatch tables a class body binds (ClassSummary.tables), as `_registry` reads them."""
        tables: dict[str, tuple[str, ...]] = {}
        for stmt in node.body:
            value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
            if isinstance(value, ast.Dict) and (values := self._table_values(value)) and None not in values:
                tables.update((target.id, tuple(v for v in values if v is not None))
                              for target in targets if isinstance(target, ast.Name))
        return tables

    def _registry(self, node: ast.Assign) -> None:
        """`SOLVERS = {"rk4": RK4, ...}` at module level: a dispatch table of classes/functions,
        or of such tables (`ROUTINES[loss][backend](...)`, entries `partial(f, ...)` too)."""
        assert isinstance(node.value, ast.Dict)
        values = self._table_values(node.value)
        if not values or any(value is None for value in values):
            return
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.registries[target.id] = tuple(v for v in values if v is not None)

    def _table_values(self, table: ast.Dict) -> list[str | None]:
        """The callables a dispatch table holds, through nested tables and `functools.partial`."""
        values: list[str | None] = []
        for value in table.values:
            if isinstance(value, ast.Dict):
                values += self._table_values(value)
            elif isinstance(value, ast.Call) and value.args and self.imports.resolve(value.func) == "functools.partial":
                values.append(dotted_name(value.args[0]))
            else:
                values.append(dotted_name(value))
        return values

    def _aliases_compile(self, node: ast.Import | ast.ImportFrom) -> bool:
        """`from torch import compile as tc`: a call to it need not say "compile"."""
        bound = (alias.asname or alias.name.split(".", 1)[0] for alias in node.names)
        return any(name != "compile" and self.imports.names.get(name) == "torch.compile" for name in bound)

    def _may_call_compile(self, stmt: ast.stmt) -> bool:
        if self._compile_aliased:
            return True
        first = bisect.bisect_left(self._compile_rows, stmt.lineno)
        end = stmt.end_lineno if stmt.end_lineno is not None else stmt.lineno
        return first < len(self._compile_rows) and self._compile_rows[first] <= end

    def _find_compile_calls(self, stmt: ast.stmt) -> None:
        # Only this statement's own expressions: nested bodies are visited as statements.
        roots = [
            value
            for field, value in ast.iter_fields(stmt)
            if field not in _NESTED_BODIES and isinstance(value, (ast.AST, list))
        ]
        for node in _walk_expressions(roots):
            if not isinstance(node, ast.Call):
                continue
            callee = self.imports.resolve(node.func)
            if callee == "torch.compile" and node.args:
                self._compile_target(node.args[0])
            elif (
                isinstance(node.func, ast.Attribute)
                and node.func.attr == "compile"
                and not node.args
                and callee is None  # not re.compile or torch.compile
            ):
                self._compile_target(node.func.value)

    def _compile_target(self, target: ast.expr) -> None:
        name = dotted_name(target)
        if name is None:
            return
        owner, _, attr = name.rpartition(".")
        # torch.compile(model) runs model.forward; torch.compile(runner.step) runs Runner.step.
        variable, method = (owner, attr) if owner and self._constructor(owner) else (name, "forward")
        self.compile_targets.append(
            CompileTarget(
                self.imports.resolve(target) or name,
                self._constructor(variable),
                self._function[-1],
                method,
            )
        )

    def _constructor(self, variable: str) -> str | None:
        return next((scope[variable] for scope in reversed(self._constructors) if variable in scope), None)


def _keys_given_python_values(stmt: ast.Assign | ast.AugAssign) -> list[str]:
    """String keys `NAME["key"] = 0` / `NAME["key"] += x.size(1)` stores a Python number under."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return [
        target.slice.value
        for target in targets
        if isinstance(target, ast.Subscript)
        and isinstance(target.slice, ast.Constant)
        and isinstance(target.slice.value, str)
        and python_number(stmt.value)
    ]


def _registered_modules(node: ast.expr, typed_params: dict[str, str]) -> dict[str, str]:
    """`self.register_modules(scheduler=scheduler)` (diffusers' pipelines set each keyword as an
    attribute) with a parameter annotated with a class: "typed:" that class, as `self.x = x`."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "register_modules"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "self"
    ):
        return {}
    return {
        keyword.arg: f"typed:{typed_params[keyword.value.id]}"
        for keyword in node.keywords
        if keyword.arg is not None and isinstance(keyword.value, ast.Name) and keyword.value.id in typed_params
    }


# Nodes that hold statements: an assignment can only be nested in these.
_STATEMENT_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _tensor_signature(node: FunctionNode) -> bool:
    """A parameter annotated as tensors (`xs: List[Tensor]`, `*xs: Tensor`), or a tensor result
    (`-> Tensor`) of a function some parameter of which may be handed tensors (`inputs: dict[str, Any]`): a loader
    `load(path: str) -> Dict[str, Tensor]` makes tensors from no tensor and is not tensor API."""
    args = node.args
    params = [arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs) if arg.arg not in ("self", "cls")]
    # `*tensors: torch.Tensor` takes tensors too (geoopt's `pack_point`); an unannotated `*args`
    # or `**kwargs` says nothing (a loader's `**options`).
    variadic = [arg for arg in (args.vararg, args.kwarg) if arg is not None]
    if any(mentions_tensor(arg.annotation) for arg in (*params, *variadic)):
        return True
    return mentions_tensor(node.returns) and any(may_hold_tensor(arg.annotation) for arg in params)


def _may_be_public(qualname: str) -> bool:
    """No part of the name is private (`__call__` is public: calling an instance runs it)."""
    return not any(part.startswith("_") and part != "__call__" for part in qualname.split("."))


def _state_result(node: FunctionNode, is_method: bool) -> bool:
    """A method that takes nothing but its object and returns a tensor (`compute(self) -> Tensor`,
    a metric's result): it computes from the tensors its object holds, its state."""
    args = node.args
    return (is_method and mentions_tensor(node.returns) and len(args.posonlyargs) + len(args.args) == 1
            and not args.kwonlyargs and args.vararg is None and args.kwarg is None)


# Methods of nn.Module (and of Tensor) that return the object they are called on, moved or cast.
_SELF_RETURNING = frozenset({"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "train", "eval", "requires_grad_"})


def _unmoved(value: ast.expr) -> ast.expr:
    """`nn.Linear(...).to(device)` as `nn.Linear(...)`: the attribute holds what the class builds (the
    call of a capitalised dotted name: a method of any other value may return something else)."""
    built = value
    while (isinstance(built, ast.Call) and isinstance(built.func, ast.Attribute) and built.func.attr in _SELF_RETURNING
           and isinstance(built.func.value, ast.Call)):
        built = built.func.value
    if built is value or not isinstance(built, ast.Call) or (name := dotted_name(built.func)) is None \
            or not name.rpartition(".")[2][:1].isupper():
        return value
    return built


def _may_be_unbuilt(value: ast.expr) -> bool:
    """`X() if c else None`, `c and X()`: the value may be None or the condition, not what an arm
    builds (`a or X()` builds X when the caller passes nothing: built)."""
    if isinstance(value, ast.IfExp):
        return _may_be_unbuilt(value.body) or _may_be_unbuilt(value.orelse)
    if isinstance(value, ast.BoolOp):
        return isinstance(value.op, ast.And) or any(_may_be_unbuilt(side) for side in value.values)
    return isinstance(value, ast.Constant) and value.value is None


def _built_side(value: ast.expr) -> ast.Call | None:
    """The first call among the arms of `a if c else b` or the operands of `a or b`, nested
    ones too: an object the expression may build (`ModuleList`s and `ModuleDict`s aside)."""
    sides = [value.body, value.orelse] if isinstance(value, ast.IfExp) else (
        value.values if isinstance(value, ast.BoolOp) else [])
    for side in sides:
        if isinstance(side, ast.Call) and not (dotted_name(side.func) or "").endswith(("ModuleList", "ModuleDict")):
            return side
        if (nested := _built_side(side)) is not None:
            return nested
    return None


class _ModuleBuiltins:
    """`name in bound`: a builtin name the module's statements bind (shadowed_builtins.module_bindings,
    less what functions declare `global`), read at the first question: few modules ask one."""

    def __init__(self, tree: ast.Module, source: str) -> None:
        self._tree, self._source = tree, source
        self._names: frozenset[str] | None = None

    def __contains__(self, name: object) -> bool:
        if self._names is None:
            self._names = shadowed_builtins.module_bindings(self._tree, (), self._source)
        return name in self._names


class _Either:
    """`name in either`: in one of two containers (the second asked only when the first says no)."""

    def __init__(self, first: Container[str], second: Container[str]) -> None:
        self._first, self._second = first, second

    def __contains__(self, name: object) -> bool:
        return name in self._first or name in self._second


class _BoundNames:
    """`name in names`: a parameter of `function` or a name it assigns (values, not the module's
    functions). The body is walked only for a name that is no parameter: most values `__init__`
    stores are `config.x` or a parameter, and walking every `__init__` whole cost a twentieth of
    summarising transformers' models."""

    def __init__(self, function: ast.FunctionDef) -> None:
        self._function = function
        args = function.args
        self._parameters = {
            arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if arg
        }
        positional = [*args.posonlyargs, *args.args]
        # each parameter given a default -> that default (a function a held attribute may call)
        self.defaults: dict[str, ast.expr] = {
            arg.arg: default
            for arg, default in [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
                                 *zip(args.kwonlyargs, args.kw_defaults)]
            if default is not None
        }
        self._assigned: set[str] | None = None

    def __contains__(self, name: object) -> bool:
        if name in self._parameters:
            return True
        if self._assigned is None:
            self._assigned = {
                node.id for node in every_node(self._function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
            }
        return name in self._assigned


def _rewritten(writes: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """The attributes __init__ stores differing values in (ClassSummary.rewritten)."""
    return {name: tuple(dict.fromkeys(values)) for name, values in writes.items() if len(set(values)) > 1}


def _statements(root: ast.stmt) -> Iterator[ast.AST]:
    """`ast.walk(root)` without the expressions, in the same breadth-first order (each node's
    children in field order), so a later assignment to the same attribute still wins. Walking
    every expression of every `__init__` cost a tenth of summarising a file."""
    queue: deque[ast.AST] = deque([root])
    while queue:
        node = queue.popleft()
        for field in _holder_fields(type(node)):
            value = getattr(node, field, None)
            if isinstance(value, list):
                queue.extend(item for item in value if isinstance(item, _STATEMENT_HOLDERS))
        yield node


# Per node type, its fields that can hold statements, handlers or cases, in field order: reading
# every field of every statement (`ast.iter_fields`, a generator per node) was most of this walk.
_HOLDER_FIELDS: dict[type, tuple[str, ...]] = {}
_HOLDING_FIELDS = frozenset({*_NESTED_BODIES, "cases"})


def _holder_fields(node_type: type) -> tuple[str, ...]:
    fields = _HOLDER_FIELDS.get(node_type)
    if fields is None:
        fields = _HOLDER_FIELDS[node_type] = tuple(f for f in node_type._fields if f in _HOLDING_FIELDS)  # type: ignore[attr-defined]
    return fields


def _walk_expressions(roots: list[ast.AST | list[ast.AST]]) -> list[ast.AST]:
    nodes: list[ast.AST] = []
    for root in roots:
        for item in root if isinstance(root, list) else [root]:
            if isinstance(item, ast.AST):
                nodes.extend(ast.walk(item))
    return nodes
