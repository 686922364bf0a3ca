"""Where a tensor a function holds may be seen after it returns: the other half of aliasing.py.

A branch that selects `x` itself hands the caller `x`'s storage; torch.where hands it a new
tensor. When the selection leaves the function (returned, yielded, stored on `self`, in an item
or a global) and `x` may be a caller's tensor (a parameter, `self.*`, a global, or a local bound
to a view of one, or itself leaving), an in-place update outside (`out = self.pick(x);
out.add_(1)`) reached `x` in the original program only. Nothing here knows what the caller does,
so such a selection is an assumption (review7 finding 1).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from graphmend_bot.rewrite.aliasing import (
    PASSING_FUNCTIONS,
    SAME_OBJECT,
    TORCH_NAMESPACES,
    VIEWS,
    HandingSites,
    in_place_name,
    target_names,
    torch_call_writes,
)
from graphmend_bot.rewrite.purity import dotted

Holds = Callable[[str], bool]
Skip = Callable[[cst.BaseExpression], bool]
Fresh = Callable[[cst.Call], bool]  # the call computes a new tensor (class_attributes.computes_new_tensor)
# Tensor methods whose result may be the tensor's storage: views, the tensor itself (`.float()` on
# a float tensor, `add_` returns its receiver), and a numpy array sharing its memory.
_SHARING_METHODS = VIEWS | SAME_OBJECT | {"numpy"}
# A container's methods that hand back what it holds (`outs.get("y")`).
_CONTAINER_READS = frozenset({"get", "pop", "setdefault", "values", "items", "copy", "__getitem__"})
_CONTAINERS = (cst.List, cst.Tuple, cst.Set, cst.ListComp, cst.SetComp, cst.GeneratorExp)


def carries(expression: cst.BaseExpression | None, holds: Holds, fresh: Fresh = lambda call: False) -> bool:
    """`expression`'s value may be, view or contain a tensor of a name `holds` says yes to: the
    name itself, an item, attribute or view of it, a container or conditional holding it, or a
    call of anything but a torch function, tensor method or layer `fresh` proves computes a new
    tensor (a user function or submodule may hand its argument back or keep it)."""
    node = expression
    if node is None:
        return False
    if isinstance(node, cst.Name):
        return holds(node.value)
    if isinstance(node, cst.Attribute | cst.Subscript | cst.NamedExpr | cst.StarredElement):
        return carries(node.value, holds, fresh)
    if isinstance(node, cst.Await):
        return carries(node.expression, holds, fresh)
    if isinstance(node, cst.List | cst.Tuple | cst.Set):
        return any(carries(element.value, holds, fresh) for element in node.elements)
    if isinstance(node, cst.Dict):
        return any(carries(element.value, holds, fresh) for element in node.elements)
    if isinstance(node, cst.IfExp):
        return carries(node.body, holds, fresh) or carries(node.orelse, holds, fresh)
    if isinstance(node, cst.BooleanOperation):
        return carries(node.left, holds, fresh) or carries(node.right, holds, fresh)
    if isinstance(node, cst.BinaryOperation):
        # arithmetic makes a new tensor; `[y] + rest` is a list holding `y`
        return isinstance(node.operator, cst.Add) and any(
            isinstance(side, _CONTAINERS) and carries(side, holds, fresh) for side in (node.left, node.right))
    if isinstance(node, cst.Call):
        return _call_carries(node, holds, fresh)
    if isinstance(node, cst.Lambda | cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp):
        return any(holds(name.value) for name in _names(node))  # a closure or its elements
    return False


def _call_carries(call: cst.Call, holds: Holds, fresh: Fresh) -> bool:
    name = dotted(call.func) or ""
    arguments = [arg.value for arg in call.args]
    if name.startswith(TORCH_NAMESPACES):
        if torch_call_writes(call):
            return any(carries(value, holds, fresh) for value in arguments)  # `out=` is returned
        if name.rsplit(".", 1)[-1] in PASSING_FUNCTIONS:
            first = next((arg.value for arg in call.args if arg.keyword is None and not arg.star), None)
            return carries(first, holds, fresh)
        return False
    if isinstance(call.func, cst.Attribute):
        method = call.func.attr.value
        if method in _SHARING_METHODS | _CONTAINER_READS or in_place_name(method):
            return carries(call.func.value, holds, fresh) or any(carries(value, holds, fresh) for value in arguments)
        # other methods of what a name holds compute a new value (`y.sum()`, `y.clone()`)
    if fresh(call):
        return False
    return any(carries(value, holds, fresh) for value in arguments)


def _names(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []

    class Collector(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

    node.visit(Collector())
    return found


class Exits:
    """One walk of a function: the values that leave it (`return`, `yield`, a store on an
    attribute, an item or a global) and the names it binds locally, to say which names may hold
    a tensor the caller also holds."""

    def __init__(self, function: cst.FunctionDef, sites: HandingSites, fresh: Fresh) -> None:
        self.function = function
        self.sites = sites
        self.fresh = fresh
        self.exits: list[tuple[cst.CSTNode, cst.BaseExpression]] = []
        self.parameters = {param.name.value for param in _parameters(function.params)}
        declared: set[str] = set()
        bound: set[str] = set()
        unknown: set[str] = set()  # bound by `with ... as`, `except ... as`, an import, ...
        exits = self.exits

        def leaves(target: cst.BaseExpression) -> bool:
            if isinstance(target, cst.Tuple | cst.List):
                return any(leaves(element.value) for element in target.elements)
            if isinstance(target, cst.StarredElement):
                return leaves(target.value)
            return isinstance(target, cst.Attribute | cst.Subscript) or (
                isinstance(target, cst.Name) and target.value in declared)

        class Collector(cst.CSTVisitor):
            def visit_Global(self, node: cst.Global) -> None:
                declared.update(item.name.value for item in node.names)

            def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
                declared.update(item.name.value for item in node.names)

            def visit_Return(self, node: cst.Return) -> None:
                if node.value is not None:
                    exits.append((node, node.value))

            def visit_Yield(self, node: cst.Yield) -> None:
                value = node.value.item if isinstance(node.value, cst.From) else node.value
                if value is not None:
                    exits.append((node, value))

            def visit_Assign(self, node: cst.Assign) -> None:
                for target in node.targets:
                    bound.update(name.value for name in target_names(target.target))
                if any(leaves(target.target) for target in node.targets):
                    exits.append((node, node.value))

            def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
                if node.value is not None and leaves(node.target):
                    exits.append((node, node.value))
                unknown.update(name.value for name in target_names(node.target))

            def visit_AugAssign(self, node: cst.AugAssign) -> None:
                if leaves(node.target):
                    exits.append((node, node.value))

            def visit_For(self, node: cst.For) -> None:
                bound.update(name.value for name in target_names(node.target))

            def visit_CompFor(self, node: cst.CompFor) -> None:
                bound.update(name.value for name in target_names(node.target))

            def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
                bound.update(name.value for name in target_names(node.target))

            def visit_AsName(self, node: cst.AsName) -> None:
                if isinstance(node.name, cst.Name):
                    unknown.add(node.name.value)
                else:
                    unknown.update(name.value for name in target_names(node.name))

        function.body.visit(Collector())
        # Names that may hold a tensor from outside: parameters, globals and closures (no local
        # binding), names bound in ways not followed, and locals bound to what one of those carries.
        self.outside = self.parameters | declared | unknown
        self.local = bound - self.outside

        def from_outside(name: str) -> bool:
            return name not in self.local or name in self.outside

        while True:
            grown = {name.value for target, value in sites.bindings if carries(value, from_outside, fresh)
                     for name in target_names(target)} - self.outside
            if not grown:
                break
            self.outside |= grown

    def from_outside(self, value: cst.BaseExpression) -> bool:
        """`value` may carry a tensor from outside (flow-insensitively: any binding of a name counts)."""
        return carries(value, lambda name: name not in self.local or name in self.outside, self.fresh)

    def aliases(self, names: Iterable[str], skip: Skip = lambda target: False) -> set[str]:
        """`names` and the locals bound to what they carry (`z = y`, `outs = [y]`, `w = y.view(-1)`),
        but through no binding whose target `skip` names."""
        found = set(names)
        while True:
            grown = {name.value for target, value in self.sites.bindings
                     if not skip(target) and carries(value, found.__contains__, self.fresh)
                     for name in target_names(target)} - found
            if not grown:
                return found
            found |= grown

    def leaving(self, names: Iterable[str], skip: Skip = lambda target: False) -> list[cst.CSTNode]:
        """The exits whose value carries a tensor of `names` or of their aliases, in source order."""
        held = self.aliases(names, skip)
        return [node for node, value in self.exits if carries(value, held.__contains__, self.fresh)]

    def may_be_callers(self, name: str) -> bool:
        """`name` may hold a tensor the caller can reach after the function returns: one from
        outside (a parameter, `self`, a global), or a local that itself leaves."""
        return name in self.outside or name not in self.local or bool(self.leaving([name]))


def _parameters(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kwargs = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwargs]


def direct_exit(ancestors: Iterable[cst.CSTNode], exits: Exits) -> cst.CSTNode | None:
    """The statement through which the expression whose `ancestors` these are leaves the function
    as it is (`return x`, `self.y = x if c else x * 2`, `yield a, x`), or None: a computation on it
    (`x * 2`, a call) makes something else of it first."""
    leaving = {id(node) for node, _ in exits.exits}
    for node in ancestors:
        if id(node) in leaving:
            return node
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement | cst.Lambda | cst.Call
                      | cst.BinaryOperation | cst.UnaryOperation | cst.Comparison):
            return None
    return None
