"""The kind of an expression (tensor, bool tensor, call result, not a tensor), one handler per node type.

Also where Python converts a value to a bool (conditions, `not`, `and`/`or`, ternaries, comprehension
filters): each such conversion of a tensor goes to the rule registered for it. Calls: function_calls.py.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from typing import Any

from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis import modes, narrowing, sized, skipped_frames, subclass_methods, value_class
from graphmend_bot.analysis import operator_dunders as dunders
from graphmend_bot.analysis import statement_forms as forms
from graphmend_bot.analysis.collection_returns import called_collection_sites
from graphmend_bot.analysis.function_calls import CallResolver
from graphmend_bot.analysis.function_state import Env
from graphmend_bot.analysis.guards import compile_guard_value, evaluated_before_guard
from graphmend_bot.analysis.iterated_items import item_kind, wrapper_items
from graphmend_bot.analysis.masks import element_kind, field_kind
from graphmend_bot.analysis.mode_values import Modes, short_circuited
from graphmend_bot.analysis.statement_forms import constant_index, python_comparison, slice_bounds
from graphmend_bot.analysis.subscripted_names import check as check_subscripted_name
from graphmend_bot.rules import Conversion
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.kind import BOOL_TENSOR, NOT_TENSOR, TENSOR, Kind

_MASK_OPERATORS = (ast.BitAnd, ast.BitOr, ast.BitXor)  # `a & b`, `a | b`, `a ^ b` of masks are masks


class ExpressionEvaluator(CallResolver):
    """The kind of each expression; where a tensor is converted to a bool, the rule for it is called."""

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

    def _expr_Constant(self, node: ast.Constant | ast.Lambda, env: Env) -> Kind:
        return NOT_TENSOR  # a lambda's body runs where it is called

    _expr_Lambda = _expr_Constant

    def _expr_Name(self, node: ast.Name, env: Env) -> Kind:
        if (kind := env.get(node.id)) is not None:  # one lookup: the most frequent expression of all
            return kind
        self.references.add(node.id)
        return NOT_TENSOR

    def _expr_Attribute(self, node: ast.Attribute, env: Env) -> Kind:
        on_self = isinstance(node.value, ast.Name) and node.value.id == self.self_name and node.value.id not in env
        self._property_site(node, env)
        if on_self and node.attr not in V.STATIC_ATTRS:
            return _attribute_kind(node.attr)  # module state: the solver types it per class
        owner = self.expr(node.value, env)
        self._attribute_read(node, owner)
        read = NOT_TENSOR
        if isinstance(node.value, ast.Name) and (ref := self._known_class(node.value.id)) is not None:
            # `covar.batch_shape` on a value of a known class: a property there runs, and gives what it returns
            read = self._class_site(node, f"getter:{ref}>{node.attr}", [])
        if node.attr in self.tuple_fields:
            return owner.without_flags()
        if isinstance(node.value, ast.Name) and node.attr in (built := self._fields.get(node.value.id, {})):
            return built[node.attr].without_flags()  # `state.v` of `state = LIFState(v=...)`, a class of another module
        nested = _nested_state(node, self.self_name, env)
        if nested is not None:
            if nested.partition(".")[0] in self.typed_attributes:  # `self.model.A`: its class's property runs
                self._class_site(node, f"getter:member:self>{nested.replace('.', '>')}", [])
            return _attribute_kind(nested)  # `self.scheduler.timesteps`: state of a typed attribute
        if isinstance(node.value, ast.Name) and node.value.id not in env and node.value.id != "self":
            self.references.add(f"{node.value.id}.{node.attr}")  # module.function passed as a value
        if node.attr in V.TENSOR_ATTRS or (node.attr in V.RESULT_FIELDS and isinstance(node.value, (ast.Call, ast.Name))):
            return field_kind(node, owner)
        return read

    def _expr_Subscript(self, node: ast.Subscript, env: Env) -> Kind:
        owner = self.expr(node.value, env)
        index = self._index(node.slice, env)
        if isinstance(node.ctx, ast.Load):
            self._implicit_call(node, node.value, "__getitem__", [index], env)  # `table[k]`: Table.__getitem__
            check_subscripted_name(self, node, env)  # `NDArray[np.float64]`
        bounds = slice_bounds(node.slice, lambda e: self.expr(e, env), self.is_ndarray)
        if bounds.nonempty:  # hooks look at bounds that may be tensors only
            for check_bounds in C.SLICE_BOUNDS:
                check_bounds(self, node, owner, bounds)
        position = constant_index(node.slice)
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
        if (isinstance(node.value, ast.Attribute) and node.value.attr in V.STATIC_ATTRS) or (
                isinstance(node.slice, ast.Constant) and node.slice.value in self.number_keys):  # c["size"]
            return NOT_TENSOR
        if self._reads_tensor_mapping(node.value, env) and not (
                isinstance(node.slice, ast.Constant) and node.slice.value in self.python_keys):
            return TENSOR  # params["order"] of `params: Dict[str, Tensor]`
        return element_kind(node, owner)

    def _reads_tensor_mapping(self, node: ast.expr, env: Env) -> bool:
        return (isinstance(node, ast.Name) and node.id in self._tensor_mappings
                and env.get(node.id) == Kind.of_param(node.id))  # not rebound in the body

    def _stored_index(self, target: ast.Subscript, owner: Kind, key: Kind, value: Kind, env: Env) -> None:
        """The hooks of `x[key] = v`: slice bounds, and the key for the store's own hooks (not the
        load's: a mask there is `index_put`, which traces). And the receiver's `__setitem__`."""
        self._implicit_call(target, target.value, "__setitem__", [key, value], env)
        bounds = slice_bounds(target.slice, lambda e: self.expr(e, env), self.is_ndarray)
        if bounds.nonempty:
            for check_bounds in C.SLICE_BOUNDS:
                check_bounds(self, target, owner, bounds)
        if key.nonempty:
            for check_store in C.INDEXED_STORES:
                check_store(self, target, owner, key)

    def _index(self, node: ast.expr, env: Env) -> Kind:
        return Kind.union(self.expr(e, env) for e in node.elts) if isinstance(node, ast.Tuple) else self.expr(node, env)

    def _expr_BinOp(self, node: ast.BinOp, env: Env) -> Kind:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if isinstance(node.left, dunders.OPERANDS) or isinstance(node.right, dunders.OPERANDS):
            dunders.binary(self, node, left, right, env)  # `covar + noise`: its class's `__add__` (`k + box`: `__radd__`)
        if C.OBJECT_OPERANDS and type(node.op) in value_class.OPERATOR_METHODS:
            self._object_operand(node, left, right, env)
        if type(node.left) is ast.Call or type(node.right) is ast.Call or type(node.op) is ast.Mod:  # `x.data_ptr() % 16`, `"%s" % (t,)`
            for check_operator in C.OPERATORS:
                check_operator(self, node, left, right)
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
        dunders.unary(self, node, env)  # `-box`: its class's `__neg__`
        if isinstance(node.op, ast.Invert) and C.OBJECT_OPERANDS:
            self._inverted_object(node)  # `~obj`: Dynamo has no `~` for objects
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
            dunders.truth(self, value, env)  # `box or x`: its class's `__bool__`
            if kind.is_tensor:
                conversion(self, value, kind)
        return Kind.union(kinds)

    def _bool_operands(self, node: ast.BoolOp, values: list[ast.expr], env: Env,
                       evaluate: Callable[[ast.expr, Env], Kind]) -> list[Kind]:
        """The kinds of `values`, each evaluated where the operands before it held (`and`) or
        failed (`or`), as narrowing.after_operand says: after `not torch.is_tensor(x) and`, `x` is not a tensor."""
        kinds = []
        for value in values:
            kinds.append(evaluate(value, env))
            env, ended = narrowing.after_operand(value, node.op, env, self.resolve, self.builtin_of, self._module_functions)
            if ended:
                break
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
        self._comparison(node, kinds, env)
        if python_comparison(node):
            return NOT_TENSOR
        kind = Kind.union(kinds).without_data_dependent_bool()
        return kind.as_bool_tensor() if kind.is_tensor else kind  # a tensor only if an operand is

    def _expr_IfExp(self, node: ast.IfExp, env: Env) -> Kind:
        under_compile = compile_guard_value(node.test, self.resolve, self.guards, self.guard_helpers)
        if under_compile is not None:
            self._before_guard(node.test, env)
            return self.expr(node.body if under_compile else node.orelse, env)
        self._bool_context(node.test, env, "ternary")
        with subclass_methods.narrowed(self.instances, node.test, self.resolve, self.builtin_of):  # `x.m() if isinstance(x, Q)`
            body = self.expr(node.body, env)
        return body | self.expr(node.orelse, env)

    def _expr_NamedExpr(self, node: ast.NamedExpr, env: Env) -> Kind:
        kind = self.expr(node.value, env)
        self._bind(node.target, kind, env)
        return kind

    def _sequence(self, node: ast.Tuple | ast.List | ast.Set, env: Env) -> Kind:
        dunders.displayed(self, node, env)  # `[*box]`: its class's `__iter__`
        return Kind.union([self.expr(element, env) for element in node.elts]).without_flags()

    _expr_Tuple = _expr_List = _expr_Set = _sequence

    def _expr_Dict(self, node: ast.Dict, env: Env) -> Kind:
        for key in node.keys:
            self.expr(key, env)
        return Kind.union([self.expr(value, env) for value in node.values]).without_flags()

    def _expr_Slice(self, node: ast.Slice, env: Env) -> Kind:
        for part in filter(None, (node.lower, node.upper, node.step)):
            self.expr(part, env)
        return NOT_TENSOR

    def _expr_Starred(self, node: ast.Starred, env: Env) -> Kind:
        return self.expr(node.value, env)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, env: Env) -> Kind:
        # Its elements are values of their own, not the condition's: `all(torch.equal(a, b) for ...)` is reported where made.
        depth, scalars, aliases, self._test_depth = self._test_depth, set(self._scalars), dict(self.aliases), 0
        nested = not isinstance(node, ast.GeneratorExp)  # a generator's break is the statement's (GB0091, measured)
        self._frame_skips.nested_depth += nested
        try:
            return self._comprehension_body(node, env)
        finally:  # its targets are its own: an enclosing `i` is 0-d (or `layer` no submodule) after it as before
            self._test_depth, self._scalars, self.aliases = depth, scalars, aliases
            self._frame_skips.nested_depth -= nested

    def _comprehension_body(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, env: Env) -> Kind:
        if not isinstance(node, ast.GeneratorExp) and skipped_frames.COMPREHENSIONS_ARE_FRAMES:
            self._comprehension_frame(node, env)
        inner = dict(env)
        self._dict_view_calls.update(skipped_frames.dict_view_calls(node, self.self_name, self.containers))
        for generator in node.generators:  # as a `for` loop: `zip(a, b)` / `enumerate(a)` items keep their kinds,
            outer = generator is node.generators[0] and not isinstance(node, ast.GeneratorExp)  # GET_ITER out there: GM658
            self._frame_skips.nested_depth -= outer
            item, elements = self._iteration(generator.iter, inner)
            self._frame_skips.nested_depth += outer
            self._bind(generator.target, item, inner, elements)
            self.aliases.update(filter(None, [forms.submodule_iteration(generator, self.builtin_of)]))  # `self.layers`' too
            self.bind_loop_scalar(generator.target, generator.iter)
            for condition in generator.ifs:
                self._bool_context(condition, inner, "filter")
        if isinstance(node, ast.DictComp):
            self.expr(node.key, inner)
            return self.expr(node.value, inner).without_flags()
        return self.expr(node.elt, inner).without_flags()

    _expr_ListComp = _expr_SetComp = _expr_GeneratorExp = _expr_DictComp = _comprehension

    def _comprehension_frame(self, node: skipped_frames.Comprehension, env: Env) -> None:
        """A comprehension over a list, dict or set after a break that may skip the frame: its own frame."""
        # or over a call's result, when the solver finds its callees return one (collection_returns.py)
        known = skipped_frames.iterates_collection(iterable := node.generators[0].iter, self._collections, self.builtin_of)
        needs = () if known else called_collection_sites(iterable, env, self._whole_call_results())
        if (known or needs) and (captured := skipped_frames.captured_kind(node, env, self.resolve, self.self_name)):
            self._frame_skips.needs = needs  # read by the draft the hooks make, set before each
            for check_comprehension in C.SKIPPED_FRAME_COMPREHENSIONS:
                check_comprehension(self, node, captured)

    def _test(self, test: ast.expr, env: Env) -> Kind:
        """Evaluate a condition; the whole test is one bool conversion, reported once."""
        self._test_depth += 1
        try:
            if isinstance(test, ast.BoolOp):
                return Kind.union(self._bool_operands(test, test.values, env, self._test))
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                return self._test(test.operand, env)
            if (isinstance(test, ast.Name) and self._sized(test.id)) or sized.length_test(test, env, self.resolve):
                self.expr(test, env)
                return NOT_TENSOR  # `if outputs:` on a local list, `if [x]:`, `if x.chunk(2):`: a length
            kind = self.expr(test, env)
            if self._operands is not None:
                self._operands.append((test, kind))
            return kind
        finally:
            self._test_depth -= 1

    def _sized(self, name: str) -> bool:
        """A local list, dict, set or tuple (`x.chunk(2)`'s too), or a collection parameter (`*args`) not rebound: truth is length."""
        return (((name in self._collections or name in self.tuples or name in self._sequences) and self._only_collections(name))
                or (name in self._sized_params and name not in self._rebound))

    def _only_collections(self, name: str) -> bool:
        """Every binding of `name` so far was to a collection (a display, a list/dict/set built)."""
        return self._collection_bindings.get(name, 0) == self._bindings.get(name, 0)

    def _whole_call_results(self) -> set[str]:
        """The locals every binding of which was to a call's result (or one element of it)."""
        return {name for name in self._call_results if self._call_result_bindings.get(name, 0) == self._bindings.get(name, 0)}

    def _before_guard(self, test: ast.expr, env: Env) -> None:
        """A condition a compile guard decides still evaluates, under compile, the operands that
        come before the guard (`if x.min() < 0 and not is_compiling():` reads `x.min() < 0` first):
        each is a bool conversion of its own."""
        for operand in evaluated_before_guard(test, self.resolve, self.guards, self.guard_helpers):
            self._bool_context(operand, env, "before-guard")

    def _bool_context(self, test: ast.expr, env: Env, conversion: Conversion) -> None:
        outer, self._operands = self._operands, []
        try:
            kind = self._test(test, env)
            operands = self._operands
        finally:
            self._operands = outer
        for operand, _ in operands:  # `if box:`: its class's `__bool__` (`__len__`); not an `assert`'s (GB0055)
            dunders.truth(self, operand, env)
        if not kind.is_tensor:
            return
        if not kind.always and any(self.is_ndarray(operand) for operand, _ in operands):  # `np.prod(x.shape) > 1`:
            kind = BOOL_TENSOR  # an array's truth under Dynamo is a tensor's, whatever its inputs (numpy_values.py)
        short = modes.short_circuit_mode(test, {id(o): k for o, k in operands if k.is_tensor}, self.off_flags)
        outer_mode, self._value_mode = self._value_mode, short_circuited(self._operand_mode(operands), short)
        outer_tested, self._length_tested = self._length_tested, _tested_whole(operands, self._whole_call_results())
        try:
            C.CONVERSIONS[conversion](self, test, kind)
        finally:
            self._value_mode, self._length_tested = outer_mode, outer_tested

    def _operand_mode(self, operands: list[tuple[ast.expr, Kind]]) -> tuple[Modes, Kind] | None:
        """The mode in which alone the condition's operands are tensors (mode_values.py)."""
        return self._mode_values.combined((o.id if isinstance(o, ast.Name) else None, kind) for o, kind in operands)

    def _iteration(self, node: ast.expr, env: Env) -> tuple[Kind, tuple[Kind, ...] | None]:
        """The kind of one item of `for ... in node` (a loop's, a comprehension's), and its elements if a tuple."""
        if isinstance(node, ast.Call) and (wrapped := wrapper_items(self, node, env)) is not None:
            return wrapped  # `enumerate(xs)`, `zip(xs, ys)`, `reversed(xs)`, `m.buffers()`
        if isinstance(node, ast.Name) and node.id in self.tuples:
            self.expr(node, env)
            return Kind.union(self.tuples[node.id]), None
        kind = self.expr(node, env).without_flags()
        self._implicit_call(node, node, "__iter__", [], env)
        for check_iterated in C.ITERATED:  # `for v in self.vals`: judged by what built it (GM676)
            check_iterated(self, node)
        return item_kind(self, node, kind), None  # a dict's keys, a param group's tensors


# Expression handlers by node type, inherited ones included (CallResolver's `_expr_Call`), looked up once per node.
_EXPR_HANDLERS: dict[type, Callable[[ExpressionEvaluator, Any, Env], Kind]] = {
    getattr(ast, name.removeprefix("_expr_")): getattr(ExpressionEvaluator, name)
    for name in dir(ExpressionEvaluator)
    if name.startswith("_expr_")
}


def _tested_whole(operands: list[tuple[ast.expr, Kind]], call_results: set[str]) -> Kind:
    """The call results a condition tests as they are (`if tokens:` on a local bound to one),
    read nowhere else in it (`if tokens and tokens[0].any():` reads an element): FunctionSummary's
    returns_sized then decide whether their truth is a length. A local bound to an item of one
    (`for t in tokens`, `t = tokens[i]`) has the same Kind and is no such test."""
    whole = {call for operand, kind in operands if _names(operand, call_results) for call in kind.calls}
    if not whole:
        return NOT_TENSOR
    read = {call for operand, kind in operands if not _names(operand, call_results) for call in kind.calls}
    return Kind(calls=frozenset(whole - read))


def _names(operand: ast.expr, call_results: set[str]) -> bool:
    return isinstance(operand, ast.Name) and operand.id in call_results


@functools.lru_cache(maxsize=4096)
def _attribute_kind(attribute: str) -> Kind:
    """The kind of a read of `self.ATTRIBUTE`: a pseudo-parameter the scope solver decides."""
    return Kind.of_param(f"self.{attribute}")


def _nested_state(node: ast.Attribute, self_name: str | None, env: Env) -> str | None:
    """"OWNER.NAME" for a read of `self.OWNER.NAME` (the attribute of an object this class keeps,
    `self.scheduler.timesteps`), which the solver looks up in the classes OWNER is typed with."""
    value = node.value
    if (
        isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == self_name
        and self_name not in env and value.attr not in V.STATIC_ATTRS
        and node.attr not in V.STATIC_ATTRS and node.attr not in V.TENSOR_ATTRS
    ):
        return f"{value.attr}.{node.attr}"
    return None
