"""Which class or object a local holds, so that a method call on it reaches that class's method.

`solver = SOLVERS[name](...)`, `covar: LinearOperator`, `mean, covar = d.mean, d.covariance`,
`g = torch.Generator(device)`, `f = functools.partial(g, x)`: the refs recorded here are what
function_calls.py resolves `solver.integrate(t)`, `covar.solve(rhs)` or `f(y)` to.
"""

from __future__ import annotations

import ast
import sys

from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis import (
    held_methods,
    held_ranks,
    property_reads,
    skipped_frames,
    statement_forms,
    tensorless_frames,
    value_class,
)
from graphmend_bot.analysis.callee_refs import built_here, callee_ref, is_super, own_class_ref
from graphmend_bot.analysis.closures import free_names
from graphmend_bot.analysis.function_reporting import FindingReporter
from graphmend_bot.analysis.function_state import Env
from graphmend_bot.analysis.model import CallSite
from graphmend_bot.analysis.stdlib_objects import built_class, held_name
from graphmend_bot.rules import Rule
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.kind import TENSOR, Kind


class ObjectTracker(FindingReporter):
    """Which class a local's value is: by annotation, by constructor, or read from such a value."""

    def bind_loop_scalar(self, target: ast.expr, iterable: ast.expr) -> None:
        super().bind_loop_scalar(target, iterable)
        self._held_loops.update(held_ranks.loop_attributes(target, iterable, self.self_name, self.resolve_callee))
        self._collections.update(skipped_frames.loop_collections(target, iterable, self._collections))

    def report_if_held_ranks(self, rule: Rule, node: ast.expr, message: str, deps: Kind, key: ast.expr,
                             gb_id: str) -> None:
        """`x[self.perm[0]]`, `y[..., i]` in `for i in self.order`: the draft stands when the module
        holds a tensor of the rank the key needs (held_ranks.py)."""
        elements = key.elts if isinstance(key, ast.Tuple) else [key]
        wanted: set[str] = set()
        for element in elements:
            found = held_ranks.needs(element, self._held_loops, self._numbers, self.resolve_callee, self.self_name)
            wanted |= found or set()
        draft = self._draft(rule, node, message, deps, gb_id) if wanted else None
        if draft is not None:
            self.summary.held_rank_drafts.append((tuple(sorted(wanted)), draft))

    def report_if_enters_dispatch_mode(self, rule: Rule, call: ast.Call, message: str) -> None:
        """`with Mode():`: the draft stands when the call builds a TorchDispatchMode of the tree (dispatch_modes.py)."""
        self._class_call_draft(self.summary.dispatch_mode_drafts, rule, call, message)

    def _value_classes(self, targets: list[ast.expr], value: ast.expr, env: Env) -> dict[str, str]:
        """The class refs `covar = self.lazy_covariance_matrix`, `c = covar.evaluate_kernel()` and
        `mean, covar = d.mean, d.lazy_covariance_matrix` bind (value_class.py). Constructor calls
        are recorded by the caller, as before."""
        if len(targets) != 1 or not self.instances:
            return {}  # no annotated value here: nothing to read a class from
        target = targets[0]
        if isinstance(target, ast.Name) and (not isinstance(value, ast.Call) or isinstance(value.func, ast.Attribute)):
            ref = self._class_ref(value, env)
            return {target.id: ref} if ref is not None and value_class.annotated_root(ref) else {}
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            # Only an annotated value's: `h = self.dense` locals are everywhere (RESULTS.md: multivariate_normal.py:236)
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
        return ref if names_a_class(ref) else None

    def _operand_class(self, node: ast.expr) -> str | None:
        """The class ref of an operand that is an object of a known class: a local (`_known_class`)
        or one built in place (`Scale(2)`, a capitalised callee)."""
        if isinstance(node, ast.Name):
            return self._known_class(node.id)
        ref = built_here(node)
        return ref if ref is not None and names_a_class(ref) else None

    def _object_operand(self, node: ast.BinOp | ast.AugAssign, left: Kind, right: Kind, env: Env) -> None:
        """`t * scale` / `scale * t`, a tensor and an object of a known class (`_receiver_class`: a local,
        `self.op`, a module's `SCALE`, `self`; or read from an annotated one: `y.conj()`), answered in eager by
        `__rmul__` / `__mul__`: Dynamo hands the object to the operation (`t *= scale` tries `__imul__` first).
        And `a @ b`, a local object of a known class and no tensor: Dynamo has no `@` for objects."""
        with_tensor, augmented = True, isinstance(node, ast.AugAssign)
        left_node, right_node = (node.target, node.value) if isinstance(node, ast.AugAssign) else (node.left, node.right)
        left_class, right_class = (self._receiver_class(n, env) or self._result_of(n, env) for n in (left_node, right_node))
        local = self._operand_class  # `a @ b` of objects: only locals' classes, as before held objects counted
        if isinstance(node.op, ast.MatMult) and not augmented and local(left_node) and (local(right_node) or not right.is_tensor):
            # an object built from tensors has a tensor's kind: its class says it is none
            method, tensor, with_tensor = f"instance:{left_class}>__matmul__", TENSOR, False
        elif left.is_tensor and left_class is None and (ref := right_class) is not None:
            method, tensor = f"instance:{ref}>{value_class.REFLECTED_METHODS[type(node.op)]}", left
        elif right.is_tensor and right_class is None and (ref := left_class) is not None:
            dunder = value_class.OPERATOR_METHODS[type(node.op)]
            method, tensor = f"instance:{ref}>{'__i' + dunder[2:] if augmented else dunder}", right
        else:
            return
        for check_operand in C.OBJECT_OPERANDS:
            check_operand(self, node, method, tensor, with_tensor)

    def _inverted_object(self, node: ast.UnaryOp) -> None:
        """`~obj` on an object of a known class: Dynamo's builtin `invert` has no handler for
        objects, built or received, so the class's `__invert__` never runs (measured: `-obj`,
        `+obj` and `abs(obj)` run theirs)."""
        if (ref := self._operand_class(node.operand)) is not None:
            for check_operand in C.OBJECT_OPERANDS:
                check_operand(self, node, f"instance:{ref}>__invert__", TENSOR, False)

    def _bound_to_call_result(self, target: ast.expr) -> None:
        for name in statement_forms.bound_names(target):  # (a Counter's update asks isinstance(Mapping) first)
            self._call_results.add(name)
            self._call_result_bindings[name] = self._call_result_bindings.get(name, 0) + 1

    def _global_store(self, target: ast.expr, value: ast.expr) -> None:
        """`NAME = value` after `global NAME`: the module's namespace changes from traced code."""
        if isinstance(target, ast.Name) and target.id in self._globals:
            for check_store in C.GLOBAL_STORES:
                check_store(self, target, value)

    def _method_of_a_name(self, node: ast.Call, func: ast.Attribute, owner: str | None, method: str, env: Env) -> None:
        """`Cls.make(x)` whose metaclass guards the lookup, `Optional[int].__eq__(other)`: their hooks."""
        if owner is not None and owner not in env and f"{owner}.{method}" in self.guarded_class_methods:
            for check_guarded in C.GUARDED_CLASS_CALLS:
                check_guarded(self, node, owner)
        if isinstance(func.value, ast.Subscript) and (alias := self.resolve(func.value.value)) is not None:
            for check_alias in C.SUBSCRIPTED_RECEIVERS:
                check_alias(self, node, alias, method)

    def _attribute_read(self, node: ast.Attribute, owner: Kind) -> None:
        """`value.NAME` read: the rules claiming NAME on any owner, on a NumPy array, on a tensor."""
        if (check := C.ATTRIBUTE_READS.get(node.attr)) is not None:
            check(self, node)
        if (check_ndarray := C.NDARRAY_ATTRIBUTES.get(node.attr)) is not None and self.is_ndarray(node.value):
            check_ndarray(self, node)
        if (check_tensor := C.TENSOR_ATTRIBUTES.get(node.attr)) is not None and owner.is_tensor:
            check_tensor(self, node, owner)
        for check_super_read in C.SUPER_READS if is_super(node.value) else ():  # `super().features`
            check_super_read(self, node, node.attr)

    def _definition(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef, env: Env) -> None:
        """A `class` or `def` statement in this function's body."""
        if isinstance(node, ast.ClassDef):
            for check_class in C.CLASS_STATEMENTS:
                check_class(self, node)
        else:
            self._closures[node.name] = self._closure_kind(node, env)

    def _bound_closure(self, name: str, value: ast.expr, env: Env) -> None:
        if isinstance(value, ast.Lambda):
            self._closures[name] = self._closure_kind(value, env)

    @staticmethod
    def _closure_kind(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, env: Env) -> Kind:
        """What a closure reads of this function's locals, as they are where it is defined."""
        return Kind.union([env[name] for name in free_names(node) if name in env])

    def _comparison(self, node: ast.Compare, operands: list[Kind], env: Env) -> None:
        """`a == b`, `v in t`: the comparison and membership hooks; `k in obj` runs `obj.__contains__`."""
        for op, element, container in zip(node.ops, operands, node.comparators, strict=False):
            if isinstance(op, (ast.In, ast.NotIn)):
                self._implicit_call(node, container, "__contains__", [element], env)
                C.contained(self, container)  # `k in self.vals`: judged by what built it (GM678)
        if C.MEMBERSHIPS:
            self._membership(node, operands[1:])
        for check_comparison in C.COMPARISONS:
            check_comparison(self, node, operands)

    def _membership(self, node: ast.Compare, containers: list[Kind]) -> None:
        """`3 in t` on a tensor by how it is made: a local or a tensor expression, never a display,
        an attribute, a collection by binding or annotation, or what a call of the tree returns
        (their kind is their elements': `params: Dict[str, Tensor]`), nor an entry point's
        unannotated parameter as it came in (`3 in batch`: a dict in practice). A text key
        (`"labels" in params`) is a mapping's: a tensor holds no text."""
        lefts = [node.left, *node.comparators]
        for op, element, container, kind in zip(node.ops, lefts, node.comparators, containers, strict=False):
            if not isinstance(op, (ast.In, ast.NotIn)) or not (kind.always or kind.params):
                continue
            text = isinstance(element, ast.JoinedStr) or (
                isinstance(element, ast.Constant) and isinstance(element.value, (str, bytes)))
            if text or not isinstance(container, (ast.Name, ast.Call, ast.BinOp, ast.UnaryOp)):
                continue
            if isinstance(container, ast.Name) and (
                container.id in self._collections or container.id in self.tuples or container.id in self._sized_params
                or (container.id in self._assumed and not self._bindings.get(container.id))
            ):
                continue
            for check_membership in C.MEMBERSHIPS:  # a call's result left out: maybe a collection (above)
                check_membership(self, node, container, Kind(kind.always, kind.params))

    def _sized_object(self, node: ast.Call, env: Env) -> None:
        """`len(cache)` runs the class's `__len__`, which Dynamo inlines (measured on torch 2.13: a
        break inside it is reported there)."""
        if isinstance(node.func, ast.Name) and len(node.args) == 1 and self.builtin_of(node.func) == "len":
            self._implicit_call(node, node.args[0], "__len__", [], env)

    def _implicit_call(self, node: ast.expr, receiver: ast.expr, dunder: str, args: list[Kind], env: Env) -> None:
        """The dunder Python calls for syntax on an object of a known class: `obj[k]` runs
        `__getitem__`, `obj[k] = v` `__setitem__`, `k in obj` `__contains__`, `for x in obj`
        `__iter__`, `len(obj)` `__len__`. Dynamo inlines each (measured on torch 2.13: a break
        inside it is reported there). The receiver's class is known as for an explicit method call."""
        ref = self._receiver_class(receiver, env)
        if ref is not None:
            self._class_site(node, f"instance:{ref}>{dunder}", args)

    def _receiver_class(self, node: ast.expr, env: Env) -> str | None:
        """The class ref of a dunder's receiver: `self`, `self.NAME` (what __init__ builds there),
        a local of a known class or one built in place, or a name no local binds, resolved by the
        scope solver to an object its module builds at import time (`TABLE = Table()`, "held:")."""
        if isinstance(node, ast.Name) and node.id not in env and node.id not in self.instances:
            return "self" if node.id == self.self_name else f"held:{node.id}"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self.self_name \
                and node.value.id not in env:
            return f"attr:{node.attr}"
        return self._operand_class(node)

    def _property_site(self, node: ast.Attribute, env: Env) -> None:
        """A property of this class runs when `self.NAME` is read, and one of an object it holds
        when `self.held.NAME` is (`self.scaled.scale`): property_reads.py."""
        if (ref := property_reads.getter_ref(node, self.properties, self.self_name, env)) is not None:
            self._class_site(node, ref, [])

    def _property_collection(self, value: ast.expr, env: Env) -> bool:
        """`keys = self.chain_keys` on a property of this class building a list, dict or set."""
        return property_reads.gives_collection(value, self.properties, self.self_name, env)

    def _class_site(self, node: ast.expr, ref: str, args: list[Kind]) -> Kind:
        """A call Python makes for the source: a property read (keeps its row: cached_property_reads.py),
        an operator's dunder. A break in a getter or most dunders skips the rest of the frame (skipped_frames.py)."""
        read = ref.startswith("getter:")
        self.summary.calls.append(CallSite(ref, tuple(args), (), True, node.lineno if read else 0))
        if self.dependency_calls:
            for check_call in C.DEPENDENCY_CALLS:
                check_call(self, node)
        if (read or ref.rpartition(">")[2] in skipped_frames.NOT_RESUMED_AFTER) and not self._rare_depth:
            self._frame_skips.read(len(self.summary.calls) - 1, node, self.lines, self._modes)
        return Kind.of_call(len(self.summary.calls) - 1)

    def _unpacked(self, targets: list[ast.expr], value: ast.expr) -> None:
        """`a, b = pack(x)` (_unpacked_call), and `fresh, ready = [], []` binding collections."""
        if len(targets) == 1 and isinstance(targets[0], ast.Tuple) and isinstance(value, ast.Call):
            self._unpacked_call(targets[0], value)
        elif isinstance(value, (ast.Tuple, ast.List)):
            self._collections.update(skipped_frames.unpacked_collections(targets, value, self.builtin_of))
            self.instances.update(skipped_frames.unpacked_objects(targets, value, self.constructor_of))  # `cm, other = A(), B()`

    def _unpacked_call(self, target: ast.Tuple, value: ast.Call) -> None:
        """`packed, unpack_one = pack_one(x)`: calling a name bound to an element of what a call
        returns runs the function the callee returns at that place (scope.Program._element_calls)."""
        ref = self._constructor_ref(value.func)
        if ref is None or any(isinstance(element, ast.Starred) for element in target.elts):
            return
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Name):
                self.unpacked[element.id] = f"element:{index}>{ref}"

    def constructor_of(self, value: ast.expr) -> str | None:
        """What built the value a local is bound to (`_constructor_ref`); `t.as_subclass(Cls)` builds a `Cls`, a tensor subclass: a
        method of it that breaks is GB0092 at the call, as on any object built in traced code (benchmarks/spellings/rf_reconstruction.py)."""
        if not isinstance(value, ast.Call):
            return None
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "as_subclass" and len(value.args) == 1 and not value.keywords:
            return self._constructor_ref(value.args[0])
        return self._constructor_ref(func)

    def _constructor_ref(self, func: ast.expr) -> str | None:
        """What built a value: `Cls(...)` -> "name:Cls"; `make(...)` where `make` holds the
        result of `select(...)` -> "returned:name:select" (what select returns, called)."""
        if isinstance(func, ast.Name) and func.id in self.instances:
            return f"returned:{self.instances[func.id]}"
        return own_class_ref(func, self.summary.decorators, self.summary.class_qualname) or callee_ref(func)

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

    def third_party(self, resolved: str) -> bool:
        """A name outside the stdlib, torch (the rules' tables judge those) and this package (the solver's)."""
        head, own = resolved.partition(".")[0], self.guard_helpers.package if self.guard_helpers else None
        return head not in sys.stdlib_module_names and head != "torch" and head != own

    def annotated_class(self, node: ast.expr) -> str | None:
        """The installed third-party class `node`'s annotation names (the tree's own classes are read)."""
        name = None
        ref = self.instances.get(node.id) if isinstance(node, ast.Name) and node.id not in self._rebound else None
        if ref is not None and ref.startswith("typed:"):
            name = ref.removeprefix("typed:")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and self._module_functions is not None:
            helper = self._module_functions(node.func.id)  # `-> Wavelet` on a top-level function
            name = value_class.class_annotation(helper.returns, self.resolve) if helper is not None else None
        return name if name is not None and self.third_party(name) else None

    def _instance_of(self, owner: str | None, env: Env) -> str | None:
        """The constructor ref of a local object, or "attr:NAME" for `self.NAME`."""
        if owner is None:
            return None
        if owner in self.instances:
            return self.instances[owner]
        if owner in self.aliases:  # `layer.method()` in `for layer in self.layers`
            return f"attr:{self.aliases[owner].removeprefix('self:')}"
        head, _, attr = owner.partition(".")
        if head == self.self_name and head not in env and attr and "." not in attr:
            return f"attr:{attr}"
        return None


    def _element_of(self, receiver: ast.expr, env: Env) -> str | None:
        """"attr:NAME[]" for `self.NAME[i]`: an object a container attribute holds (transformers'
        `self.layers[layer_idx].update(...)` on the layers a Cache appends)."""
        if (isinstance(receiver, ast.Subscript) and isinstance(receiver.value, ast.Attribute)
                and isinstance(receiver.value.value, ast.Name) and receiver.value.value.id == self.self_name
                and self.self_name not in env):
            return f"attr:{receiver.value.attr}[]"
        return None

    def entered_as(self, item: ast.withitem) -> None:
        """`with Cls(...) as name:` binds what `Cls.__enter__` returns: the manager itself for the
        standard-library classes whose `__enter__` returns `self` (`contextlib.ExitStack`), whose
        methods are then judged as those of an object built here (`stack.enter_context(cm)`)."""
        target, manager = item.optional_vars, item.context_expr
        if isinstance(target, ast.Name) and isinstance(manager, ast.Call):
            built = self.resolve(manager.func)
            if built in V.ENTER_RETURNS_SELF:
                self.built_by[target.id] = built

    def _stdlib_method_call(self, call: ast.Call, func: ast.expr, env: Env) -> None:
        """`obj.method(...)` on an object of a standard-library class: built in this function (`Path(root).exists()`),
        judged here; or held from outside the compiled frame (`self.root`, a global), a draft the scope solver judges
        by what built it and the breaks before it in a frame holding no tensor (held_methods.py, tensorless_frames.py)."""
        if not isinstance(func, ast.Attribute) or not C.STDLIB_METHOD_CALLS:
            return
        owner = built_class(func.value, self.built_by, self.resolve)
        if owner is not None:
            for check_stdlib in C.STDLIB_METHOD_CALLS:
                check_stdlib(self, call, f"{owner}.{func.attr}")
        elif self.resolve(func) is None and (
            held := held_name(func.value, self.self_name, self.summary.params, self._rebound)
        ) is not None:  # not a module's function (`heapq.heappush`): those are the call tables'
            draft = self._draft(held_methods.RULE, call, "", TENSOR, None)
            self._reported.discard((held_methods.RULE.code, call.lineno, call.col_offset))  # a draft only
            if draft is not None:
                self.summary.held_method_drafts.append((held, func.attr, draft, tensorless_frames.resumed_without_tensor(self, env)))


def names_a_class(ref: str) -> bool:
    """A constructor ref whose callee is capitalised (`name:Scale`, `dotted:ops.Scale`): a class."""
    leaf = ref.partition(":")[2].rpartition(".")[2]
    return ref.startswith(("name:", "dotted:")) and leaf[:1].isupper()
