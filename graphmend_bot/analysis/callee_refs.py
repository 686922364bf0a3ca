"""How a call names its callee for the scope solver: `name:f`, `self:m`, `super:m@Base`,
`registry:SOLVERS`, `dotted:torch.nn.functional.relu`."""

from __future__ import annotations

import ast
from collections.abc import Callable, Container

from graphmend_bot.analysis.bound_methods import MethodTables, display_methods
from graphmend_bot.vocabulary.dotted_names import dotted_name


def built_here(node: ast.expr) -> str | None:
    """The constructor ref of an object built in place: `Cls(...).method()`, `Cls(...)(x)`."""
    if (not isinstance(node, ast.Call) or dotted_name(node.func) == "super" or _method_by_name(node) is not None
            or _attribute_by_name(node) is not None):
        return None  # super().method() is resolved along the bases, getattr(self, "m")() as self.m()
    return callee_ref(node.func)


def tree_object_built_here(node: ast.expr, resolve: Callable[[ast.expr], str | None]) -> str | None:
    """`Cfg()` in `Cfg().to("cpu")`: the constructor ref of an object a class built in place (a capitalised
    callee) that neither torch nor NumPy provides, whose own method runs (or a tensor's, for a torch.Tensor
    subclass: the solver decides what the call built, tests/test_built_in_place.py)."""
    if not isinstance(node, ast.Call):
        return None  # most receivers: a name, an attribute
    ref = built_here(node)
    if ref is None or not ref.startswith(("name:", "dotted:")):
        return None
    if not ref.rpartition(":")[2].rpartition(".")[2][:1].isupper():
        return None
    return None if (resolve(node.func) or "").startswith(("torch.", "numpy.")) else ref


def own_class_ref(func: ast.expr, decorators: tuple[str, ...], class_qualname: str | None) -> str | None:
    """`cls(...)` in a classmethod builds its class (or a subclass): `name:Beam`, `dotted:Outer.Inner`."""
    return classmethod_class(func.id, decorators, class_qualname) if isinstance(func, ast.Name) else None


def classmethod_class(name: str, decorators: tuple[str, ...], class_qualname: str | None) -> str | None:
    """The ref `cls` names in a classmethod of `class_qualname`, or None for any other name."""
    if name != "cls" or not class_qualname or "classmethod" not in decorators:
        return None
    return f"dotted:{class_qualname}" if "." in class_qualname else f"name:{class_qualname}"


