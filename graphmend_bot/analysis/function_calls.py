"""Calls: into torch, logging and the builtins (the rules' call tables), or into the checked tree.

A call the tables know gets its kind from the rule hook or torch's vocabulary. Any other call
may land in the checked tree: it is recorded as a `CallSite` with its arguments' kinds, and
what it returns (`Kind.of_call`) and whether it breaks are left to the scope solver."""

from __future__ import annotations

import ast
import sys
from typing import cast

import graphmend_bot.analysis.value_sources as VS
from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis import keyword_arguments, logger_bindings, masks, str_enums, value_class
from graphmend_bot.analysis.call_spellings import may_respell
from graphmend_bot.analysis.callee_refs import (
    built_here,
    callee_ref,
    chained_call,
    is_super,
    on_a_class,
    passed_bound_methods,
    tree_object_built_here,
)
from graphmend_bot.analysis.consumed_generators import element_call_sites
from graphmend_bot.analysis.forwarded_callbacks import passed_callables
from graphmend_bot.analysis.function_aliases import method_refs
from graphmend_bot.analysis.function_objects import names_a_class
from graphmend_bot.analysis.function_sorts import SortChecker
from graphmend_bot.analysis.function_state import Env
from graphmend_bot.analysis.local_lambdas import inlined_call
from graphmend_bot.analysis.model import CallSite
from graphmend_bot.analysis.tensor_uses import cast_kind, note_tensor_use
from graphmend_bot.analysis.value_sources import OPAQUE_TENSOR_METHODS, opaque_receiver, self_getattr_kind
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import BOOL_TENSOR, NOT_TENSOR, TENSOR, Kind, computed_from


