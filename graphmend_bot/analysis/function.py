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
    narrowing,
    skipped_frames,
    str_enums,
    tensor_rank,
    value_class,
)
from graphmend_bot.analysis.frequency import is_rare_arm
from graphmend_bot.analysis.function_calls import CallResolver
from graphmend_bot.analysis.function_state import Env, Resolve
from graphmend_bot.analysis.guards import compile_guard_value, evaluated_before_guard
from graphmend_bot.analysis.parameter_annotations import (
    bool_tensor_annotation,
    tensor_mapping_annotation,
    tensor_param,
    yields_to_callers,
)
from graphmend_bot.rules import Conversion
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

# `a & b`, `a | b`, `a ^ b` of masks are masks.
_MASK_OPERATORS = (ast.BitAnd, ast.BitOr, ast.BitXor)


class FunctionAnalyzer(CallResolver):
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
        self._bool_context(node.test, env, "if")
        body_env, else_env = dict(env), dict(env)
        none_name, none_in_body = narrowing.none_test(node.test) or (None, False)
        if none_name is not None and env.get(none_name) == Kind.of_param(none_name):
            narrowing.narrow_to_none(body_env if none_in_body else else_env, none_name)
        python_value = narrowing.isinstance_arm(node.test, self.resolve)
        if python_value is not None:
            python_name, python_in_body = python_value
            (body_env if python_in_body else else_env)[python_name] = NOT_TENSOR
        tensor_value = narrowing.tensor_arm(node.test, self.resolve)
        tensor_name, tensor_in_body = tensor_value if tensor_value is not None else (None, False)
        checked = env.get(tensor_name) if tensor_name is not None else None
        body_leaves = self._rare_block(node.body, body_env, is_rare_arm(node.body), checked if tensor_in_body else None)
        else_leaves = self._rare_block(node.orelse, else_env, is_rare_arm(node.orelse), None if tensor_in_body else checked)
        _merge_into(env, [] if body_leaves else [body_env], [] if else_leaves else [else_env])
        return body_leaves and else_leaves

    def _rare_block(self, body: list[ast.stmt], env: Env, rare: bool, checked: Kind | None = None) -> bool:
        """Run an arm; `checked` is the kind of a name `isinstance(name, torch.Tensor)` proves a
        tensor there: methods called on it are tensors exactly when it is, not always."""
        self._rare_depth += rare
        if checked is not None:
            self._checked_tensors.append(checked)
        try:
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


# Expression handlers by node type, looked up once per node (cheaper than getattr by name).
_EXPR_HANDLERS: dict[type, Callable[[FunctionAnalyzer, Any, Env], Kind]] = {
    getattr(ast, name.removeprefix("_expr_")): getattr(FunctionAnalyzer, name)
    for name in dir(FunctionAnalyzer)
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
