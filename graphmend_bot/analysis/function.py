"""Analyse one function body: which values are tensors, and where tensors meet Python.

A single forward pass over the statements keeps an environment from names to `Kind`s. Branch
arms run on copies that are merged afterwards; loop bodies run twice so values that flow around
the loop are seen. Every place where a tensor would be turned into a Python value, or where
untraceable Python runs, becomes a `Draft`; the scope solver later keeps those in traced code.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable
from typing import Any, cast

from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis import (
    function_aliases,
    keyword_arguments,
    modes,
    narrowing,
    skipped_frames,
    str_enums,
    tensor_rank,
    value_class,
)
from graphmend_bot.analysis.callee_refs import built_here, callee_ref, is_super
from graphmend_bot.analysis.frequency import is_rare_arm
from graphmend_bot.analysis.guards import GuardHelpers, compile_guard_value, evaluated_before_guard
from graphmend_bot.analysis.model import CallSite, Draft, FunctionSummary
from graphmend_bot.analysis.parameter_annotations import (
    bool_tensor_annotation,
    tensor_mapping_annotation,
    tensor_param,
    yields_to_callers,
)
from graphmend_bot.rules import Conversion, Rule
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import BOOL_TENSOR, NOT_TENSOR, TENSOR, Kind

Env = dict[str, Kind]
Resolve = Callable[[ast.expr], "str | None"]


# nn.Parameter(t) / nn.Buffer(t) are tensors (the rest of torch.nn builds modules).
_PARAMETER_CLASSES = frozenset({"nn.Parameter", "nn.parameter.Parameter", "nn.Buffer", "nn.parameter.Buffer"})
# `a & b`, `a | b`, `a ^ b` of masks are masks.
_MASK_OPERATORS = (ast.BitAnd, ast.BitOr, ast.BitXor)


class FunctionAnalyzer:
    def __init__(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        summary: FunctionSummary,
        resolve: Resolve,
        logger_names: frozenset[str],
        lines: list[str],
        entry: bool,
        guard_helpers: GuardHelpers | None = None,
        dependency_calls: bool = False,
        named_tuples: dict[str, tuple[str, ...]] | None = None,
        python_keys: frozenset[str] = frozenset(),
        properties: frozenset[str] = frozenset(),
    ) -> None:
        self.python_keys = python_keys
        self.node = node
        self._top_level = frozenset(id(statement) for statement in node.body)
        self._held_reported: set[tuple[str, int, int]] = set()
        self._context_managers: set[int] = set()  # ids of the `with` items' expressions
        self._annotated_tensors: set[str] = set()  # parameters annotated as tensors
        # Named tuple types of the module: an instance holds the kinds it was built from, and a
        # read of one of their fields (`tableau.alpha`) is what the instance holds.
        self.named_tuples = named_tuples or {}
        self.tuple_fields = frozenset(name for fields in self.named_tuples.values() for name in fields)
        self.dependency_calls = dependency_calls
        self.properties = properties  # property names of this module's classes
        self.guard_helpers = guard_helpers
        self.summary = summary
        self.resolve = resolve
        self.logger_names = logger_names
        self.lines = lines
        self.entry = entry
        self.returns: Kind = NOT_TENSOR
        self.return_shapes: list[tuple[Kind, ...] | None] = []
        self.references: set[str] = set()
        # Locals bound to a tuple display, element by element (`pad = (0, 0, right, 0)`).
        self.tuples: dict[str, tuple[Kind, ...]] = {}
        # Locals whose value under compile a compile guard decides (`is_tracing = ... or
        # is_torchdynamo_compiling()`).
        self.guards: dict[str, bool] = {}
        # Loop variables standing for submodules: `for layer in self.layers` -> "self:layers[]".
        self.aliases: dict[str, str] = {}
        # Locals holding an object built by a call: `solver = SOLVERS[name](...)` -> the
        # constructor's callee ref, so `solver.integrate(t)` reaches the class's method.
        self.instances: dict[str, str] = {}
        # Locals holding an object a call outside the tree built, by the call's qualified name
        # (`generator = np.random.SeedSequence(...)` -> "numpy.random.SeedSequence"), so that
        # `generator.generate_state(4)` is judged as "numpy.random.SeedSequence.generate_state".
        self.built_by: dict[str, str] = {}
        # Locals bound to `functools.partial(g, ...)`: g's ref and the arguments bound so far.
        self.partials: dict[str, tuple[str, tuple[Kind, ...], tuple[tuple[str, Kind], ...]]] = {}
        # Locals naming one of several functions (`fn = spline` / `fn = identity`): each is called.
        self._function_aliases = function_aliases.function_aliases(self.node.body)
        # The name of the instance parameter of a method (`self`): `self.NAME` is module state.
        self.self_name: str | None = None
        self.attribute_writes: list[tuple[str, Kind]] = []
        self.returned_functions: set[str] = set()
        # When this holds, Dynamo runs the rest of the frame eagerly: after `with open(...)`
        # (it cannot resume inside that context manager) and after a break inside a loop body
        # (graph breaks in loops make it skip the frame). Later drafts carry it as suppressed_if.
        self._eager_after: Kind = NOT_TENSOR
        self._loop_depth = 0
        self._reported: set[tuple[str, int, int] | tuple[str, int, int, int, int]] = set()
        self._test_depth = 0
        # Unannotated parameters defaulting to None, and those of them proven Python values by
        # the fallback that replaces their None (`causal = default(causal, self.causal)`).
        self._none_params: set[str] = set()
        self._python_params: set[str] = set()
        self._rare_depth = 0  # inside an error/misconfiguration branch (analysis/frequency.py)
        self._modes: list[str] = []  # the modes of the arms around (analysis/modes.py)
        # Kinds of the names enclosing `if isinstance(x, torch.Tensor):` arms prove tensors:
        # `x.detach().cpu()` there is what `x` is (monai's ensure_tuple_rep), not always a tensor.
        self._checked_tensors: list[Kind] = []
        # Parameters annotated as mappings of tensors (`params: Dict[str, Tensor]`): a value read
        # from one is a tensor, as a `Tensor` annotation is, while the name still holds the argument.
        self._tensor_mappings: set[str] = set()
        # Sizes of argument tensors among keyword values (keyword_arguments.py), built on first use.
        self._sizes: keyword_arguments.Sizes | None = None
        # Kinds of the subexpressions of the `assert` test being analysed (see kind_of).
        self._kinds: dict[int, Kind] | None = None
        # Names assigned in the body: a parameter rebound no longer holds what a caller passed.
        self._rebound: set[str] = set()
        # What makes Dynamo skip this frame (analysis/skipped_frames.py): drafts inside a `try` or
        # loop body (their deps), and the call sites there (a break in the callee does it too).
        self._try_depth = 0
        self._frame_skips = skipped_frames.FrameSkips()
        self._lists: set[str] = set()  # locals bound to a list (`order = list(range(n))`)
        self._assumed: set[str] = set()  # an entry point's unannotated parameters (assumed_tensor)
        # Kinds of the keyword arguments of the calls analysed so far, by id of the call (keyword_kinds).
        self._keyword_kinds: dict[int, dict[str, Kind]] = {}
        self._scalars: set[str] = set()  # locals bound to a 0-d tensor by construction (tensor_rank.py)

    # ---- driver -------------------------------------------------------------------------
    def run(self) -> None:
        env: Env = {}
        args = self.node.args
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        defaults += list(args.defaults)
        params = list(zip(positional, defaults))
        params += list(zip(args.kwonlyargs, args.kw_defaults))
        skip_first = self.summary.class_qualname is not None and not self._is_staticmethod()
        if skip_first and params and not any(dotted_name(d) == "classmethod" for d in self.node.decorator_list):
            self.self_name = params[0][0].arg
        names: list[str] = []
        entry_params: list[str] = []
        configured_entry_params: list[str] = []
        hinted_params: list[str] = []
        member_defaults: list[tuple[str, str]] = []
        for index, (arg, default) in enumerate(params):
            names.append(arg.arg)
            if (member := str_enums.member_ref(default)) is not None:
                member_defaults.append((arg.arg, member))  # `mode=BlendMode.CONSTANT`
            if skip_first and index == 0:
                continue
            seed = tensor_param(arg.arg, arg.annotation, default, self.entry)
            if seed and arg.annotation is not None:
                self._annotated_tensors.add(arg.arg)
            if tensor_mapping_annotation(arg.annotation):
                self._tensor_mappings.add(arg.arg)
            if arg.annotation is None and default is not None and narrowing.is_none_constant(default):
                self._none_params.add(arg.arg)
            if seed is None and default is None and arg.annotation is None:
                configured_entry_params.append(arg.arg)
            if seed is not None:
                self.summary.param_seeds[arg.arg] = seed
                if not seed and yields_to_callers(arg.arg, arg.annotation):
                    hinted_params.append(arg.arg)
                if seed and arg.annotation is None:
                    entry_params.append(arg.arg)
            env[arg.arg] = Kind.of_param(arg.arg)
            if seed and arg.annotation is None:
                self._assumed.add(arg.arg)
            if arg.annotation is not None and bool_tensor_annotation(arg.annotation):
                env[arg.arg] = env[arg.arg].as_bool_tensor()  # `mask: torch.BoolTensor`
            if (annotated := value_class.class_annotation(arg.annotation, self.resolve)) is not None:
                self.instances[arg.arg] = value_class.typed(annotated)  # `covar: LinearOperator`
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                names.append(extra.arg)
        # `k=None` passed to `torch.topk(x, k=k)`: an optional number whatever callers pass.
        self._python_params |= narrowing.scalar_arguments(self.node.body, self._none_params, self.resolve)
        self.summary.params = tuple(names)
        self.summary.member_defaults = tuple(member_defaults)
        self.block(self.node.body, env)
        for name in self._python_params:
            # A flag whatever callers pass: fixed, so no caller's kind overrides it.
            self.summary.param_seeds[name] = False
        self.summary.entry_params = tuple(p for p in entry_params if p not in self._python_params)
        self.summary.hinted_params = tuple(p for p in hinted_params if p not in self._python_params)
        self.summary.configured_entry_params = tuple(p for p in configured_entry_params if p not in self._python_params)
        self.summary.returns = self.returns
        self.summary.return_elements = _common_shape(self.return_shapes)
        self.summary.references = tuple(sorted(self.references))
        self.summary.attribute_writes = tuple(self.attribute_writes)
        self.summary.returned_functions = tuple(sorted(self.returned_functions))
        self.summary.skipped_frame_drafts = self._frame_skips.finish()

    def _is_staticmethod(self) -> bool:
        return any(dotted_name(d) == "staticmethod" for d in self.node.decorator_list)

    # ---- statements ---------------------------------------------------------------------
    def block(self, body: Iterable[ast.stmt], env: Env) -> bool:
        """Run statements in order; True when the block always leaves (return/raise/...)."""
        return any(self.stmt(stmt, env) for stmt in body)

    def stmt(self, node: ast.stmt, env: Env) -> bool:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self._assign(node, env)
        elif isinstance(node, ast.Expr):
            self.expr(node.value, env)
        elif isinstance(node, ast.If):
            return self._if(node, env)
        elif isinstance(node, ast.While):
            self._bool_context(node.test, env, "while")
            self._loop_depth += 1
            for _ in range(2):
                self.block(node.body, env)
            self._loop_depth -= 1
            self.block(node.orelse, env)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            element, elements = self._iteration(node.iter, env)
            self._loop_depth += 1
            alias = _submodule_iteration(node)
            for _ in range(2):
                self._bind(node.target, element, env, elements)
                if alias is not None:
                    self.aliases[alias[0]] = alias[1]
                self.block(node.body, env)
            self._loop_depth -= 1
            self.block(node.orelse, env)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            opens_file = False
            for item in node.items:
                self._context_managers.add(id(item.context_expr))
                self.expr(item.context_expr, env)
                opens_file |= _is_builtin_call(item.context_expr, "open", self.resolve)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, NOT_TENSOR, env)
            leaves = self.block(node.body, env)
            if opens_file:
                self._eager_after = TENSOR
            return leaves
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self._try(cast(ast.Try, node), env)  # TryStar has the same fields
        elif isinstance(node, ast.Return):
            if isinstance(node.value, ast.Name) and node.value.id not in env:
                # a factory returning its closure, or a class or function defined elsewhere
                self.returned_functions.add(node.value.id)
            if node.value is not None:
                elements = self._display(node.value, env)
                if elements is not None:
                    self.returns |= _union(elements)
                    self.return_shapes.append(elements)
                else:
                    self.returns |= self.expr(node.value, env)
                    self.return_shapes.append(None)
            return True
        elif isinstance(node, ast.Raise):
            return True  # the message is built only on the error path, never traced
        elif isinstance(node, ast.Assert):
            # One conversion as a whole, like an `if` test; the message runs only on failure. The
            # kinds of its parts are kept for the hooks (which operand Python jumps on).
            self._kinds = {}
            try:
                kind = self._test(node.test, env)
                if kind.is_tensor:
                    for check_assert in C.ASSERTIONS:
                        check_assert(self, node, kind)
                else:
                    for check_object in C.OBJECT_ASSERTIONS:
                        check_object(self, node, self.node.args.vararg)
            finally:
                self._kinds = None
        elif isinstance(node, (ast.Break, ast.Continue)):
            return True
        return False

    def _try(self, node: ast.Try, env: Env) -> None:
        self._try_depth += 1
        self._frame_skips.enter_try()
        self.block(node.body, env)
        self._frame_skips.exit_try()
        self._try_depth -= 1
        for handler in node.handlers:
            if handler.name:
                env[handler.name] = NOT_TENSOR
            self._rare_block(handler.body, dict(env), rare=True)
        self.block(node.orelse, env)
        self.block(node.finalbody, env)

    def _assign(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, env: Env) -> None:
        if node.value is None:
            return
        elements = self._display(node.value, env) if not isinstance(node, ast.AugAssign) else None
        if elements is None and isinstance(node.value, ast.Name):
            elements = self.tuples.get(node.value.id)
        kind = _union(elements) if elements is not None else self.expr(node.value, env)
        if isinstance(node, ast.Assign):
            self._python_fallback(node, env)
            classes = self._value_classes(node.targets, node.value, env)  # before rebinding
            for target in node.targets:
                if isinstance(target, ast.Attribute) and (write := C.ATTRIBUTE_WRITES.get(target.attr)) is not None:
                    write(self, target, self.expr(target.value, env))
                self._bind(target, kind, env, elements)
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and skipped_frames.builds_list(
                    node.value, True, self.resolve):
                self._lists.add(node.targets[0].id)
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and tensor_rank.is_scalar(
                    node.value, self._scalars, self.resolve):
                self._scalars.add(node.targets[0].id)
            self.instances.update(classes)
            constructor = self._constructor_ref(node.value.func) if isinstance(node.value, ast.Call) else None
            if (constructor is not None and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id not in classes):
                self.instances[node.targets[0].id] = constructor
                if (id(node) in self._top_level and _names_a_class(constructor)
                        and self.summary.calls and self.summary.calls[-1].ref == constructor):
                    # built on every path (held_objects.py): one built under an `if` is not always there
                    self.summary.local_objects.append((len(self.summary.calls) - 1, node.lineno))
                if (built_by := self.resolve(cast(ast.Call, node.value).func)) is not None:
                    self.built_by[node.targets[0].id] = built_by
                self._partial(node.targets[0].id, cast(ast.Call, node.value), env)
            seeded = _seeded_generator(node.value, self.resolve)
            if seeded is not None and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.built_by[node.targets[0].id] = seeded  # `g = torch.Generator(d).manual_seed(s)`
            guard = compile_guard_value(node.value, self.resolve, self.guards, self.guard_helpers)
            if guard is not None and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.guards[node.targets[0].id] = guard
        elif isinstance(node, ast.AugAssign):
            previous = self.expr(node.target, env) if not isinstance(node.target, ast.Name) else env.get(node.target.id, NOT_TENSOR)
            self._bind(node.target, previous | kind, env)
        else:
            self._bind(node.target, kind, env)
            annotated = value_class.class_annotation(node.annotation, self.resolve)
            if annotated is not None and isinstance(node.target, ast.Name):
                self.instances[node.target.id] = value_class.typed(annotated)

    def _value_classes(self, targets: list[ast.expr], value: ast.expr, env: Env) -> dict[str, str]:
        """The class refs `covar = self.lazy_covariance_matrix`, `c = covar.evaluate_kernel()` and
        `mean, covar = d.mean, d.lazy_covariance_matrix` bind (value_class.py). Constructor calls
        are recorded by the caller, as before."""
        if len(targets) != 1 or not self.instances:
            return {}  # no annotated value here: nothing to read a class from
        target = targets[0]
        if isinstance(target, ast.Name) and (
            not isinstance(value, ast.Call) or isinstance(value.func, ast.Attribute)
        ):
            ref = self._class_ref(value, env)
            return {target.id: ref} if ref is not None and value_class.annotated_root(ref) else {}
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            # Only an annotated value's: `h = self.dense` locals are everywhere, and a site per
            # use of each cost more than it found (RESULTS.md: multivariate_normal.py:236, :249).
            return {
                element.id: ref
                for element, element_value in zip(target.elts, value.elts)
                if isinstance(element, ast.Name)
                and (ref := self._class_ref(element_value, env)) is not None
                and value_class.annotated_root(ref)
            }
        return {}

    def _class_ref(self, node: ast.expr, env: Env) -> str | None:
        """The class ref of an expression, when the source says which class it is."""
        if isinstance(node, ast.Name):
            if node.id == self.self_name and node.id not in env:
                return "self"
            return self.instances.get(node.id)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == self.self_name and node.value.id not in env:
                return f"attr:{node.attr}"
            base = self._class_ref(node.value, env)
            return value_class.member(base, node.attr) if base is not None else None
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and not is_super(node.func.value):
                base = self._class_ref(node.func.value, env)
                return value_class.result(base, node.func.attr) if base is not None else None
            if isinstance(node.func, ast.Name):
                return self._constructor_ref(node.func)
        return None

    def _known_class(self, name: str) -> str | None:
        """The class ref of local `name` when it names a class: by annotation (or read from or
        returned by such a value), or built by `Cls(...)` (a capitalised callee)."""
        ref = self.instances.get(name)
        if ref is None or value_class.annotated_root(ref):
            return ref  # not `x = self.y`: a site per read of every such local costs more than it finds
        leaf = ref.partition(":")[2].rpartition(".")[2]
        return ref if ref.startswith(("name:", "dotted:")) and leaf[:1].isupper() else None

    def _class_site(self, node: ast.expr, ref: str, args: list[Kind]) -> Kind:
        """A call Python makes for the source: a property read, an operator's dunder."""
        self.summary.calls.append(CallSite(ref, tuple(args), (), True))
        if self.dependency_calls:
            for check_call in C.DEPENDENCY_CALLS:
                check_call(self, node)
        return Kind.of_call(len(self.summary.calls) - 1)

    def _python_fallback(self, node: ast.Assign, env: Env) -> None:
        """`p = default(p, self.flag)`: a None-defaulted parameter whose None is replaced by a
        Python value is that Python type (a flag, a size), not an optional tensor."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        name = node.targets[0].id
        if name not in self._none_params or env.get(name) != Kind.of_param(name):
            return
        fallback = narrowing.python_fallback(name, node.value)
        if fallback is None or narrowing.is_none_constant(fallback):
            return
        if any(isinstance(part, ast.Call) for part in ast.walk(fallback)):
            return  # a call's result is only known to the solver (and must not be recorded twice)
        fallback_kind = self.expr(fallback, env)
        # `self.flag` is a module attribute the solver types (analysis/hierarchy.py): the
        # parameter then holds whatever the attribute holds, a flag when it is one.
        if not fallback_kind.nonempty or _attributes_only(fallback_kind):
            self._python_params.add(name)

    def _display(self, node: ast.expr, env: Env) -> tuple[Kind, ...] | None:
        """Element kinds of a tuple or list display without starred items; else None."""
        if isinstance(node, (ast.Tuple, ast.List)) and not any(
            isinstance(e, ast.Starred) for e in node.elts
        ):
            return tuple(self.expr(e, env).without_flags() for e in node.elts)
        return None

    def _iteration(self, node: ast.expr, env: Env) -> tuple[Kind, tuple[Kind, ...] | None]:
        """The kind of one item of `for ... in node`, and its elements when it is a tuple."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            name = node.func.id
            if name == "enumerate" and len(node.args) == 1 and self.resolve(node.func) in (None, name):
                item, _ = self._iteration(node.args[0], env)
                return item, (NOT_TENSOR, item)
            if name == "zip" and node.args and self.resolve(node.func) in (None, name):
                items = tuple(self._iteration(arg, env)[0] for arg in node.args)
                return _union(items), items
        if isinstance(node, ast.Name) and node.id in self.tuples:
            self.expr(node, env)
            return _union(self.tuples[node.id]), None
        return self.expr(node, env).without_flags(), None

    def _bind(
        self, target: ast.expr, kind: Kind, env: Env, elements: tuple[Kind, ...] | None = None
    ) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = kind
            self._rebound.add(target.id)
            self._lists.discard(target.id)
            self._scalars.discard(target.id)
            self.guards.pop(target.id, None)
            self.aliases.pop(target.id, None)
            self.instances.pop(target.id, None)
            self.built_by.pop(target.id, None)
            self.partials.pop(target.id, None)
            if elements is not None:
                self.tuples[target.id] = elements
            else:
                self.tuples.pop(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            if elements is None and not starred and kind.is_call_result:
                # `a, b = helper(...)`: element K of what call site I returns.
                elements = tuple(kind.element(k) for k in range(len(target.elts)))
            if elements is not None and not starred and len(elements) == len(target.elts):
                for element, element_kind in zip(target.elts, elements):
                    self._bind(element, element_kind, env)
                return
            for element in target.elts:
                self._bind(element, kind, env)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, kind, env)
        elif isinstance(target, ast.Subscript):
            # x[mask] = v is index_put: traceable, so only look inside for other breaks.
            self.expr(target.value, env)
            self._index(target.slice, env)
        elif isinstance(target, ast.Attribute):
            self.expr(target.value, env)
            if isinstance(target.value, ast.Name) and target.value.id == self.self_name:
                self.attribute_writes.append((target.attr, kind.without_flags()))

    def _if(self, node: ast.If, env: Env) -> bool:
        under_compile = compile_guard_value(node.test, self.resolve, self.guards, self.guard_helpers)
        if under_compile is not None:
            self._before_guard(node.test, env)
            return self.block(node.body if under_compile else node.orelse, env)
        if _is_validation_guard(node):
            self._bool_context(node.test, env, "guard")
            return False  # the raising arm is the error path, never traced
        with modes.entered(self._modes, modes.test_mode(node.test)):
            self._bool_context(node.test, env, "if")
        body_env, else_env = dict(env), dict(env)
        none_name, none_in_body = _none_test(node.test)
        if none_name is not None and env.get(none_name) == Kind.of_param(none_name):
            _narrow_to_none(body_env if none_in_body else else_env, none_name)
        python_value = narrowing.isinstance_arm(node.test, self.resolve)
        if python_value is not None:
            python_name, python_in_body = python_value
            (body_env if python_in_body else else_env)[python_name] = NOT_TENSOR
        tensor_value = narrowing.tensor_arm(node.test, self.resolve)
        tensor_name, tensor_in_body = tensor_value if tensor_value is not None else (None, False)
        checked = env.get(tensor_name) if tensor_name is not None else None
        body_mode, else_mode = modes.arm_modes(node.test)
        body_leaves = self._rare_block(node.body, body_env, is_rare_arm(node.body), checked if tensor_in_body else None,
                                       body_mode)
        else_leaves = self._rare_block(node.orelse, else_env, is_rare_arm(node.orelse),
                                       None if tensor_in_body else checked, else_mode)
        _merge_into(env, [] if body_leaves else [body_env], [] if else_leaves else [else_env])
        return body_leaves and else_leaves

    def _rare_block(self, body: list[ast.stmt], env: Env, rare: bool, checked: Kind | None = None,
                    mode: str | None = None) -> bool:
        """Run an arm; `checked` is the kind of a name `isinstance(name, torch.Tensor)` proves a
        tensor there: methods called on it are tensors exactly when it is, not always. `mode`:
        the mode the arm runs in (modes.py), which its findings' messages name."""
        self._rare_depth += rare
        if checked is not None:
            self._checked_tensors.append(checked)
        try:
            with modes.entered(self._modes, mode):
                return self.block(body, env)
        finally:
            self._rare_depth -= rare
            if checked is not None:
                self._checked_tensors.pop()

    # ---- bool contexts ------------------------------------------------------------------
    def _test(self, test: ast.expr, env: Env) -> Kind:
        """Evaluate a condition; the whole test is one bool conversion, reported once."""
        self._test_depth += 1
        try:
            if isinstance(test, ast.BoolOp):
                return Kind.union(self._bool_operands(test, test.values, env, self._test))
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                return self._test(test.operand, env)
            return self.expr(test, env)
        finally:
            self._test_depth -= 1

    def _before_guard(self, test: ast.expr, env: Env) -> None:
        """A condition a compile guard decides still evaluates, under compile, the operands that
        come before the guard (`if x.min() < 0 and not is_compiling():` reads `x.min() < 0` first):
        each is a bool conversion of its own."""
        for operand in evaluated_before_guard(test, self.resolve, self.guards, self.guard_helpers):
            self._bool_context(operand, env, "before-guard")

    def _bool_context(self, test: ast.expr, env: Env, conversion: Conversion) -> None:
        kind = self._test(test, env)
        if kind.is_tensor:
            C.CONVERSIONS[conversion](self, test, kind)

    # ---- expressions --------------------------------------------------------------------
    def expr(self, node: ast.expr | None, env: Env) -> Kind:
        if node is None:
            return NOT_TENSOR
        handler = _EXPR_HANDLERS.get(type(node))
        if handler is not None:
            kind: Kind = handler(self, node, env)
            if self._kinds is not None:
                self._kinds[id(node)] = kind
            return kind
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, env)
        return NOT_TENSOR

    def _expr_Constant(self, node: ast.Constant, env: Env) -> Kind:
        return NOT_TENSOR

    def _expr_Name(self, node: ast.Name, env: Env) -> Kind:
        if node.id not in env:
            self.references.add(node.id)
        return env.get(node.id, NOT_TENSOR)

    def _expr_Attribute(self, node: ast.Attribute, env: Env) -> Kind:
        on_self = isinstance(node.value, ast.Name) and node.value.id == self.self_name and node.value.id not in env
        if on_self and node.attr in self.properties:
            self._class_site(node, f"getter:self>{node.attr}", [])  # a property of this class runs
        if on_self and node.attr not in V.STATIC_ATTRS:
            return _attribute_kind(node.attr)  # module state: the solver types it per class
        owner = self.expr(node.value, env)
        if isinstance(node.value, ast.Name) and (ref := self._known_class(node.value.id)) is not None:
            # `covar.batch_shape` on a value of a known class: a property there runs
            self._class_site(node, f"getter:{ref}>{node.attr}", [])
        if node.attr in self.tuple_fields:
            return owner.without_flags()
        nested = _nested_state(node, self.self_name, env)
        if nested is not None:
            return _attribute_kind(nested)  # `self.scheduler.timesteps`: state of a typed attribute
        if isinstance(node.value, ast.Name) and node.value.id not in env and node.value.id != "self":
            self.references.add(f"{node.value.id}.{node.attr}")  # module.function passed as a value
        if node.attr in V.TENSOR_ATTRS:
            return owner
        return NOT_TENSOR

    def _expr_Subscript(self, node: ast.Subscript, env: Env) -> Kind:
        owner = self.expr(node.value, env)
        index = self._index(node.slice, env)
        bounds = _slice_bounds(node.slice, lambda e: self.expr(e, env))
        if bounds.nonempty:  # hooks look at bounds that may be tensors only
            for check_bounds in C.SLICE_BOUNDS:
                check_bounds(self, node, owner, bounds)
        position = _constant_index(node.slice)
        if position is not None:
            if isinstance(node.value, ast.Name) and node.value.id in self.tuples:
                elements = self.tuples[node.value.id]
                if -len(elements) <= position < len(elements):
                    return elements[position]
            if position >= 0 and owner.is_call_result:
                return owner.element(position)
        if index.nonempty:  # hooks look at keys that may be tensors only
            for check_index in C.INDEXING:
                check_index(self, node, owner, index)
        if isinstance(node.value, ast.Attribute) and node.value.attr in V.STATIC_ATTRS:
            return NOT_TENSOR
        if self._reads_tensor_mapping(node.value, env) and not (
            isinstance(node.slice, ast.Constant) and node.slice.value in self.python_keys
        ):
            return TENSOR  # params["order"] of `params: Dict[str, Tensor]`
        return owner.without_flags()

    def _reads_tensor_mapping(self, node: ast.expr, env: Env) -> bool:
        return (
            isinstance(node, ast.Name)
            and node.id in self._tensor_mappings
            and env.get(node.id) == Kind.of_param(node.id)  # not rebound in the body
        )

    def _index(self, node: ast.expr, env: Env) -> Kind:
        if isinstance(node, ast.Tuple):
            return Kind.union(self.expr(element, env) for element in node.elts)
        return self.expr(node, env)

    def _expr_BinOp(self, node: ast.BinOp, env: Env) -> Kind:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        dunder = value_class.OPERATOR_METHODS.get(type(node.op))
        if dunder is not None and isinstance(node.left, ast.Name) and (ref := self._known_class(node.left.id)):
            # `covar + noise_covar` on a value of a known class runs its `__add__`
            self._class_site(node, f"instance:{ref}>{dunder}", [right])
        combined = left | right
        if isinstance(node.op, _MASK_OPERATORS) and combined.boolean and combined.is_tensor:
            return combined.without_data_dependent_bool()  # `(x > 0) & valid`: still a mask
        return combined.without_flags()

    def _expr_UnaryOp(self, node: ast.UnaryOp, env: Env) -> Kind:
        if isinstance(node.op, ast.Not):
            if self._test_depth:
                return self.expr(node.operand, env)
            self._bool_context(node.operand, env, "not")
            return NOT_TENSOR
        operand = self.expr(node.operand, env)
        if isinstance(node.op, ast.Invert) and operand.is_tensor:
            return operand.as_bool_tensor()  # `~mask`: tensors are inverted as masks in practice
        return operand

    def _expr_BoolOp(self, node: ast.BoolOp, env: Env) -> Kind:
        if self._test_depth:
            return self._test(node, env)
        values = self._traced_operands(node)
        kinds = self._bool_operands(node, values, env, self.expr)
        # Every operand but the last is converted to a bool to decide whether to go on.
        conversion = C.CONVERSIONS["and" if isinstance(node.op, ast.And) else "or"]
        for value, kind in zip(values[:-1], kinds):
            if kind.is_tensor:
                conversion(self, value, kind)
        return Kind.union(kinds)

    def _bool_operands(
        self, node: ast.BoolOp, values: list[ast.expr], env: Env, evaluate: Callable[[ast.expr, Env], Kind]
    ) -> list[Kind]:
        """The kinds of `values`, each evaluated where the operands before it held (`and`) or
        failed (`or`): after `not torch.is_tensor(x) and`, `x` is not a tensor."""
        kinds = []
        for value in values:
            kinds.append(evaluate(value, env))
            if (python_name := narrowing.short_circuit_python(value, node.op, self.resolve)) is not None:
                env = {**env, python_name: NOT_TENSOR}
        return kinds

    def _traced_operands(self, node: ast.BoolOp) -> list[ast.expr]:
        """The operands Dynamo evaluates: a compile guard that decides the operator under
        compile (`... and not is_compiling() and x.is_pinned()`) short-circuits the rest."""
        decisive = isinstance(node.op, ast.Or)  # True ends `or`, False ends `and`
        for index, value in enumerate(node.values):
            if compile_guard_value(value, self.resolve, self.guards, self.guard_helpers) is decisive:
                return node.values[: index + 1]
        return node.values

    def _expr_Compare(self, node: ast.Compare, env: Env) -> Kind:
        kinds = [self.expr(node.left, env)] + [self.expr(c, env) for c in node.comparators]
        if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            return NOT_TENSOR
        kind = Kind.union(kinds).without_data_dependent_bool()
        return kind.as_bool_tensor() if kind.is_tensor else kind  # a tensor only if an operand is

    def _expr_IfExp(self, node: ast.IfExp, env: Env) -> Kind:
        under_compile = compile_guard_value(node.test, self.resolve, self.guards, self.guard_helpers)
        if under_compile is not None:
            self._before_guard(node.test, env)
            return self.expr(node.body if under_compile else node.orelse, env)
        self._bool_context(node.test, env, "ternary")
        return self.expr(node.body, env) | self.expr(node.orelse, env)

    def _expr_NamedExpr(self, node: ast.NamedExpr, env: Env) -> Kind:
        kind = self.expr(node.value, env)
        self._bind(node.target, kind, env)
        return kind

    def _sequence(self, node: ast.Tuple | ast.List | ast.Set, env: Env) -> Kind:
        return Kind.union([self.expr(element, env) for element in node.elts]).without_flags()

    _expr_Tuple = _expr_List = _expr_Set = _sequence

    def _expr_Dict(self, node: ast.Dict, env: Env) -> Kind:
        for key in node.keys:
            self.expr(key, env)
        return Kind.union([self.expr(value, env) for value in node.values]).without_flags()

    def _expr_Slice(self, node: ast.Slice, env: Env) -> Kind:
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.expr(part, env)
        return NOT_TENSOR

    def _expr_Starred(self, node: ast.Starred, env: Env) -> Kind:
        return self.expr(node.value, env)

    def _expr_Lambda(self, node: ast.Lambda, env: Env) -> Kind:
        return NOT_TENSOR

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, env: Env) -> Kind:
        # Its elements are values of their own, not the enclosing condition's test: a Python bool
        # from tensor data there (`all(torch.equal(a, b) for ...)`) is reported where it is made.
        depth, self._test_depth = self._test_depth, 0
        try:
            return self._comprehension_body(node, env)
        finally:
            self._test_depth = depth

    def _comprehension_body(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, env: Env) -> Kind:
        if not isinstance(node, ast.GeneratorExp) and skipped_frames.COMPREHENSIONS_ARE_FRAMES:
            self._comprehension_frame(node, env)
        inner = dict(env)
        for generator in node.generators:
            # As a `for` loop: `zip(a, b)` / `enumerate(a)` items keep their elements' kinds.
            item, elements = self._iteration(generator.iter, inner)
            self._bind(generator.target, item, inner, elements)
            for condition in generator.ifs:
                self._bool_context(condition, inner, "filter")
        if isinstance(node, ast.DictComp):
            self.expr(node.key, inner)
            return self.expr(node.value, inner).without_flags()
        return self.expr(node.elt, inner).without_flags()

    _expr_ListComp = _expr_SetComp = _expr_GeneratorExp = _expr_DictComp = _comprehension

    def _comprehension_frame(self, node: skipped_frames.Comprehension, env: Env) -> None:
        """A comprehension over a list after a break that may skip the frame: its own frame."""
        if not skipped_frames.iterates_list(node.generators[0].iter, self._lists, self.resolve):
            return
        captured = skipped_frames.captured_kind(node, env, self.resolve)
        if captured:
            for check_comprehension in C.SKIPPED_FRAME_COMPREHENSIONS:
                check_comprehension(self, node, captured)

    # ---- calls --------------------------------------------------------------------------
    def _expr_Call(self, node: ast.Call, env: Env) -> Kind:
        func = node.func
        kwarg = self.node.args.kwarg if self.dependency_calls else None
        if kwarg is not None and keyword_arguments.sorted_keyword_items(node, kwarg.arg):
            self.summary.sorts_keyword_items = self.summary.sorts_keyword_items or node.lineno
        args = [self.expr(arg, env) for arg in node.args]
        kwargs = [(kw.arg, self.expr(kw.value, env)) for kw in node.keywords]
        if node.keywords:
            self._keyword_kinds[id(node)] = {name: kind for name, kind in kwargs if name is not None}
        resolved = self.resolve(func)
        if isinstance(func, ast.Call):
            self.expr(func, env)  # `Cls(...)(x)`, `nn.Linear(4, 4)(x)`: the construction runs first
        elif isinstance(func, ast.Subscript) and not isinstance(func.slice, ast.Slice):
            key = self._index(func.slice, env)  # `self.layers[i](x)`: the key picks a module
            if key.is_tensor:
                for check_called in C.CALLED_SUBSCRIPTS:
                    check_called(self, func, NOT_TENSOR, key)
        if isinstance(func, ast.Attribute) and (chained := self._chained_untraceable(func)) is not None:
            # `torch.Generator().manual_seed(s)`: Dynamo breaks on the method, not on the construction
            for part in (*cast(ast.Call, func.value).args, *(kw.value for kw in cast(ast.Call, func.value).keywords)):
                self.expr(part, env)
            known = self._known_call(node, chained, args)
            if known is not None:
                return known
        if isinstance(func, ast.Attribute):
            receiver = self.expr(func.value, env)
            kind = self._method_call(node, func, receiver, args, kwargs, resolved, env)
        else:
            kind = self._function_call(node, func, args, kwargs, resolved)
        return kind

    def _chained_untraceable(self, func: ast.Attribute) -> str | None:
        """`Cls(...).method` where the table lists `Cls.method` (`torch.Generator.manual_seed`)."""
        if not isinstance(func.value, ast.Call):
            return None
        built = self.resolve(func.value.func)
        qualified = f"{built}.{func.attr}" if built is not None else None
        return qualified if qualified in V.UNTRACEABLE_CALLS else None

    def _function_call(
        self,
        node: ast.Call,
        func: ast.expr,
        args: list[Kind],
        kwargs: list[tuple[str | None, Kind]],
        resolved: str | None,
    ) -> Kind:
        if isinstance(func, ast.Name) and (resolved is None or resolved == func.id):
            name = func.id
            check = C.BUILTINS.get(name)
            value = check(self, node, name, args) if check is not None else None
            if value is not None:
                return value
            if name in ("abs", "sum", "max", "min", "round"):
                return Kind.union(args)
            if name in V.STATIC_BUILTINS:
                return NOT_TENSOR
        if resolved in V.ITERABLE_WRAPPERS and args:
            return args[0].without_flags()
        if isinstance(func, ast.Name) and func.id in self.named_tuples:
            return Kind.union([*args, *(kind for _, kind in kwargs)]).without_flags()
        if resolved is not None:
            known = self._known_call(node, resolved, args)
            if known is not None:
                return known
        return self._user_call(func, node, args, kwargs)

    def _known_call(self, node: ast.Call, resolved: str, args: list[Kind]) -> Kind | None:
        """Calls into torch, logging and warnings, by their resolved dotted name."""
        head = resolved.partition(".")[0]
        check = C.CALLS.get(resolved)
        if check is None and head in C.MODULE_FUNCTION_MODULES:
            check = C.MODULE_FUNCTIONS.get((head, resolved.rpartition(".")[2]))
        if check is not None:
            return check(self, node, resolved, args)
        if not resolved.startswith("torch."):
            return None
        if any(keyword.arg == "generator" for keyword in node.keywords):
            for check_generator in C.GENERATOR_KEYWORDS:
                check_generator(self, node, resolved)
        name = resolved[len("torch."):]
        leaf = name.rsplit(".", 1)[-1]
        if leaf in V.COMPILE_GUARDS:
            return NOT_TENSOR
        check = C.TORCH_FUNCTIONS.get(name) or C.TORCH_FUNCTION_LEAVES.get(leaf)
        value = check(self, node, name, args) if check is not None else None
        if value is not None:
            return value
        if name.startswith(V.TORCH_TENSOR_SUBMODULES) or name in _PARAMETER_CLASSES:
            return TENSOR
        head = name.split(".", 1)[0]
        if name in V.TORCH_NON_TENSOR_FUNCS or head in V.TORCH_NON_TENSOR_SUBMODULES or head[:1].isupper():
            return NOT_TENSOR
        if leaf in V.BOOL_PRODUCERS:
            return BOOL_TENSOR
        return TENSOR

    def _method_call(
        self,
        node: ast.Call,
        func: ast.Attribute,
        receiver: Kind,
        args: list[Kind],
        kwargs: list[tuple[str | None, Kind]],
        resolved: str | None,
        env: Env,
    ) -> Kind:
        method = func.attr
        owner = dotted_name(func.value)
        if resolved is not None and (
            resolved.startswith(("torch.", "warnings.", "logging.")) or resolved in C.CALLS
        ):
            known = self._known_call(node, resolved, args)
            if known is not None:
                return known
        if owner in self.built_by and (qualified := f"{self.built_by[owner]}.{method}") in V.UNTRACEABLE_CALLS:
            known = self._known_call(node, qualified, args)
            if known is not None:
                return known
        if method in V.LOG_METHODS and self._is_logger(func.value, owner):
            for check_logger in C.LOGGER_CALLS:
                check_logger(self, node, f"{owner}.{method}", args)
            return NOT_TENSOR
        if resolved is not None and owner is not None and owner.split(".", 1)[0] not in env:
            # math.ceil(...), np.where(...), helpers.fn(...): a function of an imported module.
            return self._user_call(func, node, args, kwargs)
        static_receiver = isinstance(func.value, ast.Attribute) and func.value.attr in V.STATIC_ATTRS
        # A method torch.Tensor does not have means the receiver is some other object.
        tensor_receiver = (receiver.is_tensor and method in V.TENSOR_API) or (
            method in V.TENSOR_METHODS and not static_receiver
        )
        if tensor_receiver and not static_receiver:
            annotated = self.instances.get(func.value.id) if isinstance(func.value, ast.Name) else (
                self._result_of(func.value, env))
            if value_class.annotated_root(annotated):
                # `covar.solve(rhs)` may be a tensor's or, as annotated, a LinearOperator's
                self._user_call(func, node, args, kwargs, f"instance:{annotated}>{method}")
            checked = any(_derived_from(receiver, kind) for kind in self._checked_tensors)
            kind = receiver | TENSOR if method in V.TENSOR_METHODS and not checked else receiver
            return self._tensor_method(node, method, kind, args)
        local_receiver = owner is not None and owner.split(".", 1)[0] in env
        if owner is not None and owner == self.self_name and method == "register_buffer":
            self._register_buffer(node, args)
        instance = self._instance_of(owner, env) or self._result_of(func.value, env) or built_here(func.value)
        if instance is not None:
            # solver.integrate(t) on `solver = SOLVERS[name](...)`; self.bm.sample(t)
            kind = self._user_call(func, node, args, kwargs, f"instance:{instance}>{method}")
            if value_class.annotated_root(instance):
                # The call reaches the class and each subclass's override; what they return is
                # not this value's kind (a StaticCache's get_seq_length returns a tensor, the
                # DynamicCache a model runs returns an int): breaks inside count, results do not.
                kind = NOT_TENSOR
            if value_class.built_in_function(instance):  # module state, unlike a local object, has a source
                for check_call in C.LOCAL_OBJECT_CALLS:
                    check_call(self, node, method)
            return kind
        if owner in ("self", "cls") or not local_receiver:
            # self.method(...), super().method(...), module.function(...)
            kind = self._user_call(func, node, args, kwargs)
            if method == "__init__" and self.node.name == "__init__" and is_super(func.value):
                for check_init in C.SUPER_INITS:
                    check_init(self, node)
            if method == "__call__" and self.node.name == "__call__" and (is_super(func.value) or owner == "type"):
                for check_metaclass in C.METACLASS_CALLS:
                    check_metaclass(self, node)
            return kind
        if (method in str_enums.STR_METHODS and isinstance(func.value, ast.Name)
                and func.value.id in self.summary.params and func.value.id not in self._rebound):
            for check_str_method in C.STR_METHODS:  # `opt_str.strip()`: a str-Enum member may reach it
                check_str_method(self, node, func.value.id)
        return NOT_TENSOR

    def _constructor_ref(self, func: ast.expr) -> str | None:
        """What built a value: `Cls(...)` -> "name:Cls"; `make(...)` where `make` holds the
        result of `select(...)` -> "returned:name:select" (what select returns, called)."""
        if isinstance(func, ast.Name) and func.id in self.instances:
            return f"returned:{self.instances[func.id]}"
        return callee_ref(func)

    def _result_of(self, receiver: ast.expr, env: Env) -> str | None:
        """`covar.evaluate_kernel().solve(...)`, `d.lazy_covariance_matrix.diagonal()`: a receiver
        read from or returned by a value of a known class."""
        if not isinstance(receiver, (ast.Call, ast.Attribute)):
            return None
        ref = self._class_ref(receiver, env)
        return ref if ref is not None and ref.startswith(("result:", "member:")) else None

    def _partial(self, name: str, call: ast.Call, env: Env) -> None:
        """`f = functools.partial(g, a, k=b)`: calling f calls g with those arguments first."""
        if self.resolve(call.func) != "functools.partial" or not call.args:
            return
        target = callee_ref(call.args[0])
        if target is None or any(isinstance(arg, ast.Starred) for arg in call.args):
            return
        args = tuple(self.expr(arg, env) for arg in call.args[1:])
        kwargs = tuple((kw.arg, self.expr(kw.value, env)) for kw in call.keywords if kw.arg is not None)
        self.partials[name] = (target, args, kwargs)

    def _instance_of(self, owner: str | None, env: Env) -> str | None:
        """The constructor ref of a local object, or "attr:NAME" for `self.NAME`."""
        if owner is None:
            return None
        if owner in self.instances:
            return self.instances[owner]
        head, _, attr = owner.partition(".")
        if head == self.self_name and head not in env and attr and "." not in attr:
            return f"attr:{attr}"
        return None

    def _register_buffer(self, node: ast.Call, args: list[Kind]) -> None:
        """`self.register_buffer("name", value)` is module state like `self.name = value`."""
        if len(node.args) >= 2 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            self.attribute_writes.append((node.args[0].value, args[1].without_flags()))

    def _tensor_method(self, node: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
        check = C.TENSOR_METHODS.get(method)
        value = check(self, node, method, receiver, args) if check is not None else None
        if value is not None:
            return value
        if method in V.STATIC_METHODS:
            return NOT_TENSOR
        if method in V.BOOL_PRODUCERS:
            return receiver | BOOL_TENSOR
        return (receiver | Kind.union(args)).without_flags()

    def _is_logger(self, node: ast.expr, owner: str | None) -> bool:
        if owner is None:
            return False
        leaf = owner.rsplit(".", 1)[-1]
        return owner in self.logger_names or leaf in V.LOGGER_NAMES

    def _user_call(
        self,
        func: ast.expr,
        node: ast.Call,
        args: list[Kind],
        kwargs: list[tuple[str | None, Kind]],
        ref: str | None = None,
    ) -> Kind:
        """A call that may land in the checked tree: record it for the scope solver."""
        ref = ref or (self.aliases.get(func.id) if isinstance(func, ast.Name) else None)
        if ref is None and isinstance(func, ast.Name) and func.id in self.partials:
            ref, bound_args, bound_kwargs = self.partials[func.id]
            args = [*bound_args, *args]
            kwargs = [*bound_kwargs, *kwargs]
        alternatives: list[Kind] = []
        if ref is None and isinstance(func, ast.Name) and func.id in self._function_aliases:
            *others, ref = self._function_aliases[func.id]
            for other in others:  # `fn(x)` after `fn = a` or `fn = b`: the same arguments reach a
                alternatives.append(self._record_site(other, node, args, kwargs))
        if ref is None and isinstance(func, ast.Name) and func.id in self.instances:
            ref = f"instance:{self.instances[func.id]}>__call__"  # obj(...) on obj = Cls(...)
        if ref is None and (constructor := built_here(func)) is not None:
            ref = f"instance:{constructor}>__call__"  # Cls(...)(x)
        ref = ref or callee_ref(func)
        if ref is None:
            return NOT_TENSOR
        self._record_site(ref, node, args, kwargs)
        if self.summary.local_objects:
            for check_held in C.HELD_OBJECT_CALLS:
                check_held(self, node)
        if _has_generator_argument(node):
            for check_generator in C.GENERATOR_ARGUMENT_CALLS:
                check_generator(self, node)
        if (self._loop_depth or self._try_depth) and skipped_frames.COMPREHENSIONS_ARE_FRAMES:
            self._frame_skips.site(len(self.summary.calls) - 1, self._loop_depth > 0)
        if sources := str_enums.argument_sources(node, args, kwargs):
            self.summary.call_member_sources.append((len(self.summary.calls) - 1, sources))
        if self.dependency_calls:
            for check_call in C.DEPENDENCY_CALLS:
                check_call(self, node)
            if node.keywords:
                if self._sizes is None:
                    self._sizes = keyword_arguments.Sizes(self.node, self.self_name)
                keyword_arguments.record_passed_names(
                    self.summary, len(self.summary.calls) - 1, node, self.self_name, self._sizes
                )
        return Kind.union([Kind.of_call(len(self.summary.calls) - 1), *alternatives])

    def _record_site(
        self, ref: str, node: ast.Call, args: list[Kind], kwargs: list[tuple[str | None, Kind]]
    ) -> Kind:
        bound = ref.startswith(("self:", "super:", "instance:"))
        site = CallSite(
            ref, tuple(args), tuple((k, v) for k, v in kwargs if k is not None), bound, node.lineno
        )
        self.summary.calls.append(site)
        return Kind.of_call(len(self.summary.calls) - 1)

    # ---- reporting ----------------------------------------------------------------------
    @property
    def in_condition(self) -> bool:
        return self._test_depth > 0

    def is_scalar_tensor(self, node: ast.expr) -> bool:
        return tensor_rank.is_scalar(node, self._scalars, self.resolve)

    def is_context_manager(self, node: ast.expr) -> bool:
        return id(node) in self._context_managers

    def annotated_tensor(self, name: str) -> bool:
        return name in self._annotated_tensors

    def kind_of(self, node: ast.expr) -> Kind:
        return self._kinds.get(id(node), NOT_TENSOR) if self._kinds is not None else NOT_TENSOR

    def report(self, rule: Rule, node: ast.AST, message: str, deps: Kind, gb_id: str | None = None) -> None:
        draft = self._draft(rule, node, message, deps, gb_id)
        if draft is None:
            return
        self.summary.drafts.append(draft)
        if self._loop_depth:
            self._eager_after = self._eager_after | deps.without_flags()
        if (self._loop_depth or self._try_depth) and skipped_frames.COMPREHENSIONS_ARE_FRAMES:
            self._frame_skips.draft(deps.without_flags(), self._loop_depth > 0)

    def _draft(self, rule: Rule, node: ast.AST, message: str, deps: Kind, gb_id: str | None,
               by_extent: bool = False, own_frame: bool = False) -> Draft | None:
        row, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        end_row = node.end_lineno or row  # type: ignore[attr-defined]
        end_col = node.end_col_offset or col  # type: ignore[attr-defined]
        # by_extent: `d.cov.evaluate()` and `d.cov` start at one column, and each may break
        key = (rule.code, row, col, end_row, end_col) if by_extent else (rule.code, row, col)
        eager_after = NOT_TENSOR if own_frame else self._eager_after
        if key in self._reported or eager_after.always:
            return None  # loop bodies run twice
        self._reported.add(key)
        line = self.lines[row - 1] if row <= len(self.lines) else ""
        end_line = self.lines[end_row - 1] if end_row <= len(self.lines) else ""
        gb_id = gb_id or rule.graph_break_id(python_bool=deps.data_dependent_bool)
        return Draft(
            rule.code, modes.named(message, self._modes), row, _char_column(line, col), end_row,
            _char_column(end_line, end_col), gb_id, deps.without_flags() or deps,
            line.rstrip("\r\n"), eager_after, rare=self._rare_depth > 0,
        )

    def report_if_callee_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        # Asked right after the call site was recorded: it is the last one.
        draft = self._draft(rule, call, message, TENSOR, None)
        if draft is not None:
            self.summary.callee_break_drafts.append((len(self.summary.calls) - 1, draft))

    def report_if_dependency_breaks(self, rule: Rule, call: ast.expr, message: str) -> None:
        # Asked right after the call site was recorded: it is the last one.
        draft = self._draft(rule, call, message, TENSOR, None, by_extent=True)
        if draft is not None:
            self.summary.dependency_call_drafts.append((len(self.summary.calls) - 1, draft))

    def builder_of(self, name: str) -> str | None:
        return self.built_by.get(name)

    def keyword_kinds(self, call: ast.Call) -> dict[str, Kind]:
        return self._keyword_kinds.get(id(call), {})

    def assumed_tensor(self, kind: Kind) -> bool:
        return not kind.always and not kind.calls and bool(kind.params) and kind.params <= self._assumed

    def report_if_held_object_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        # Asked right after the call site was recorded: it is the last one. Its own set of lines
        # reported, so GM605's `obj.method()` draft at the same call is still made.
        key = (rule.code, call.lineno, call.col_offset)
        if key in self._held_reported or key in self._reported:
            return
        draft = self._draft(rule, call, message, TENSOR, None)
        self._reported.discard(key)
        if draft is not None:
            self._held_reported.add(key)
            alive = tuple(site for site, _ in self.summary.local_objects)
            self.summary.held_object_drafts.append((alive, len(self.summary.calls) - 1, draft))

    def report_if_built_eagerly(self, rule: Rule, call: ast.Call, message: str) -> None:
        draft = self._draft(rule, call, message, TENSOR, None)
        if draft is not None:
            self.summary.metaclass_call_drafts.append(draft)

    def report_if_module_init_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        draft = self._draft(rule, call, message, TENSOR, None)
        if draft is not None:
            self.summary.module_init_drafts.append((len(self.summary.calls) - 1, draft))

    def report_if_frame_skipped(self, rule: Rule, node: ast.expr, message: str, deps: Kind) -> None:
        # Its own frame: a break before it (which `suppressed_if` records) is what makes it break.
        draft = self._draft(rule, node, message, deps, None, own_frame=True)
        if draft is not None:
            self._frame_skips.comprehension(draft)

    def report_if_str_enum_member(self, rule: Rule, call: ast.Call, param: str, message: str, gb_id: str) -> None:
        draft = self._draft(rule, call, message, TENSOR, gb_id)
        if draft is not None:
            self.summary.str_method_drafts.append((param, draft))


# Expression handlers by node type, looked up once per node (cheaper than getattr by name).
_EXPR_HANDLERS: dict[type, Callable[[FunctionAnalyzer, Any, Env], Kind]] = {
    getattr(ast, name.removeprefix("_expr_")): handler
    for name, handler in vars(FunctionAnalyzer).items()
    if name.startswith("_expr_")
}


def _submodule_iteration(node: ast.For | ast.AsyncFor) -> tuple[str, str] | None:
    """`for layer in self.layers` / `for i, layer in enumerate(self.layers)`: (layer, ref)."""
    source, target = node.iter, node.target
    if (
        isinstance(source, ast.Call)
        and isinstance(source.func, ast.Name)
        and source.func.id == "enumerate"
        and len(source.args) == 1
        and isinstance(target, ast.Tuple)
        and len(target.elts) == 2
    ):
        source, target = source.args[0], target.elts[1]
    if (
        isinstance(target, ast.Name)
        and isinstance(source, ast.Attribute)
        and isinstance(source.value, ast.Name)
        and source.value.id == "self"
    ):
        return target.id, f"self:{source.attr}[]"
    return None


@functools.lru_cache(maxsize=4096)
def _attribute_kind(attribute: str) -> Kind:
    """The kind of a read of `self.ATTRIBUTE`: a pseudo-parameter the scope solver decides."""
    return Kind.of_param(f"self.{attribute}")


def _nested_state(node: ast.Attribute, self_name: str | None, env: Env) -> str | None:
    """"OWNER.NAME" for a read of `self.OWNER.NAME` (the attribute of an object this class keeps,
    `self.scheduler.timesteps`), which the solver looks up in the classes OWNER is typed with."""
    value = node.value
    if (
        isinstance(value, ast.Attribute)
        and isinstance(value.value, ast.Name)
        and value.value.id == self_name
        and self_name not in env
        and value.attr not in V.STATIC_ATTRS
        and node.attr not in V.STATIC_ATTRS
        and node.attr not in V.TENSOR_ATTRS
    ):
        return f"{value.attr}.{node.attr}"
    return None


def _none_test(test: ast.expr) -> tuple[str | None, bool]:
    """(`x`, True) for `x is None`, (`x`, False) for `x is not None`, else (None, False)."""
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
        and isinstance(test.ops[0], (ast.Is, ast.IsNot))
    ):
        return test.left.id, isinstance(test.ops[0], ast.Is)
    return None, False


