"""What a class's own code shows of its `self` attributes, for rewrites that prove an attribute's
kind (a tensor, 1-d) from every `self.x = value` in the class.

Such a proof holds only where those assignments are all there is. An attribute is also bound by a
class-level name, `register_buffer("x", ...)` / `register_parameter` / `add_module`,
`setattr(self, "x", ...)`, or a loop or `with` target: `attributes_bound_otherwise` names them, so
the proof refuses them. A base class may set it too: outside `nn.Module` and `object`, that is an
assumption the fix states (`inherited_assumption`), since the base is often in another file.
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.rewrite.aliasing import TORCH_NAMESPACES
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.purity import dotted

# Bases that set no attribute a rewrite reads (nn.Module's own are private: `_buffers`, `training`).
PLAIN_BASES = frozenset({"object", "Module", "nn.Module", "torch.nn.Module"})
REGISTERING_METHODS = frozenset({"register_buffer", "register_parameter", "add_module"})


def enclosing_class(ctx: FixContext, node: cst.CSTNode) -> cst.ClassDef:
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, cst.ClassDef):
            return ancestor
    raise Rejected("not in a class: `self` attributes are unknown")


def self_attribute(target: cst.BaseExpression) -> str | None:
    """`x` of `self.x`."""
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
        return target.attr.value
    return None


def attributes_bound_otherwise(cls: cst.ClassDef) -> set[str]:
    """Attributes the class binds other than by assigning `self.x` in a method. A name computed at
    run time (`setattr(self, name, ...)`) could be any attribute: refused outright."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            registering = isinstance(func, cst.Attribute) and func.attr.value in REGISTERING_METHODS
            setting = isinstance(func, cst.Name) and func.value == "setattr"
            if not (registering or setting):
                return
            positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
            name = positional[1 if setting else 0] if len(positional) > (1 if setting else 0) else None
            if setting and not (positional and isinstance(positional[0], cst.Name) and positional[0].value == "self"):
                return
            if not isinstance(name, cst.SimpleString):
                raise Rejected("the class binds an attribute by a computed name")
            value = name.evaluated_value
            if isinstance(value, str):
                found.add(value)

        def visit_For(self, node: cst.For) -> None:
            found.update(self_attributes_in(node.target))

        def visit_WithItem(self, node: cst.WithItem) -> None:
            if node.asname is not None:
                found.update(self_attributes_in(node.asname.name))

    cls.body.visit(Visitor())
    for statement in cls.body.body:  # class-level names: what `self.x` reads before any assignment
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else (
                [small.target] if isinstance(small, cst.AnnAssign | cst.AugAssign) else []
            )
            found.update(t.value for t in targets if isinstance(t, cst.Name))
    return found


def inherited_assumption(cls: cst.ClassDef, attributes: list[str]) -> str | None:
    """The assumption that bases outside `nn.Module` set none of `attributes`, or None."""
    bases = [dotted(arg.value) or "?" for arg in cls.bases if arg.keyword is None]
    others = [base for base in bases if base not in PLAIN_BASES]
    if not others:
        return None
    names = " and ".join(f"`{name}`" for name in attributes)
    return f"the base classes ({', '.join(f'`{b}`' for b in others)}) do not set {names}: only `{cls.name.value}`'s own assignments were read"


def assigned_in_init(cls: cst.ClassDef, attribute: str) -> bool:
    """Whether `__init__` assigns `self.<attribute>` in a statement of its own body (not under an
    `if` or a loop), so the attribute exists once the object does."""
    for statement in cls.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "__init__":
            for line in statement.body.body:
                for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
                    if isinstance(small, cst.Assign) and any(self_attribute(t.target) == attribute for t in small.targets):
                        return True
    return False


def self_attributes_in(target: cst.BaseExpression) -> set[str]:
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            name = self_attribute(node)
            if name is not None:
                found.add(name)

    target.visit(Visitor())
    return found


# torch.nn modules that hold others: what they do to a tensor depends on what they were given.
CONTAINER_MODULES = frozenset({"Sequential", "ModuleList", "ModuleDict"})
# torch.nn modules that may hand back their input itself or a view of it (Dropout in eval).
PASSING_MODULES = frozenset({
    "Identity", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "Flatten", "Unflatten",
})


def torch_layers_called(ctx: FixContext, call: cst.Call) -> list[cst.Call] | None:
    """The `nn.K(...)` constructions a `self.x(...)` call may run: every value the class assigns
    to `self.x`, when each is a torch.nn layer (not a container) and nothing else binds it; else None."""
    attribute = self_attribute(call.func) if isinstance(call.func, cst.Attribute) else None
    cls = next((node for node in ctx.ancestors(call) if isinstance(node, cst.ClassDef)), None)
    if attribute is None or cls is None:
        return None
    try:
        if attribute in attributes_bound_otherwise(cls):
            return None
    except Rejected:
        return None
    built: list[cst.BaseExpression] = []

    class Collector(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if any(self_attribute(target.target) == attribute for target in node.targets):
                built.append(node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if self_attribute(node.target) == attribute and node.value is not None:
                built.append(node.value)

    cls.body.visit(Collector())
    layers = [value for value in built if isinstance(value, cst.Call) and torch_layer_kind(value) is not None]
    return layers if layers and len(layers) == len(built) else None


def torch_layer_kind(value: cst.Call) -> str | None:
    """`LayerNorm` of `nn.LayerNorm(d)` / `torch.nn.LayerNorm(d)`; None for containers and other calls."""
    built = dotted(value.func) or ""
    if not built.startswith(("nn.", "torch.nn.")) or built.count(".") != built.startswith("torch.") + 1:
        return None
    kind = built.rsplit(".", 1)[-1]
    return None if kind in CONTAINER_MODULES or not kind[:1].isupper() else kind


def writes_into_input(layer: cst.Call) -> bool:
    """`nn.ReLU(inplace=True)`, `nn.ReLU(True)`: the layer may write into its input (an `inplace`
    not plainly False, or a positional True, read as possibly `inplace`)."""
    for arg in layer.args:
        plainly_false = isinstance(arg.value, cst.Name) and arg.value.value == "False"
        if arg.keyword is not None and arg.keyword.value == "inplace" and not plainly_false:
            return True
        if arg.keyword is None and isinstance(arg.value, cst.Name) and arg.value.value == "True":
            return True
    return False


def computes_new_tensor(ctx: FixContext, call: cst.Call) -> bool:
    """A torch function (those that may hand back their input are walked through before), a
    tensor method, a submodule built as a torch.nn layer that never returns its input."""
    name = dotted(call.func) or ""
    if name.startswith(TORCH_NAMESPACES):
        return True
    if not isinstance(call.func, cst.Attribute):
        return False  # a user function may return its argument
    layers = torch_layers_called(ctx, call)
    if layers is not None:
        return not any(torch_layer_kind(layer) in PASSING_MODULES or writes_into_input(layer) for layer in layers)
    return not name.startswith("self.")  # `x.sum()`; `self.helper(x)` may hand `x` back
