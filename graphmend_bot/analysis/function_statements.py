"""Statements: assignments and bindings, branches, loops, `with`, `try`, `return` (`assert` and
`match`: assert_statements.py, match_statements.py; `if`: if_statements.py).

Branch arms run on copies of the environment that are merged afterwards (an arm that always
leaves is dropped); loop bodies run twice so values that flow around the loop are seen.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import cast

from graphmend_bot.analysis import (
    assert_statements,
    breaking_reads,
    generator_bindings,
    if_statements,
    manager_bodies,
    masks,
    match_statements,
    modes,
    narrowing,
    ndarray_bindings,
    operator_dunders,
    property_reads,
    skipped_frames,
    statement_forms,
    tensor_rank,
    unpacked_values,
    value_class,
)
from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis.function_expressions import ExpressionEvaluator
from graphmend_bot.analysis.function_objects import names_a_class
from graphmend_bot.analysis.function_state import Env
from graphmend_bot.analysis.guards import compile_guard_value
from graphmend_bot.analysis.sized import COLLECTION_DISPLAYS, length_test
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind


class StatementVisitor(ExpressionEvaluator):
    """Statements run in order over the environment; bindings, branches and loops update it."""

    def block(self, body: Iterable[ast.stmt], env: Env) -> bool:
        """Run statements in order; True when the block always leaves (return/raise/...)."""
        depth = len(self._modes)  # a guard clause's mode holds to the end of its block (if_statements)
        for stmt in body:
            if self.stmt(stmt, env):
                del self._modes[depth:]
                return True
        del self._modes[depth:]
        return False

    def stmt(self, node: ast.stmt, env: Env) -> bool:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)):
            before = len(self.summary.calls), len(self._usual_draft_kinds)
            kind = self.expr(node.value, env) if isinstance(node, ast.Expr) else self._assign(node, env)
            if self._frame_skips.read_since(before[0]):  # GM657, before the statement's operations count
                breaking_reads.asked(self, node, before[0])
            operation = isinstance(node, ast.AugAssign) or (
                statement_forms.is_operation(node.value) and not self._builds_object(node.value))
            self._count_operation(node, operation, kind, before)
        elif isinstance(node, ast.If):
            return if_statements.walk(self, node, env)
        elif isinstance(node, ast.While):
            first_site = len(self.summary.calls)
            self._bool_context(node.test, env, "while")
            breaking_reads.ask_test(self, node, first_site)  # the first test runs before the loop
            self._loop_depth += 1
            for _ in range(2):
                self.block(node.body, env)
            self._loop_depth -= 1
            self._bool_context(node.test, env, "while")  # as the body left it: `k = None` before, a tensor after
            self.block(node.orelse, env)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            first_site = len(self.summary.calls)
            element, elements = self._iteration(node.iter, env)
            breaking_reads.ask_test(self, node, first_site)  # `for v in box`: GET_ITER, before the loop (GM658)
            self._loop_depth += 1
            alias = statement_forms.submodule_iteration(node, self.builtin_of)
            for _ in range(2):
                self._bind(node.target, element, env, elements)
                self.bind_loop_scalar(node.target, node.iter)
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
                for check_built in C.BUILT_MANAGERS if self._last_site_node == id(item.context_expr) else ():
                    check_built(self, item.context_expr)  # `with Section(name):`, judged by its `__init__`
                if item is node.items[0]:
                    self._entered(item.context_expr)
                for check_entered in C.ENTERED_VALUES:
                    check_entered(self, item.context_expr)  # `with lock:`, `with self.lock:`, `with helper():`
                opens_file |= statement_forms.is_builtin_call(item.context_expr, "open", self.builtin_of)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, NOT_TENSOR, env)
                    self.entered_as(item)  # `with contextlib.ExitStack() as stack:`
            with manager_bodies.walked_body(self, node):  # GM660 asks what the body breaks
                leaves = self.block(node.body, env)
            if opens_file:
                self._eager_after = TENSOR
            return leaves
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self._try(cast(ast.Try, node), env)  # TryStar has the same fields
        elif isinstance(node, ast.Match):
            return match_statements.walk(self, node, env)  # cases as `if`/`elif` arms
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            self._definition(node, env)
        elif isinstance(node, ast.Return):
            first_site = len(self.summary.calls)
            if isinstance(node.value, ast.Name) and node.value.id not in env:
                # a factory returning its closure, or a class or function defined elsewhere
                self.returned_functions.add(node.value.id)
            elif isinstance(node.value, ast.Tuple):  # `return packed, unpack_one`: a closure beside a value
                self.returned_element_functions.update(statement_forms.returned_names(node.value, env))
            if node.value is not None:
                elements = statement_forms.display_kinds(node.value, lambda e: self.expr(e, env))
                if elements is not None:
                    self.returns |= Kind.union(elements)
                    self.return_shapes.append(elements)
                    self.output_shapes.append(elements)
                    self.mask_returns = self.scalar_returns = None
                else:
                    returned = self.expr(node.value, env)
                    self.returns |= returned
                    self.return_mask(returned, self.is_scalar_tensor(node.value))
                    self.return_shapes.append(shape := self._returned_tuple(node.value, returned))
                    self.output_shapes.append(shape or statement_forms.output_fields(node.value, env))
                self._record_returned_collections(node.value)
            else:
                self.mask_returns = self.scalar_returns = None
            if self._frame_skips.read_since(first_site):
                breaking_reads.asked(self, node, first_site)
            return True
        elif isinstance(node, ast.Raise):
            # Built on the error path only, never traced, unless a handler here catches it (GM625)
            if node.exc is not None and statement_forms.caught_here(node.exc, self._handled):
                self.expr(node.exc, env)
            return True
        elif isinstance(node, ast.Assert):
            assert_statements.walk(self, node, env)  # the test as one conversion, like an `if` test
        elif isinstance(node, (ast.Break, ast.Continue)):
            return True
        elif isinstance(node, ast.Global):
            self._globals.update(node.names)
        return False

    def _try(self, node: ast.Try, env: Env) -> None:
        checkpoint = self._resumable()
        # Before two operations anywhere, Dynamo has no point to resume at: a break in this body skips
        # the whole frame, and every comprehension of it runs as its own (skipped_frames.py).
        self._frame_skips.enter_try(frame_wide=self._operations_before < 2, body=node.body)
        self._try_depth += 1
        self._handled.append(statement_forms.handled_names(node.handlers))
        if checkpoint is not None:
            self._try_checkpoint = checkpoint
            for check_try in C.BREAKING_TRIES:
                check_try(self, node)
        self.block(node.body, env)
        self._frame_skips.exit_try()
        self._handled.pop()
        self._try_depth -= 1
        for handler in node.handlers:
            if handler.name:
                env[handler.name] = NOT_TENSOR
                self._caught.add(handler.name)
            self._rare_block(handler.body, dict(env), rare=True)
            self._caught.discard(handler.name or "")
        self.block(node.orelse, env)
        self.block(node.finalbody, env)

    def _entered(self, value: ast.expr) -> None:
        """`with helper(...):` / `with Cls(...):` / `with timer:` (a local `Cls(...)` built) just
        evaluated: Dynamo runs a class's `__enter__` and `__exit__` (call sites of their own, so the
        scope traces them), and after a point it can resume at, the rules judge what entering breaks
        (analysis/entered_managers.py)."""
        if isinstance(value, ast.Call):
            sites = [len(self.summary.calls) - 1] if self._last_site_node == id(value) else []
            constructor = self._constructor_ref(value.func)
        elif isinstance(value, ast.Name):
            sites, constructor = [], self.instances.get(value.id)
        else:
            return
        if constructor is not None and names_a_class(constructor):
            for method in ("__enter__", "__exit__"):
                sites.append(len(self.summary.calls))
                self._record_site(f"instance:{constructor}>{method}", value, [], [])
        if sites and (resumable := self._resumable()) is not None:
            self._resumable_entry = (resumable, tuple(sites))
            for check_entered in C.ENTERED_CALLS:
                check_entered(self, value)

    def _assign(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, env: Env) -> Kind:
        """Binds the targets; returns the kind of the value."""
        if node.value is None:
            return NOT_TENSOR
        arrays = ndarray_bindings.bound(node, self._ndarrays, self.resolve)  # judged before rebinding
        elements = statement_forms.display_kinds(node.value, lambda e: self.expr(e, env))
        if elements is None and isinstance(node.value, ast.Name):
            elements = self.tuples.get(node.value.id)
        kind = Kind.union(elements) if elements is not None else self.expr(node.value, env)
        if elements is None:  # `values, indices = mask.max(-1)`: only the values are a mask
            elements = masks.pair_elements(node.value, kind)
        if elements is None and isinstance(node, ast.Assign) and unpacked_values.unpacks(node):
            kind, elements = unpacked_values.unpacked(self, node, kind)  # `a, b = params` of `params: Sequence[Tensor]`
        if isinstance(node, ast.Assign):
            self._python_fallback(node, env)
            classes = self._value_classes(node.targets, node.value, env)  # before rebinding
            pairs = [name for target in node.targets for name in self._scalar_pairs(target, node.value)] if (
                self._scalars or isinstance(node.value, (ast.Tuple, ast.List))) else []  # most functions have none
            for target in node.targets:
                if isinstance(target, ast.Attribute) and (write := C.ATTRIBUTE_WRITES.get(target.attr)) is not None:
                    write(self, target, self.expr(target.value, env))
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in self._caught:
                    for check_caught in C.CAUGHT_EXCEPTION_WRITES:  # `err.detail = ...` in `except E as err:`
                        check_caught(self, target)
                self._bind(target, kind, env, elements, node.value)
                self._global_store(target, node.value)
            if len(node.targets) == 1 and isinstance(node.value, ast.Call):
                self._bound_to_call_result(node.targets[0])
            self.instances.update(classes)
            self._scalars.update(pairs)  # `i, j = s.argmax(), s.argmin()`
            self._unpacked(node.targets, node.value)
            if isinstance(node.value, operator_dunders.OPERANDS) and isinstance(node.targets[0], (ast.Tuple, ast.List)):
                operator_dunders.unpacked(self, node.targets, node.value, env)  # `a, b = box`: its `__iter__`
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self._assign_name(node, node.targets[0].id, node.value, classes, env)
        elif isinstance(node, ast.AugAssign):
            previous = self.expr(node.target, env) if not isinstance(node.target, ast.Name) else env.get(node.target.id, NOT_TENSOR)
            grown = self._grown_tuple(node, elements, previous)
            if C.OBJECT_OPERANDS and type(node.op) in value_class.OPERATOR_METHODS:
                self._object_operand(node, previous, kind, env)  # `t *= scale`, `scale *= t`
            if isinstance(node.target, operator_dunders.OPERANDS):
                operator_dunders.augmented(self, node, kind, env)  # `box += 1`: its class's `__iadd__` (`__add__`)
            kind = previous | kind
            pairs = self._scalar_pairs(node.target, ast.BinOp(left=node.target, op=node.op, right=node.value)) if (
                isinstance(node.target, ast.Name) and node.target.id in self._scalars) else []
            self._bind(node.target, kind, env, grown[0] if grown is not None and not grown[1] else None)
            self._scalars.update(pairs)  # `i += 1` keeps a 0-d `i` 0-d
            if grown is not None and grown[1]:
                self._tuple_prefixes[cast(ast.Name, node.target).id] = (grown[0], kind)
        else:
            self._bind(node.target, kind, env, value=node.value)
            if isinstance(node.target, ast.Name) and skipped_frames.builds_collection(node.value, True, self.builtin_of):
                self._collections.add(node.target.id)  # `out: List[Tensor] = []`
            if isinstance(node.value, ast.Call):
                self._bound_to_call_result(node.target)
            annotated = value_class.class_annotation(node.annotation, self.resolve)
            if annotated is not None and isinstance(node.target, ast.Name):
                self.instances[node.target.id] = value_class.typed(annotated)
        self._ndarrays.update(arrays)
        return kind

    def _scalar_pairs(self, target: ast.expr, value: ast.expr) -> list[str]:
        """The names `target = value` binds to 0-d tensors by an unpacking or an update (tensor_rank.py),
        judged before rebinding: `i = i - 1` of a 0-d `i` (another name is judged after, by bind_rank)."""
        if isinstance(target, ast.Name):
            return [target.id] if target.id in self._scalars and self.is_scalar_tensor(value) else []
        return tensor_rank.scalar_pairs(target, value, self._scalars, self._numbers, self.resolve_callee,
                                        self._one_dimensional)

    def _assign_name(self, node: ast.Assign, name: str, value: ast.expr, classes: dict[str, str], env: Env) -> None:
        """What `name = value` (one bare target) makes `name` hold beyond its kind."""
        self._bound_closure(name, value, env)  # `scale = lambda z: z * y`
        if skipped_frames.builds_collection(value, True, self.builtin_of) or self._property_collection(value, env):
            self._collections.add(name)
            if statement_forms.builds_dict(value, self.builtin_of):
                self._dicts.add(name)
        self.bind_rank(name, value)
        if tensor_rank.python_number(value, self._numbers):
            self._number_bindings[name] = self._number_bindings.get(name, 0) + 1
            if self._number_bindings[name] == self._bindings.get(name, 0):
                self._numbers.add(name)
        constructor = self.constructor_of(value)
        if constructor is not None and name not in classes:
            self.instances[name] = constructor
            if names_a_class(constructor) and (keywords := self._keyword_kinds.get(id(value))):
                self._fields[name] = keywords  # its fields, read by name (function_expressions)
            if (id(node) in self._top_level and names_a_class(constructor)
                    and self.summary.calls and self.summary.calls[-1].ref == constructor):
                # built on every path (held_objects.py): one built under an `if` is not always there
                self.summary.local_objects.append((len(self.summary.calls) - 1, node.lineno))
            if (built_by := self.resolve(cast(ast.Call, value).func)) is not None:
                self.built_by[name] = built_by
                if id(node) in self._top_level:
                    self._built_on_every_path.add(name)
            self._partial(name, cast(ast.Call, value), env)
        if (seeded := statement_forms.seeded_generator(value, self.resolve)) is not None:
            self.built_by[name] = seeded  # `g = torch.Generator(d).manual_seed(s)`
        if (guard := compile_guard_value(value, self.resolve, self.guards, self.guard_helpers)) is not None:
            self.guards[name] = guard

    def _builds_object(self, value: ast.expr | None) -> bool:
        """`beam = Beam(x)`: building an object of a class puts no operation in the graph, so it is no
        step towards the two a resume point needs (tests/test_breaking_reads.py); `torch.Tensor(...)` is one."""
        ref = self.constructor_of(value) if value is not None else None
        resolved = self.resolve(value.func) if isinstance(value, ast.Call) else None
        return ref is not None and names_a_class(ref) and not (resolved or "").startswith("torch.")

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
        if not fallback_kind.nonempty or statement_forms.attributes_only(fallback_kind):
            self._python_params.add(name)

    def _record_returned_collections(self, value: ast.expr) -> None:
        """Whether this `return` gives a collection, and which elements of a display it returns are."""
        if isinstance(value, ast.Constant) and value.value is None:
            return  # None's truth is False: it leaves the other returns to decide
        self.returned_collections.append(self._is_collection(value))
        self.returned_builtin_collections.append(skipped_frames.builds_collection(value, True, self.builtin_of) or (
            isinstance(value, ast.Name) and value.id in self._collections and self._only_collections(value.id)))
        displayed = isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts)
        elements = tuple(self._is_collection(e) for e in cast(ast.Tuple, value).elts) if displayed else None
        self.returned_element_collections.append(elements)

    def _is_collection(self, value: ast.expr) -> bool:
        """A display, a comprehension, or a local collection: its truth is its length, not a tensor's."""
        return isinstance(value, COLLECTION_DISPLAYS) or (isinstance(value, ast.Name) and self._sized(value.id))

    def _bind(self, target: ast.expr, kind: Kind, env: Env, elements: tuple[Kind, ...] | None = None,
              value: ast.expr | None = None) -> None:
        if isinstance(target, ast.Name):
            name = target.id
            if kind.is_tensor:  # the only bindings ModeValues records
                self._mode_values.bound(name, value, kind, env.get(name, NOT_TENSOR).is_tensor,
                                        tuple(self._modes), lambda other: env.get(other, NOT_TENSOR))
            env[name] = narrowing.NONE_VALUE if narrowing.is_none_constant(value) else kind  # decides `is None`
            self._rebound.add(name)
            self._bindings[name] = self._bindings.get(name, 0) + 1
            sequence = value is not None and elements is None and type(value) is ast.Call and length_test(value, env, self.resolve)
            if value is not None and (elements is not None or sequence or skipped_frames.builds_collection(value, True, self.builtin_of)):
                self._collection_bindings[name] = self._collection_bindings.get(name, 0) + 1
            generator_bindings.rebound(self, name, value)  # `g = None` in the other arm keeps a generator
            if sequence:
                self._sequences.add(name)
            if elements is not None:
                self.tuples[name] = elements
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            if elements is None and not starred and kind.is_call_result:
                # `a, b = helper(...)`: element K of what call site I returns.
                elements = tuple(kind.element(k) for k in range(len(target.elts)))
            if not starred and value is not None:  # `x, t = solver.sync(x, t)`: each keeps its kind too
                elements = statement_forms.passed_through(target.elts, value, elements or (kind,) * len(target.elts), env)
            if elements is not None and not starred and len(elements) == len(target.elts):
                for element, element_kind in zip(target.elts, elements):
                    self._bind(element, element_kind, env)
                return
            for element in target.elts:
                self._bind(element, kind, env)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, kind, env)
        elif isinstance(target, ast.Subscript):
            # x[mask] = v is index_put: traceable (no mask hook is asked); an int index or a slice
            # bound that is a tensor is read back as on a load (`x[i] = v`, `x[:n] = v`).
            self._stored_index(target, self.expr(target.value, env), self._index(target.slice, env), kind, env)
            if isinstance(target.value, ast.Name) and target.value.id in self._collections:
                self._grow_collection(target.value.id, "append", [kind], env)  # `out["logits"] = t`
        elif isinstance(target, ast.Attribute):
            self.expr(target.value, env)
            if isinstance(target.value, ast.Name) and target.value.id == self.self_name:
                self.write_attribute(target.attr, kind)
            if (ref := property_reads.setter_ref(target, self.properties, self.self_name, env)) is not None:
                self._class_site(target, ref, [kind])  # the property's setter runs

    def _rare_block(self, body: list[ast.stmt], env: Env, rare: bool, checked: Kind | None = None,
                    mode: str | None = None) -> bool:
        """Run an arm; `checked`: the kind of a name `isinstance(name, torch.Tensor)` proves a tensor there
        (methods called on it are tensors exactly when it is). `mode`: the arm's (modes.py), its findings name."""
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
