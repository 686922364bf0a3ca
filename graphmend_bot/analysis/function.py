"""Analyse one function body: which values are tensors, and where tensors meet Python.

A single forward pass over the statements keeps an environment from names to `Kind`s. Branch
arms run on copies that are merged afterwards; loop bodies run twice so values that flow around
the loop are seen. Every place where a tensor would be turned into a Python value, or where
untraceable Python runs, becomes a `Draft`; the scope solver later keeps those in traced code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import Any

from graphmend_bot.analysis import vocabulary as V
from graphmend_bot.analysis.model import (
    BOOL_TENSOR,
    DATA_DEPENDENT_BOOL,
    NOT_TENSOR,
    TENSOR,
    CallSite,
    Draft,
    FunctionSummary,
    Kind,
)
from graphmend_bot.rules import rule_for

Env = dict[str, Kind]
Resolve = Callable[[ast.expr], "str | None"]


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def is_tensor(kind: Kind) -> bool:
    return bool(kind - {"bool", "ddop"})


_FLAG_PREFIXES = ("output_", "return_", "use_", "is_", "do_", "has_", "enable_")


def _tensor_param(
    name: str, annotation: ast.expr | None, default: ast.expr | None, entry: bool
) -> bool | None:
    """Whether a parameter is a tensor, from its annotation and default; None when unknown."""
    if name.startswith(_FLAG_PREFIXES):
        return False  # output_attentions=None, return_dict=None: flags by convention
    if annotation is not None:
        text = ast.unparse(annotation)
        return "Tensor" in text or "Parameter" in text
    if default is not None and not (isinstance(default, ast.Constant) and default.value is None):
        return False  # a non-None default (flag, size, string) is a Python value
    return True if entry else None


class FunctionAnalyzer:
    def __init__(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        summary: FunctionSummary,
        resolve: Resolve,
        logger_names: frozenset[str],
        lines: list[str],
        entry: bool,
    ) -> None:
        self.node = node
        self.summary = summary
        self.resolve = resolve
        self.logger_names = logger_names
        self.lines = lines
        self.entry = entry
        self.returns: set[str] = set()
        self.references: set[str] = set()
        self._reported: set[tuple[str, int, int]] = set()
        self._test_depth = 0

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
        names: list[str] = []
        for index, (arg, default) in enumerate(params):
            names.append(arg.arg)
            if skip_first and index == 0:
                continue
            seed = _tensor_param(arg.arg, arg.annotation, default, self.entry)
            if seed is not None:
                self.summary.param_seeds[arg.arg] = seed
            env[arg.arg] = frozenset({f"p:{arg.arg}"})
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                names.append(extra.arg)
        self.summary.params = tuple(names)
        self.block(self.node.body, env)
        self.summary.returns = frozenset(self.returns)
        self.summary.references = tuple(sorted(self.references))

    def _is_staticmethod(self) -> bool:
        return any(dotted_name(d) == "staticmethod" for d in self.node.decorator_list)

    # ---- statements ---------------------------------------------------------------------
    def block(self, body: Iterable[ast.stmt], env: Env) -> bool:
        """Run statements in order; True when the block always leaves (return/raise/...)."""
        for stmt in body:
            if self.stmt(stmt, env):
                return True
        return False

    def stmt(self, node: ast.stmt, env: Env) -> bool:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self._assign(node, env)
        elif isinstance(node, ast.Expr):
            self.expr(node.value, env)
        elif isinstance(node, ast.If):
            return self._if(node, env)
        elif isinstance(node, ast.While):
            self._bool_context(node.test, env, "GM104", "`while` loop")
            for _ in range(2):
                self.block(node.body, env)
            self.block(node.orelse, env)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            element = self.expr(node.iter, env)
            for _ in range(2):
                self._bind(node.target, element, env)
                self.block(node.body, env)
            self.block(node.orelse, env)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expr(item.context_expr, env)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, NOT_TENSOR, env)
            return self.block(node.body, env)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self._try(node, env)
        elif isinstance(node, ast.Return):
            if node.value is not None:
                self.returns |= self.expr(node.value, env)
            return True
        elif isinstance(node, ast.Raise):
            return True  # the message is built only on the error path, never traced
        elif isinstance(node, ast.Assert):
            self.expr(node.test, env)  # assert on a tensor is fine on 2.13; calls inside are not
        elif isinstance(node, (ast.Break, ast.Continue)):
            return True
        return False

    def _try(self, node: ast.stmt, env: Env) -> None:
        self.block(getattr(node, "body"), env)
        for handler in getattr(node, "handlers"):
            if handler.name:
                env[handler.name] = NOT_TENSOR
            self.block(handler.body, dict(env))
        self.block(getattr(node, "orelse"), env)
        self.block(getattr(node, "finalbody"), env)

    def _assign(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, env: Env) -> None:
        if node.value is None:
            return
        kind = self.expr(node.value, env)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, kind, env)
        elif isinstance(node, ast.AugAssign):
            previous = self.expr(node.target, env) if not isinstance(node.target, ast.Name) else env.get(node.target.id, NOT_TENSOR)
            self._bind(node.target, previous | kind, env)
        else:
            self._bind(node.target, kind, env)

    def _bind(self, target: ast.expr, kind: Kind, env: Env) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = kind
        elif isinstance(target, (ast.Tuple, ast.List)):
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

    def _if(self, node: ast.If, env: Env) -> bool:
        under_compile = compile_guard_value(node.test, self.resolve)
        if under_compile is True:
            return self.block(node.body, env)
        if under_compile is False:
            return self.block(node.orelse, env)
        if _is_validation_guard(node):
            kind = self._test(node.test, env)
            if is_tensor(kind):
                self._report(
                    "GM201", node.test,
                    "Validation guard on tensor values raises eagerly; lower it to "
                    "`torch._assert_async` so the check stays in the graph",
                    kind,
                )
            return False  # the raising arm is the error path, never traced
        self._bool_context(node.test, env, "GM101", "`if` condition")
        body_env, else_env = dict(env), dict(env)
        body_leaves = self.block(node.body, body_env)
        else_leaves = self.block(node.orelse, else_env)
        _merge_into(env, [] if body_leaves else [body_env], [] if else_leaves else [else_env])
        return body_leaves and else_leaves

    # ---- bool contexts ------------------------------------------------------------------
    def _test(self, test: ast.expr, env: Env) -> Kind:
        """Evaluate a condition; the whole test is one bool conversion, reported once."""
        self._test_depth += 1
        try:
            if isinstance(test, ast.BoolOp):
                return frozenset().union(*(self._test(value, env) for value in test.values))
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                return self._test(test.operand, env)
            return self.expr(test, env)
        finally:
            self._test_depth -= 1

    def _bool_context(self, test: ast.expr, env: Env, code: str, what: str) -> None:
        kind = self._test(test, env)
        if is_tensor(kind):
            self._report(code, test, f"{what} depends on tensor values", kind)

    # ---- expressions --------------------------------------------------------------------
    def expr(self, node: ast.expr | None, env: Env) -> Kind:
        if node is None:
            return NOT_TENSOR
        handler = _EXPR_HANDLERS.get(type(node))
        if handler is not None:
            kind: Kind = handler(self, node, env)
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
        owner = self.expr(node.value, env)
        if isinstance(node.value, ast.Name) and node.value.id not in env and node.value.id != "self":
            self.references.add(f"{node.value.id}.{node.attr}")  # module.function passed as a value
        if node.attr in V.TENSOR_ATTRS:
            return owner
        return NOT_TENSOR

    def _expr_Subscript(self, node: ast.Subscript, env: Env) -> Kind:
        owner = self.expr(node.value, env)
        index = self._index(node.slice, env)
        if is_tensor(owner) and "bool" in index:
            self._report(
                "GM502", node,
                "Indexing with a boolean mask gives a shape that depends on tensor values",
                owner | index,
            )
        if isinstance(node.value, ast.Attribute) and node.value.attr in V.STATIC_ATTRS:
            return NOT_TENSOR
        return owner - {"bool", "ddop"}

    def _index(self, node: ast.expr, env: Env) -> Kind:
        if isinstance(node, ast.Tuple):
            kinds = [self.expr(element, env) for element in node.elts]
            return frozenset().union(*kinds) if kinds else NOT_TENSOR
        return self.expr(node, env)

    def _expr_BinOp(self, node: ast.BinOp, env: Env) -> Kind:
        return (self.expr(node.left, env) | self.expr(node.right, env)) - {"bool", "ddop"}

    def _expr_UnaryOp(self, node: ast.UnaryOp, env: Env) -> Kind:
        if isinstance(node.op, ast.Not):
            if self._test_depth:
                return self.expr(node.operand, env)
            self._bool_context(node.operand, env, "GM103", "`not`")
            return NOT_TENSOR
        return self.expr(node.operand, env)

    def _expr_BoolOp(self, node: ast.BoolOp, env: Env) -> Kind:
        if self._test_depth:
            return self._test(node, env)
        kinds = [self.expr(value, env) for value in node.values]
        # Every operand but the last is converted to a bool to decide whether to go on.
        for value, kind in zip(node.values[:-1], kinds):
            if is_tensor(kind):
                op = "and" if isinstance(node.op, ast.And) else "or"
                self._report("GM103", value, f"`{op}` converts a tensor to a Python bool", kind)
        return frozenset().union(*kinds)

    def _expr_Compare(self, node: ast.Compare, env: Env) -> Kind:
        kinds = [self.expr(node.left, env)] + [self.expr(c, env) for c in node.comparators]
        if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            return NOT_TENSOR
        kind = frozenset().union(*kinds) - {"ddop"}
        return kind | {"bool"} if is_tensor(kind) else kind  # a tensor only if an operand is

    def _expr_IfExp(self, node: ast.IfExp, env: Env) -> Kind:
        under_compile = compile_guard_value(node.test, self.resolve)
        if under_compile is not None:
            return self.expr(node.body if under_compile else node.orelse, env)
        self._bool_context(node.test, env, "GM102", "Conditional expression")
        return self.expr(node.body, env) | self.expr(node.orelse, env)

    def _expr_NamedExpr(self, node: ast.NamedExpr, env: Env) -> Kind:
        kind = self.expr(node.value, env)
        self._bind(node.target, kind, env)
        return kind

    def _sequence(self, node: ast.Tuple | ast.List | ast.Set, env: Env) -> Kind:
        kinds = [self.expr(element, env) for element in node.elts]
        return frozenset().union(*kinds) - {"bool", "ddop"} if kinds else NOT_TENSOR

    _expr_Tuple = _expr_List = _expr_Set = _sequence

    def _expr_Dict(self, node: ast.Dict, env: Env) -> Kind:
        for key in node.keys:
            self.expr(key, env)
        kinds = [self.expr(value, env) for value in node.values]
        return frozenset().union(*kinds) - {"bool", "ddop"} if kinds else NOT_TENSOR

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
        inner = dict(env)
        for generator in node.generators:
            self._bind(generator.target, self.expr(generator.iter, inner), inner)
            for condition in generator.ifs:
                self._bool_context(condition, inner, "GM101", "Comprehension filter")
        if isinstance(node, ast.DictComp):
            self.expr(node.key, inner)
            return self.expr(node.value, inner) - {"bool", "ddop"}
        return self.expr(node.elt, inner) - {"bool", "ddop"}

    _expr_ListComp = _expr_SetComp = _expr_GeneratorExp = _expr_DictComp = _comprehension

    # ---- calls --------------------------------------------------------------------------
    def _expr_Call(self, node: ast.Call, env: Env) -> Kind:
        func = node.func
        args = [self.expr(arg, env) for arg in node.args]
        kwargs = [(kw.arg, self.expr(kw.value, env)) for kw in node.keywords]
        resolved = self.resolve(func)
        if isinstance(func, ast.Attribute):
            receiver = self.expr(func.value, env)
            kind = self._method_call(node, func, receiver, args, kwargs, resolved, env)
        else:
            kind = self._function_call(node, func, args, kwargs, resolved)
        return kind

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
            if name in V.SCALAR_CASTS and args and is_tensor(args[0]):
                self._report(
                    "GM302", node, f"`{name}()` on a tensor copies its value to Python", args[0]
                )
                return NOT_TENSOR
            if name == "print":
                self._report("GM401", node, "`print` in traced code", TENSOR)
                return NOT_TENSOR
            if name == "open":
                self._report("GM602", node, "File I/O in traced code", TENSOR)
                return NOT_TENSOR
            if name in ("abs", "sum", "max", "min", "round"):
                return frozenset().union(NOT_TENSOR, *args)
            if name in V.STATIC_BUILTINS:
                return NOT_TENSOR
        if resolved is not None:
            known = self._known_call(node, resolved, args)
            if known is not None:
                return known
        return self._user_call(func, node, args, kwargs)

    def _known_call(self, node: ast.Call, resolved: str, args: list[Kind]) -> Kind | None:
        """Calls into torch, logging and warnings, by their resolved dotted name."""
        if resolved in ("warnings.warn", "warnings.warn_explicit"):
            self._report("GM403", node, "`warnings.warn` in traced code", TENSOR)
            return NOT_TENSOR
        if resolved.startswith("logging.") and resolved.rsplit(".", 1)[1] in V.LOG_METHODS:
            self._report("GM402", node, f"`{resolved}` in traced code", TENSOR)
            return NOT_TENSOR
        if resolved == "torch._dynamo.graph_break":
            self._report("GM603", node, "Explicit `torch._dynamo.graph_break()`", TENSOR)
            return NOT_TENSOR
        if not resolved.startswith("torch."):
            return None
        name = resolved[len("torch."):]
        leaf = name.rsplit(".", 1)[-1]
        if name in ("save", "load"):
            self._report("GM601", node, f"`torch.{name}` does file I/O in traced code", TENSOR)
            return NOT_TENSOR
        if leaf in V.COMPILE_GUARDS:
            return NOT_TENSOR
        if name in V.DATA_DEPENDENT_BOOL_OPS:
            return self._data_dependent_bool(node, f"torch.{name}")
        if leaf in V.DYNAMIC_SHAPE_OPS or (name == "where" and len(node.args) == 1 and not node.keywords):
            self._report(
                "GM501", node, f"`torch.{name}` has an output shape that depends on tensor values",
                TENSOR,
            )
            return TENSOR
        if name == "repeat_interleave" and len(args) > 1 and is_tensor(args[1]):
            self._report_repeat(node, args[1])
            return TENSOR
        if name.startswith(V.TORCH_TENSOR_SUBMODULES):
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
        if resolved is not None and (resolved.startswith(("torch.", "warnings.", "logging."))):
            known = self._known_call(node, resolved, args)
            if known is not None:
                return known
        if method in V.LOG_METHODS and self._is_logger(func.value, owner):
            self._report("GM402", node, f"Logger call `{owner}.{method}` in traced code", TENSOR)
            return NOT_TENSOR
        static_receiver = isinstance(func.value, ast.Attribute) and func.value.attr in V.STATIC_ATTRS
        tensor_receiver = is_tensor(receiver) or (method in V.TENSOR_METHODS and not static_receiver)
        if tensor_receiver and not static_receiver:
            kind = receiver | TENSOR if method in V.TENSOR_METHODS else receiver
            return self._tensor_method(node, method, kind, args)
        local_receiver = owner is not None and owner.split(".", 1)[0] in env
        if owner in ("self", "cls") or not local_receiver:
            # self.method(...), super().method(...), module.function(...)
            return self._user_call(func, node, args, kwargs)
        return NOT_TENSOR

    def _tensor_method(self, node: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
        if method == "item":
            self._report("GM301", node, "`.item()` copies a tensor value to Python", receiver)
            return NOT_TENSOR
        if method == "tolist":
            self._report("GM303", node, "`.tolist()` copies tensor values to a Python list", receiver)
            return NOT_TENSOR
        if method in V.DATA_DEPENDENT_BOOL_OPS:
            return self._data_dependent_bool(node, f"Tensor.{method}")
        if method in V.DYNAMIC_SHAPE_OPS:
            self._report(
                "GM501", node, f"`.{method}()` has an output shape that depends on tensor values",
                receiver,
            )
            return receiver
        if method == "repeat_interleave" and args and is_tensor(args[0]):
            self._report_repeat(node, args[0])
            return receiver
        if method in V.STATIC_METHODS:
            return NOT_TENSOR
        if method in V.BOOL_PRODUCERS:
            return receiver | BOOL_TENSOR
        return (receiver | frozenset().union(NOT_TENSOR, *args)) - {"bool", "ddop"}

    def _data_dependent_bool(self, node: ast.Call, name: str) -> Kind:
        if not self._test_depth:
            self._report("GM105", node, f"`{name}` returns a Python bool computed from tensor values", TENSOR)
        return DATA_DEPENDENT_BOOL

    def _report_repeat(self, node: ast.Call, repeats: Kind) -> None:
        self._report(
            "GM503", node, "`repeat_interleave` with tensor repeats has a data-dependent length",
            repeats,
        )

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
    ) -> Kind:
        """A call that may land in the checked tree: record it for the scope solver."""
        ref = callee_ref(func)
        if ref is None:
            return NOT_TENSOR
        bound = ref.startswith(("self:", "super:"))
        site = CallSite(
            ref, tuple(args), tuple((k, v) for k, v in kwargs if k is not None), bound
        )
        self.summary.calls.append(site)
        return frozenset({f"c:{len(self.summary.calls) - 1}"})

    # ---- reporting ----------------------------------------------------------------------
    def _report(self, code: str, node: ast.AST, message: str, deps: Kind) -> None:
        row, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        end_row = node.end_lineno or row  # type: ignore[attr-defined]
        end_col = node.end_col_offset or col  # type: ignore[attr-defined]
        key = (code, row, col)
        if key in self._reported:
            return  # loop bodies run twice
        self._reported.add(key)
        line = self.lines[row - 1] if row <= len(self.lines) else ""
        end_line = self.lines[end_row - 1] if end_row <= len(self.lines) else ""
        rule = rule_for(code)
        gb_id = "GB0033" if "ddop" in deps and code in ("GM101", "GM102", "GM103", "GM201") else rule.gb_id
        self.summary.drafts.append(
            Draft(
                code, message, row, _char_column(line, col), end_row,
                _char_column(end_line, end_col), gb_id, deps - {"bool", "ddop"} or deps,
                line.rstrip("\r\n"),
            )
        )


# Expression handlers by node type, looked up once per node (cheaper than getattr by name).
_EXPR_HANDLERS: dict[type, Callable[[FunctionAnalyzer, Any, Env], Kind]] = {
    getattr(ast, name.removeprefix("_expr_")): handler
    for name, handler in vars(FunctionAnalyzer).items()
    if name.startswith("_expr_")
}


def callee_ref(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return f"name:{func.id}"
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
            return f"self:{func.attr}"
        if isinstance(func.value, ast.Call) and dotted_name(func.value.func) == "super":
            return f"super:{func.attr}"
        name = dotted_name(func)
        if name is not None:
            return f"dotted:{name}"
    return None


def compile_guard_value(test: ast.expr, resolve: Resolve) -> bool | None:
    """The value of `test` while TorchDynamo traces, when a compile guard decides it."""
    if isinstance(test, ast.Call) and not test.args:
        name = dotted_name(test.func)
        if name is not None and name.rsplit(".", 1)[-1] in V.COMPILE_GUARDS:
            return True
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        value = compile_guard_value(test.operand, resolve)
        return None if value is None else not value
    if isinstance(test, ast.BoolOp):
        values = [compile_guard_value(v, resolve) for v in test.values]
        decisive = isinstance(test.op, ast.Or)  # True decides `or`, False decides `and`
        if decisive in values:
            return decisive
        if all(v is (not decisive) for v in values):
            return not decisive
    return None


def _is_validation_guard(node: ast.If) -> bool:
    return not node.orelse and len(node.body) == 1 and isinstance(node.body[0], ast.Raise)


def _merge_into(env: Env, *arm_envs: list[Env]) -> None:
    arms = [arm for group in arm_envs for arm in group]
    if not arms:
        return
    names = set().union(*(arm.keys() for arm in arms))
    for name in names:
        env[name] = frozenset().union(*(arm.get(name, NOT_TENSOR) for arm in arms))


def _char_column(line: str, byte_offset: int) -> int:
    """ast columns are UTF-8 byte offsets; findings use 1-based character columns."""
    if line.isascii():
        return byte_offset + 1
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1