def is_super(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and dotted_name(node.func) == "super"


def callee_ref(func: ast.expr) -> str | None:
    if isinstance(func, ast.Call) and (method := _method_by_name(func)) is not None:
        return f"self:{method}"
    if isinstance(func, ast.Call) and (attribute := _attribute_by_name(func)) is not None:
        return f"dotted:{attribute}"
    if isinstance(func, ast.Name):
        return f"name:{func.id}"
    if (
        isinstance(func, ast.Subscript)
        and isinstance(func.value, ast.Attribute)
        and isinstance(func.value.value, ast.Name)
        and func.value.value.id == "self"
    ):
        return f"self:{func.value.attr}[]"  # self.layers[i](...)
    if isinstance(func, ast.Subscript):
        table = func.value
        while isinstance(table, ast.Subscript):  # ROUTINES[loss][backend](...)
            table = table.value
        if isinstance(table, ast.Name):
            return f"registry:{table.id}"  # SOLVERS[name](...)
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
            return f"self:{func.attr}"
        if isinstance(func.value, ast.Call) and dotted_name(func.value.func) == "super":
            start = func.value.args[0] if func.value.args else None
            # `super(Base, self).m`: the lookup starts after Base, not after the enclosing class
            return f"super:{func.attr}@{start.id}" if isinstance(start, ast.Name) else f"super:{func.attr}"
        name = dotted_name(func)
        if name is not None:
            return f"dotted:{name}"
    return None


# Builtins that take a callable to look at it, never to call it.
_INSPECTING = frozenset({"callable", "isinstance", "hasattr", "getattr", "setattr", "id", "type", "repr", "str", "print"})


# Calls that run a bound method passed to them where Dynamo traces it (each measured on torch
# 2.13: a `print` in the method breaks inside it): `checkpoint(self._block, x)`,
# `y.register_hook(self._grad)`. The method names are those of out-of-tree receivers.
_CALLING_BACK = frozenset({
    "torch.utils.checkpoint.checkpoint", "torch.vmap", "torch.func.vmap", "functools.partial", "map", "sorted",
    # pytree maps call the function on each leaf; Dynamo traces optree's through its polyfills
    "optree.tree_map", "optree.tree_map_", "optree.tree_map_with_path", "optree.tree_map_with_path_",
    *(f"torch.utils._pytree.{name}" for name in ("tree_map", "tree_map_", "tree_map_with_path", "tree_map_only", "tree_map_only_")),
})
# A forward hook registered in traced code runs when the module is then called (measured:
# test_scope_closures.py). Not `Module.apply(fn)`: Dynamo traces fn there too (measured again on
# torch 2.13: a print in `self.apply(self._hook)`'s hook and in `sub.apply(visit)`'s closure breaks),
# but captum's (dev) `self.model.apply(self._register_hooks)` follows, in a `try` body, a call that
# breaks (deep_lift.py:310), so it runs eagerly: as a caller back it made two executed-line false
# positives (GM663) and found no break. It waits for the eager rest of a try body in the scope.
_CALLING_BACK_METHODS = frozenset({"register_hook", "register_forward_hook", "register_forward_pre_hook"})
# transformers' helper, by its own name: a model package imports it relatively (`from
# ...pytorch_utils import`), from outside the tree when only the package is checked.
_CALLING_BACK_NAMES = frozenset({"apply_chunking_to_forward"})


def passed_bound_methods(call: ast.Call, self_name: str | None, resolved: str | None,
                         tables: MethodTables | None = None) -> list[str]:
    """`self.m` passed to a call as a value, positionally or by keyword: "self.m" when the call
    is one that calls it back (_CALLING_BACK), "self.m CALLEE" (CALLEE its callee_ref) for any
    other call, followed only when CALLEE is a function of the tree that calls a parameter
    (`apply_chunks(self.feed_forward, ...)`, scope.Program._calls_back). A container's
    `append(self.m)`, `Thread(target=self.m)` or `atexit.register(self.m)` only keep the method."""
    if self_name is None:
        return []
    # The arguments first: most calls pass no `self.m`, and then the callee need not be named.
    # Every call of every method asks, so each value is looked at once: `self.m` itself, or a
    # tuple or list of them, in place or in a local (`tables`), whose elements a callee may call.
    methods: list[str] = []
    held: list[str] = []  # the elements, after the methods passed themselves
    for value in (*call.args, *[keyword.value for keyword in call.keywords]) if call.keywords else call.args:
        if isinstance(value, ast.Attribute):
            if isinstance(value.value, ast.Name) and value.value.id == self_name:
                methods.append(value.attr)
        elif isinstance(value, ast.Name):
            if tables is not None:
                held += tables.get(value.id, self_name)
        elif isinstance(value, (ast.Tuple, ast.List)):
            held += display_methods(value, self_name)
    methods += held
    if not methods:
        return []
    return [f"self.{method}{suffix}" for suffix in callee_suffix(call, resolved) for method in methods]


def passed_closures(call: ast.Call, closures: Container[str], resolved: str | None) -> list[str]:
    """A nested function of the caller passed to a call (`module.register_forward_hook(hook)`,
    `y.register_hook(grad_hook)`, `apply_chunks(step, x)`): "closure:NAME", or "closure:NAME
    CALLEE" to follow only when CALLEE calls a parameter back, as for a bound method above."""
    names = [value.id for value in (*call.args, *[keyword.value for keyword in call.keywords])
             if isinstance(value, ast.Name) and value.id in closures]
    return [f"closure:{name}{suffix}" for suffix in callee_suffix(call, resolved) for name in names] if names else []


def calls_back_by_method(name: str) -> bool:
    """`y.register_hook(fn)`: a method of an out-of-tree receiver that calls what it is given."""
    return name in _CALLING_BACK_METHODS


def known_caller_back(callee: str | None) -> bool:
    """Whether the function so named (qualified, or as written) calls a callable passed to it."""
    return callee in _CALLING_BACK or (callee or "").rpartition(".")[2] in _CALLING_BACK_NAMES


def callee_suffix(call: ast.Call, resolved: str | None) -> list[str]:
    """[""] when the call runs a callable passed to it (_CALLING_BACK), [" CALLEE"] when it may
    (a callee of the tree, decided by the scope), [] when it does not or cannot be named."""
    callee = resolved or dotted_name(call.func)
    if callee in _INSPECTING:
        return []  # `callable(self.m)` looks at the method without calling it
    calls_back = known_caller_back(callee) or (isinstance(call.func, ast.Attribute) and call.func.attr in _CALLING_BACK_METHODS)
    ref = None if calls_back else callee_ref(call.func)
    if calls_back:
        return [""]
    return [] if ref is None else [f" {ref}"]


def _method_by_name(call: ast.Call) -> str | None:
    """The method `getattr(self, NAME)` fetches: "m" for `getattr(self, "m")`, "m_*" for a name
    built from a literal prefix (`f"m_{kind}"`, `"m_{}".format(kind)`, `"m_" + kind`: any method
    so named may run; Dynamo folds the constant name and traces the one it picks)."""
    if not (dotted_name(call.func) == "getattr" and len(call.args) == 2 and isinstance(call.args[0], ast.Name)
            and call.args[0].id in ("self", "cls")):
        return None
    name = call.args[1]
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        return name.value if name.value.isidentifier() else None
    prefix: object = None
    if isinstance(name, ast.JoinedStr) and name.values:
        prefix = getattr(name.values[0], "value", None)
    elif isinstance(name, ast.Call) and isinstance(name.func, ast.Attribute) and name.func.attr == "format":
        literal = name.func.value
        prefix = literal.value.partition("{")[0] if isinstance(literal, ast.Constant) and isinstance(literal.value, str) else None
    elif isinstance(name, ast.BinOp) and isinstance(name.op, ast.Add) and isinstance(name.left, ast.Constant):
        prefix = name.left.value
    return f"{prefix}*" if isinstance(prefix, str) and prefix.isidentifier() else None


def _attribute_by_name(call: ast.Call) -> str | None:
    """"ops.scale" for `getattr(ops, "scale")`: a constant attribute of a named module or class
    (not `self`: _method_by_name), which Dynamo folds and calls as if spelled `ops.scale`
    (measured on torch 2.13, tests/test_scope_edges.py). A default (`getattr(ops, "f", None)`)
    says the attribute may be missing: then the call may run nothing of the tree, still the one."""
    if not (dotted_name(call.func) == "getattr" and len(call.args) in (2, 3)):
        return None
    owner, name = dotted_name(call.args[0]), call.args[1]
    if owner is None or owner.partition(".")[0] in ("self", "cls"):
        return None
    if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier():
        return f"{owner}.{name.value}"
    return None


def on_a_class(ref: str) -> bool:
    """`name:Fn.helper` / `dotted:ops.Fn.helper`: a method called on a capitalized name (a class
    as written), not a dunder."""
    owner, _, method = ref.partition(":")[2].rpartition(".")
    return bool(owner) and owner.rpartition(".")[2][:1].isupper() and not method.startswith("__")


def chained_call(func: ast.Attribute, resolve: Callable[[ast.expr], str | None], table: Container[str]) -> str | None:
    """`Cls(...).method` where `table` lists `Cls.method` (`torch.Generator.manual_seed`)."""
    if not isinstance(func.value, ast.Call):
        return None
    built = resolve(func.value.func)
    qualified = f"{built}.{func.attr}" if built is not None else None
    return qualified if qualified in table else None