def _narrow_to_none(env: Env, name: str) -> None:
    """On the path where parameter `name` is None, nothing derived from it is a tensor."""
    for key, kind in env.items():
        env[key] = kind.without_param(name)
    env[name] = NOT_TENSOR


def _derived_from(kind: Kind, source: Kind) -> bool:
    """A kind that is a tensor only when `source` is (made of its parameters and call sites)."""
    return (
        kind.nonempty and not kind.always and source.nonempty and not source.always
        and kind.params <= source.params and kind.calls <= source.calls
    )


def _seeded_generator(value: ast.expr, resolve: Callable[[ast.expr], str | None]) -> str | None:
    """`torch.Generator(device).manual_seed(seed)`: manual_seed returns the generator itself."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "manual_seed"
        and isinstance(value.func.value, ast.Call)
    ):
        return resolve(value.func.value.func)
    return None


def _has_generator_argument(call: ast.Call) -> bool:
    """`f(g(x) for g in gs)`, `f(*(...))`, `f(items=(...))`: a generator expression passed in."""
    return any(
        isinstance(arg.value if isinstance(arg, ast.Starred) else arg, ast.GeneratorExp) for arg in call.args
    ) or any(isinstance(keyword.value, ast.GeneratorExp) for keyword in call.keywords)


def _names_a_class(ref: str) -> bool:
    """`Cls(...)`, `mod.Cls(...)`: a constructor by its name (`y = self.norm(x)` is not one)."""
    kind, _, name = ref.partition(":")
    return kind in ("name", "dotted") and name.rpartition(".")[2][:1].isupper()


def _attributes_only(kind: Kind) -> bool:
    """A kind that is a tensor only if some `self.<name>` attribute is one."""
    return not kind.always and not kind.calls and all(name.startswith("self.") for name in kind.params)


def _union(kinds: Iterable[Kind]) -> Kind:
    return Kind.union(kinds)


def _common_shape(shapes: list[tuple[Kind, ...] | None]) -> tuple[Kind, ...] | None:
    """Element kinds when every return is a tuple display of one length."""
    if not shapes or any(shape is None for shape in shapes):
        return None
    lengths = {len(shape) for shape in shapes if shape is not None}
    if len(lengths) != 1:
        return None
    return tuple(_union(column) for column in zip(*(shape for shape in shapes if shape is not None)))


def _constant_index(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _slice_bounds(node: ast.expr, evaluate: Callable[[ast.expr], Kind]) -> Kind:
    """The kinds of the bounds of every slice in an index (`x[:, a:b]`)."""
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    kinds = [
        evaluate(bound).without_flags()
        for part in parts
        if isinstance(part, ast.Slice)
        for bound in (part.lower, part.upper, part.step)
        if bound is not None
    ]
    return _union(kinds)


def _is_builtin_call(node: ast.expr, name: str, resolve: Resolve) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
        and resolve(node.func) in (None, name)
    )


def _is_validation_guard(node: ast.If) -> bool:
    return not node.orelse and len(node.body) == 1 and isinstance(node.body[0], ast.Raise)


def _merge_into(env: Env, *arm_envs: list[Env]) -> None:
    arms = [arm for group in arm_envs for arm in group]
    if not arms:
        return
    names = set().union(*(arm.keys() for arm in arms))
    for name in names:
        env[name] = Kind.union(arm.get(name, NOT_TENSOR) for arm in arms)


def _char_column(line: str, byte_offset: int) -> int:
    """ast columns are UTF-8 byte offsets; findings use 1-based character columns."""
    if line.isascii():
        return byte_offset + 1
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1
