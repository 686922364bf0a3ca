"""Which expressions a guard may stop evaluating under compile: those that only read values.

The guard skips an I/O call's arguments under torch.compile (and the `if` test it joins, io.py).
Skipping them is safe only when evaluating them changes nothing: no call with effects, no walrus,
and no iteration that consumes what it iterates. `print(*parts)`, `list(it)`, `", ".join(names)`
and `[c for c in chunks]` exhaust an iterator or generator they are given, so the compiled program
would find it full where eager found it empty. Those are pure only when what they iterate is
shown to be replayable from the function's text: a display, a comprehension, a string, the result
of a pure call (a fresh value), `x.shape`, or a name every binding of which is one (a parameter
annotated as a container or tensor, `*args`, `**kwargs`). `d.get(k)` is pure only on a proven
dict (`queue.Queue.get` pops).
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import dotted

# Calls that compute a value and have no side effects, whatever their arguments are.
PURE_FUNCTIONS = frozenset({
    "str", "repr", "len", "type", "int", "float", "bool", "abs", "round", "format", "getattr", "hasattr",
    "isinstance", "id", "range",
})
# Builtins that iterate their (first) argument: pure when it is replayable.
ITERATING_FUNCTIONS = frozenset({"tuple", "list", "dict", "set", "sorted", "min", "max", "sum", "any", "all"})
PURE_METHODS = frozenset({
    "format", "size", "dim", "numel", "keys", "values", "items", "lower", "upper", "strip", "replace",
    "split", "item", "tolist", "mean", "sum", "max", "min", "float", "half", "detach", "cpu", "norm", "abs",
    "std", "var",
})
# Annotations of parameters whose values can be iterated again (containers, tensors, strings).
REPLAYABLE_ANNOTATIONS = frozenset({
    "list", "tuple", "dict", "set", "frozenset", "str", "List", "Tuple", "Dict", "Set", "FrozenSet",
    "typing.List", "typing.Tuple", "typing.Dict", "Sequence", "Mapping", "typing.Sequence", "typing.Mapping",
    "Tensor", "torch.Tensor", "torch.Size",
})
DICT_ANNOTATIONS = frozenset({"dict", "Dict", "typing.Dict"})


class ArgumentPurity:
    """Purity of expressions in one function (the one that holds `at`), from its own text."""

    def __init__(self, ctx: FixContext, at: cst.CSTNode) -> None:
        self.ctx = ctx
        self.facts = LocalFacts.of(ctx, enclosing_function(ctx, at))

    def call_arguments(self, call: cst.Call) -> bool:
        """Evaluating the call's arguments only reads values."""
        return all(self._argument(arg) for arg in call.args)

    def expression(self, node: cst.CSTNode) -> bool:
        """Evaluating `node` only reads values."""
        if isinstance(node, cst.Call):
            return self._known_pure_call(node) and self.call_arguments(node)
        if isinstance(node, cst.Lambda | cst.Yield | cst.Await | cst.NamedExpr):
            return False
        if isinstance(node, cst.StarredElement):  # `[*it]` iterates `it`
            return self.replayable(node.value) and self.expression(node.value)
        if isinstance(node, cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp) and not self._iterates_replayables(node):
            return False
        return all(self.expression(child) for child in node.children if isinstance(child, cst.BaseExpression)) and all(
            self.expression(part) for part in _nested_parts(node)
        )

    def replayable(self, node: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> bool:
        """Iterating `node`'s value consumes nothing: it is shown not to be an iterator."""
        if isinstance(node, cst.List | cst.Tuple | cst.Set | cst.Dict | cst.BaseString
                      | cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp):
            return True  # a display or a fresh value (what it iterates itself is `expression`'s business)
        if isinstance(node, cst.Call):
            return self._fresh_result(node)
        if isinstance(node, cst.Attribute):
            return node.attr.value == "shape"
        if isinstance(node, cst.Subscript):  # a slice of a container is a container of the same kind
            return all(isinstance(element.slice, cst.Slice) for element in node.slice) and self.replayable(node.value, seen)
        if isinstance(node, cst.Name):
            return self._replayable_name(node.value, seen, REPLAYABLE_ANNOTATIONS)
        return False

    # -- helpers ---------------------------------------------------------------------------------

    def _argument(self, arg: cst.Arg) -> bool:
        if arg.star:  # `*it` iterates `it`; `**m` reads a mapping
            return self.replayable(arg.value) and self.expression(arg.value)
        return self.expression(arg.value)

    def _known_pure_call(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Name):
            if func.value in ITERATING_FUNCTIONS:
                return self._iterates_replayable(call, func.value)
            return func.value in PURE_FUNCTIONS
        if isinstance(func, cst.Attribute) and self.expression(func.value):
            method = func.attr.value
            if method == "join":  # `sep.join(parts)` iterates `parts`
                return len(call.args) == 1 and not call.args[0].star and self.replayable(call.args[0].value)
            if method == "get":  # dict.get reads; queue.Queue.get pops
                return isinstance(func.value, cst.Name) and self._replayable_name(func.value.value, frozenset(), DICT_ANNOTATIONS)
            return method in PURE_METHODS
        return False

    def _iterates_replayable(self, call: cst.Call, function: str) -> bool:
        """An iterating builtin's call iterates only replayable values, and calls no `key` function
        that could have effects."""
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        keys = [arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "key"]
        if not all(isinstance(key, cst.Name) and key.value in PURE_FUNCTIONS for key in keys):
            return False
        if function in ("min", "max") and len(positional) != 1:
            return True  # `max(a, b)` compares its arguments; it iterates only a lone one
        return not positional or self.replayable(positional[0].value)

    def _iterates_replayables(self, comprehension: cst.BaseExpression) -> bool:
        """A comprehension's `for` clauses iterate replayable values."""
        clause: cst.CompFor | None = getattr(comprehension, "for_in", None)
        while clause is not None:
            if not self.replayable(clause.iter):
                return False
            clause = clause.inner_for_in
        return True

    def _fresh_result(self, call: cst.Call) -> bool:
        """The call returns a new value (a known pure call's result), never an iterator it was given."""
        func = call.func
        if isinstance(func, cst.Name):
            return func.value in (PURE_FUNCTIONS | ITERATING_FUNCTIONS) - {"getattr"}
        return isinstance(func, cst.Attribute) and func.attr.value in PURE_METHODS

    def _replayable_name(self, name: str, seen: frozenset[str], annotations: frozenset[str]) -> bool:
        """Every binding of the local or parameter `name` is replayable (or, for `get`, a dict)."""
        if name in seen:
            return False
        param = self.facts.params.get(name)
        values = self.facts.values(name)
        if param is None and not values:
            return False  # a global, a closure variable or a builtin: bound elsewhere
        if param is not None and not _replayable_parameter(self.ctx, param, annotations):
            return False
        for value in values:
            if value is None:
                return False  # bound by a loop, `with`, augmented assignment or unpacking
            if annotations is DICT_ANNOTATIONS:
                if not (isinstance(value, cst.Dict | cst.DictComp) or _calls(value, "dict")):
                    return False
            elif isinstance(value, cst.GeneratorExp) or not self.replayable(value, seen | {name}):
                return False  # a generator kept in a name is an iterator: its first reader consumes it
        return True


def _replayable_parameter(ctx: FixContext, param: cst.Param, annotations: frozenset[str]) -> bool:
    parent = ctx.parent(param)
    if isinstance(parent, cst.Parameters):
        if param is parent.star_kwarg:
            return True  # `**kwargs` is a dict
        if param is parent.star_arg:
            return annotations is not DICT_ANNOTATIONS  # `*args` is a tuple
    if param.annotation is None:
        return False
    annotation = param.annotation.annotation
    head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    return dotted(head) in annotations


def _calls(node: cst.BaseExpression, function: str) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == function


def _nested_parts(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The expressions held in `node`'s non-expression children (f-string parts, subscript indexes,
    comprehension clauses, arguments) at any depth: the nearest expression down each path. One
    level was not enough: `x[f()]` holds `f()` in an Index inside a SubscriptElement (review13)."""
    return [part for child in node.children if not isinstance(child, cst.BaseExpression)
            for part in _expressions_within(child)]


def _expressions_within(node: cst.CSTNode) -> list[cst.CSTNode]:
    parts: list[cst.CSTNode] = []
    for child in node.children:
        if isinstance(child, cst.BaseExpression):
            parts.append(child)
        else:
            parts.extend(_expressions_within(child))
    return parts