class CallResolver(SortChecker):
    """The kind of a call, and the call sites recorded for the scope solver."""

    def _expr_Call(self, node: ast.Call, env: Env) -> Kind:
        resolved = self.resolve(func := node.func)  # most calls `may_respell` rules out: no plain spelling built or memoised
        if may_respell(node, resolved, self._function_aliases) and (plain := self.plain_spelling(node)) is not None:
            return self.expr(plain, env)  # `getattr(t, "item")()`, `torch.Tensor.item(t)`: read as `t.item()`
        kwarg = self.node.args.kwarg if self.dependency_calls else None
        if kwarg is not None and keyword_arguments.sorted_keyword_items(node, kwarg.arg, self.builtin_of):
            self.summary.sorts_keyword_items = self.summary.sorts_keyword_items or node.lineno
        if node.args and (type(node.args[0]) is ast.GeneratorExp or type(node.args[-1]) is ast.GeneratorExp):
            self._dict_view_calls.update(element_call_sites(node, self.builtin_of, self.resolve))  # sum(f(v) for v in vs)
        args = [self.expr(arg, env) for arg in node.args]
        kwargs = [(kw.arg, self.expr(kw.value, env)) for kw in node.keywords]
        if node.keywords:
            self._keyword_kinds[id(node)] = {name: kind for name, kind in kwargs if name is not None}
        if C.SORT_KEYS:
            self._check_sort(node, args, env)
        self._sized_object(node, env)
        self.references.update(passed_bound_methods(node, self.self_name, resolved, self._method_tables))
        passed_callables(self, node, resolved, env)  # nested functions and own parameters handed on
        if resolved is not None and self.third_party(resolved) and _bound_by_import(func, env):
            for check_third_party in C.THIRD_PARTY_CALLS:
                check_third_party(self, node, resolved, False)
        elif (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and (built := self.built_by.get(func.value.id)) is not None and self.third_party(built)):
            for check_third_party in C.THIRD_PARTY_CALLS:  # `bar.update(1)` on `bar = tqdm(...)`
                check_third_party(self, node, f"{built}.{func.attr}", True)
        self._stdlib_method_call(node, func, env)  # `p.exists()` on `p = pathlib.Path(root)`, `self.root.exists()`
        if isinstance(func, ast.Call):
            self.expr(func, env)  # `Cls(...)(x)`, `nn.Linear(4, 4)(x)`: the construction runs first
        elif isinstance(func, ast.Subscript) and not isinstance(func.slice, ast.Slice):
            key = self._index(func.slice, env)  # `self.layers[i](x)`: the key picks a module; a tuple, a dict's entry
            if key.is_tensor and not isinstance(func.slice, ast.Tuple) and getattr(func.slice, "id", None) not in self.tuples:
                for check_called in C.CALLED_SUBSCRIPTS:
                    check_called(self, func, NOT_TENSOR, key)
        if isinstance(func, ast.Attribute) and (chained := chained_call(func, self.resolve, V.UNTRACEABLE_CALLS)) is not None:
            # `torch.Generator().manual_seed(s)`: Dynamo breaks on the method, not on the construction
            for part in (*cast(ast.Call, func.value).args, *(kw.value for kw in cast(ast.Call, func.value).keywords)):
                self.expr(part, env)
            known = self._known_call(node, chained, args)
            if known is not None:
                return known
        if isinstance(func, ast.Name) and func.id in self._closures and (inlined := inlined_call(self, node, args, env)) is not None:
            return inlined  # `f = lambda t: ...` then `f(x)`: its body runs here
        if isinstance(func, ast.Attribute):
            receiver = self.expr(func.value, env)
            kind = self._method_call(node, func, receiver, args, kwargs, resolved, env)
            if func.attr == "get" and (got := VS.mapping_get(node, func, receiver, args, self.self_name, self.typed_attributes, self.instances)).nonempty:
                kind = got  # `self.cfg.get("k")`: an element, no opaque call (only `get` is one: no call for the rest)
        else:
            kind = self._function_call(node, func, args, kwargs, resolved)
        return note_tensor_use(node, resolved, env, self.instances.keys(), self.text, kind, self.own_tensor_methods)  # `torch.exp(x)`: x one after

    def _function_call(
        self,
        node: ast.Call,
        func: ast.expr,
        args: list[Kind],
        kwargs: list[tuple[str | None, Kind]],
        resolved: str | None,
    ) -> Kind:
        if (name := self.builtin_called(func, resolved)) is not None:
            check = C.BUILTINS.get(name)
            value = check(self, node, name, args) if check is not None else None
            if value is not None:
                return value
            if name in ("abs", "sum", "max", "min", "round"):
                return Kind.union(args)
            if name == "getattr" and (read := self_getattr_kind(node, self.self_name, self._rebound, args)) is not None:
                return read  # `getattr(self, "flag", False)`: the read of `self.flag`, or the default
            if name in V.STATIC_BUILTINS:
                return NOT_TENSOR
        if (position := V.PASSED_THROUGH.get(resolved or "")) is not None and len(args) > position:
            return cast_kind(node, self.resolve, args[position]) if position else args[0].without_flags()  # `tqdm(xs)`: xs
        if isinstance(func, ast.Name) and func.id in self.named_tuples:
            return Kind.union([*args, *(kind for _, kind in kwargs)]).without_flags()
        if resolved is not None and (known := self._known_call(node, resolved, args)) is not None:
            return known
        return self._user_call(func, node, args, kwargs)

    def _known_call(self, node: ast.Call, resolved: str, args: list[Kind]) -> Kind | None:
        """Calls into torch, logging and warnings, by their resolved dotted name."""
        head = resolved.partition(".")[0]
        check = C.CALLS.get(resolved)
        if check is None and head in C.MODULE_FUNCTION_MODULES and not (self.guard_helpers and self.guard_helpers.owns(head)):
            check = C.MODULE_FUNCTIONS.get((head, resolved.rpartition(".")[2]))
        if check is not None:
            return check(self, node, resolved, args)
        if not resolved.startswith("torch."):
            return None
        if any(keyword.arg == "generator" for keyword in node.keywords):
            for check_generator in C.GENERATOR_KEYWORDS:
                check_generator(self, node, resolved)
        if any(keyword.arg == "requires_grad" for keyword in node.keywords):
            for check_requires_grad in C.REQUIRES_GRAD_KEYWORDS:
                check_requires_grad(self, node, resolved)
        name = resolved[len("torch."):]
        leaf = name.rsplit(".", 1)[-1]
        if leaf in V.COMPILE_GUARDS:
            return NOT_TENSOR
        check = C.TORCH_FUNCTIONS.get(name) or C.TORCH_FUNCTION_LEAVES.get(leaf)
        value = check(self, node, name, args) if check is not None else None
        if value is not None:
            return value | BOOL_TENSOR if value.is_tensor and masks.made_mask(node, self.resolve, leaf, args) else value
        if name.startswith(V.TORCH_TENSOR_SUBMODULES) or name in V.PARAMETER_CLASSES or name in V.LEGACY_TENSOR_TYPES:
            return computed_from(BOOL_TENSOR if masks.keeps_mask(leaf, args) else TENSOR, args)  # `F.pad(mask, ...)`
        head = name.split(".", 1)[0]
        if name in V.TORCH_NON_TENSOR_FUNCS or head in V.TORCH_NON_TENSOR_SUBMODULES or head[:1].isupper():
            return NOT_TENSOR
        if leaf in V.BOOL_PRODUCERS or masks.made_mask(node, self.resolve, leaf, args) or masks.bool_literal(node, name):
            return computed_from(BOOL_TENSOR, () if leaf in V.BUILT_FROM_VALUES else args)
        return computed_from(TENSOR, () if leaf in V.BUILT_FROM_VALUES else args)

    def _method_call(
        self, node: ast.Call, func: ast.Attribute, receiver: Kind, args: list[Kind],
        kwargs: list[tuple[str | None, Kind]], resolved: str | None, env: Env,
    ) -> Kind:
        method = func.attr
        owner = dotted_name(func.value)
        if (check_read := C.ATTRIBUTE_READS.get(method)) is not None:  # a call reads its method first
            check_read(self, func)
        if resolved is not None and (resolved.startswith("builtins.") or resolved in V.PASSED_THROUGH):
            return self._function_call(node, func, args, kwargs, resolved)  # `builtins.pow(x, 2)`, `einops.reduce(...)`
        if resolved is not None and (resolved.startswith(("torch.", "warnings.", "logging.")) or resolved in C.CALLS):
            known = self._known_call(node, resolved, args)
            if known is not None:
                return known
        if owner in self.built_by and (qualified := f"{self.built_by[owner]}.{method}") in V.UNTRACEABLE_CALLS:
            known = self._known_call(node, qualified, args)
            if known is not None:
                return known
        if method in V.LOGGER_METHODS and self._is_logger(func.value, owner):
            for check_logger in C.LOGGER_CALLS:
                check_logger(self, node, f"{owner}.{method}", args)
            return NOT_TENSOR
        if (check_ndarray := C.NDARRAY_METHODS.get(method)) is not None and self.is_ndarray(func.value):
            check_ndarray(self, node, method, receiver, args)  # reports only: the value is inferred below
        self._method_of_a_name(node, func, owner, method, env)
        if resolved is not None and owner is not None and owner.split(".", 1)[0] not in env:
            # math.ceil(...), np.where(...), helpers.fn(...): a function of an imported module.
            return self._user_call(func, node, args, kwargs)
        static_receiver = isinstance(func.value, ast.Attribute) and func.value.attr in V.STATIC_ATTRS
        # A method torch.Tensor does not have means the receiver is some other object.
        tensor_receiver = not self._built_object(func.value) and (
            (receiver.is_tensor and method in V.TENSOR_API) or (method in V.TENSOR_METHODS and not static_receiver)
            or (method in OPAQUE_TENSOR_METHODS and not receiver.nonempty and opaque_receiver(func.value, self.resolve))
        )
        if tensor_receiver and not static_receiver:
            annotated = self.instances.get(func.value.id) if isinstance(func.value, ast.Name) else (
                self._result_of(func.value, env))
            if value_class.annotated_root(annotated):
                # `covar.solve(rhs)` may be a tensor's or, as annotated, a LinearOperator's
                self._user_call(func, node, args, kwargs, f"instance:{annotated}>{method}")
            elif isinstance(func.value, ast.Name) and func.value.id == self.self_name:
                self._user_call(func, node, args, kwargs)  # `self.norm(x)`: a submodule or method named like one
            kind = receiver
            if (built := tree_object_built_here(func.value, self.resolve)) is not None:  # `Cfg().to("cpu")`
                kind = receiver | self._user_call(func, node, args, kwargs, f"instance:{built}>{method}")
            elif (method in V.TENSOR_METHODS or not receiver.nonempty) and not any(
                    _derived_from(receiver, c) for c in self._checked_tensors):
                kind = receiver | TENSOR
            return self._tensor_method(node, method, kind, args)
        local_receiver = owner is not None and owner.split(".", 1)[0] in env
        if method in V.GROWING_METHODS and isinstance(func.value, ast.Name) and func.value.id in self._collections:
            self._grow_collection(func.value.id, method, args, env)
            return NOT_TENSOR
        if owner is not None and owner == self.self_name and method == "register_buffer":
            self._register_buffer(node, args)
        instance = (self._instance_of(owner, env) or self._result_of(func.value, env) or built_here(func.value)
                    or self._element_of(func.value, env))
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
            elif instance.startswith("typed:"):  # `x: Q`, or in an arm where `isinstance(x, Q)` holds
                for check_instance in C.INSTANCE_METHOD_CALLS:
                    check_instance(self, node, method)
            return kind
        if local_receiver and (refs := method_refs(self._function_aliases, func.value, method)):
            *others, ref = refs  # `backend.reshape(x)` after `backend = TorchJitBackend`
            kinds = [self._record_site(other, node, args, kwargs) for other in others]
            return Kind.union([self._user_call(func, node, args, kwargs, ref), *kinds])
        if owner in ("self", "cls") or not local_receiver:
            # self.method(...), super().method(...), module.function(...)
            kind = self._user_call(func, node, args, kwargs)
            if is_super(func.value):
                for check_super_call in C.SUPER_METHOD_CALLS:
                    check_super_call(self, node, method)
            if method == "__init__" and self.node.name == "__init__" and is_super(func.value):
                for check_init in C.SUPER_INITS:
                    check_init(self, node)
            elif method == "__init__" and is_super(func.value):
                for check_reinit in C.SUPER_REINITS:
                    check_reinit(self, node)
            if method == "__call__" and self.node.name == "__call__" and (is_super(func.value) or owner == "type"):
                for check_metaclass in C.METACLASS_CALLS:
                    check_metaclass(self, node)
            return kind
        if isinstance(func.value, ast.Name) and self._is_autograd_context(func.value.id):
            for check_context in C.AUTOGRAD_CONTEXT_CALLS:  # `ctx.mark_dirty(x)` in an autograd.Function's forward
                check_context(self, node, method)
        if (method in str_enums.STR_METHODS and isinstance(func.value, ast.Name)
                and func.value.id in self.summary.params and func.value.id not in self._rebound):
            for check_str_method in C.STR_METHODS:  # `opt_str.strip()`: a str-Enum member may reach it
                check_str_method(self, node, func.value.id)
        return NOT_TENSOR

    def _is_autograd_context(self, name: str) -> bool:
        """`name` is the `ctx` of an autograd.Function's static `forward(ctx, ...)`, as it came in."""
        return (self.summary.name == "forward" and "staticmethod" in self.summary.decorators
                and self.summary.params[:1] == (name,) and name not in self._rebound)

    def _built_object(self, receiver: ast.expr) -> bool:
        """A local bound to an instance of a class (`scratch = Scratch()`) that torch did not build: `scratch.double(x)`
        runs Scratch's own `double`; or a local naming a class (`backend = TorchJitBackend`)."""
        if isinstance(receiver, ast.Name) and receiver.id in self._function_aliases:
            return all(names_a_class(ref) for ref in self._function_aliases[receiver.id])
        if not isinstance(receiver, ast.Name) or receiver.id not in self.instances:
            return False
        built_by = self.built_by.get(receiver.id, "")
        return names_a_class(self.instances[receiver.id]) and not built_by.startswith(("torch.", "numpy."))

    def _grow_collection(self, name: str, method: str, args: list[Kind], env: Env) -> None:
        """`out.append(t)`, `out.insert(0, t)`, `out.extend(ts)` on a local list (and `out[k] = t`, statements.py): it holds
        what was put in (kornia's `_arguments_preproc`), and its display's elements no longer say what `out[-1]` is."""
        added = args[1] if method == "insert" and len(args) > 1 else args[0] if args else NOT_TENSOR
        if added.nonempty:
            env[name] = env.get(name, NOT_TENSOR) | added.without_flags()
        self.tuples.pop(name, None)

    def _register_buffer(self, node: ast.Call, args: list[Kind]) -> None:
        """`self.register_buffer("name", value)` is module state like `self.name = value`."""
        if len(node.args) >= 2 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            self.write_attribute(node.args[0].value, VS.registered_buffer(node.args[1], args[1], self._module_functions, self.node))

    def _tensor_method(self, node: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
        check = C.TENSOR_METHODS.get(method)
        value = check(self, node, method, receiver, args) if check is not None else None
        if value is not None:
            return value | BOOL_TENSOR if value.is_tensor and masks.keeps_mask(method, [receiver]) else value
        if method in V.STATIC_METHODS:
            return NOT_TENSOR
        if method in V.BOOL_PRODUCERS or (receiver.is_tensor and masks.made_mask(node, self.resolve, method, [receiver])):
            return receiver | BOOL_TENSOR
        return (receiver | Kind.union(args)).without_flags()

    def _is_logger(self, node: ast.expr, owner: str | None) -> bool:
        """What built the name decides (analysis/logger_bindings.py); its spelling only when nothing does."""
        if owner is None:
            return False
        if owner in self.built_by:  # built here by an imported callable: `log = logging.getLogger()`
            package = self.guard_helpers.package if self.guard_helpers is not None else ""
            return logger_bindings.builds_logger(self.built_by[owner], {}, package)
        if self.instances.get(owner, "").startswith("name:"):  # built here by this module's own callable
            return self.instances[owner].endswith(V.LOGGER_FACTORIES)
        if owner in self.logger_names:
            return True
        return owner not in self.module_objects and owner.rsplit(".", 1)[-1] in V.LOGGER_NAMES

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
        if ref is None and isinstance(func, ast.Name) and func.id in self.unpacked:
            ref = self.unpacked[func.id]  # unpack(y) on packed, unpack = pack_one(x)
        if ref is None and (constructor := built_here(func)) is not None:
            ref = f"instance:{constructor}>__call__"  # Cls(...)(x)
        ref = ref or callee_ref(func)
        if ref is None:
            return NOT_TENSOR
        site = self._record_site(ref, node, args, kwargs)
        if ref.startswith(("name:", "dotted:")) and ref.rpartition(".")[2].rpartition(":")[2][:1].isupper():
            for check_class_call in C.CLASS_CALLS:  # `Options(...)`: what it builds, the solver knows
                check_class_call(self, node, ref.rpartition(":")[2])
        if ref.startswith(("name:", "dotted:")) and (ref.endswith(".apply") or on_a_class(ref)):
            for check_apply in C.AUTOGRAD_APPLIES:  # `Fn.apply(...)`, `Fn.helper(...)`: whether it breaks, the solver knows
                check_apply(self, node, ref.rpartition(":")[2])
        if self.summary.local_objects:
            for check_held in C.HELD_OBJECT_CALLS:
                check_held(self, node)
        if _has_generator_argument(node):
            for check_generator in C.GENERATOR_ARGUMENT_CALLS:
                check_generator(self, node)
        if id(node) in self._dict_view_calls:
            for check_view_call in C.DICT_VIEW_COMPREHENSION_CALLS:
                check_view_call(self, node, self._dict_view_calls[id(node)])
        index = len(self.summary.calls) - 1  # the site just recorded
        if self._loop_depth or self._try_depth:
            self._frame_skips.site(index, self._loop_depth > 0, node)
        if (self._loop_depth or (self._try_depth and self._frame_skips.ends_frame(node))) and not self._rare_depth:
            self.summary.loop_sites.append(index)
        if sources := str_enums.argument_sources(node, args, kwargs):
            self.summary.call_member_sources.append((index, sources))
        if self.dependency_calls:
            for check_call in C.DEPENDENCY_CALLS:
                check_call(self, node)
            if node.keywords:
                if self._sizes is None:
                    self._sizes = keyword_arguments.Sizes(self.node, self.self_name)
                keyword_arguments.record_passed_names(self.summary, index, node, self.self_name, self._sizes)
        return Kind.union([site, *alternatives]) if alternatives else site

    def _record_site(
        self, ref: str, node: ast.expr, args: list[Kind], kwargs: list[tuple[str | None, Kind]]
    ) -> Kind:
        bound = ref.startswith(("self:", "super:", "instance:"))
        site = CallSite(  # the callee interned: pickled once per batch, then by reference
            sys.intern(ref), tuple(args), tuple((k, v) for k, v in kwargs if k is not None), bound, node.lineno
        )
        self.summary.calls.append(site)
        self._last_site_node = id(node)
        self.note_scalar_arguments(len(self.summary.calls) - 1, node, ref)
        return Kind.of_call(len(self.summary.calls) - 1)


def _derived_from(kind: Kind, source: Kind) -> bool:
    """A kind that is a tensor only when `source` is (made of its parameters and call sites)."""
    return (
        kind.nonempty and not kind.always and source.nonempty and not source.always
        and kind.params <= source.params and kind.calls <= source.calls
    )


def _has_generator_argument(call: ast.Call) -> bool:
    """`f(g(x) for g in gs)`, `f(*(...))`, `f(items=(...))`: a generator expression passed in."""
    return any(
        isinstance(arg.value if isinstance(arg, ast.Starred) else arg, ast.GeneratorExp) for arg in call.args
    ) or any(isinstance(keyword.value, ast.GeneratorExp) for keyword in call.keywords)


def _bound_by_import(func: ast.expr, env: Env) -> bool:
    """The callee's head name is the module's import, not a local that shadows it."""
    name = dotted_name(func)
    return name is not None and name.partition(".")[0] not in env
