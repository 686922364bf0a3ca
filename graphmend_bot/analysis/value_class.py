"""Which class a value is an instance of, where the source says so (issue 12).

A value's class is written as a *class ref*, a string the scope solver resolves once it knows
every module (analysis/class_resolution.py):

- "typed:Q": an instance of class Q or of a subclass (a parameter or local annotated `x: Q`,
  `Optional[Q]`, `Q | None`, or a call whose callee's return annotation is Q);
- "self": the enclosing method's own class;
- "attr:NAME": `self.NAME` (the class __init__ builds there, or a property's return annotation);
- "member:BASE>NAME": attribute NAME of a value of class ref BASE (a property or an attribute);
- "result:BASE>NAME": what method NAME of a value of class ref BASE returns, by its annotation;
- the constructor refs of function_objects.py ("name:Cls", "dotted:m.Cls", ...) for `x = Cls(...)`.

Refs built here reach a class's own functions: `covar.inv_quad_logdet(...)`, `covar.batch_shape`
(a property) and `covar + other` (`__add__`), so a break inside them (in a configured dependency
too) is reported at the line that reaches it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from graphmend_bot.analysis import narrowing
from graphmend_bot.vocabulary.dotted_names import dotted_name

Resolve = Callable[[ast.expr], str | None]

# Annotations that name no class of the tree or a dependency: tensors, builtins, typing.
_NOT_CLASSES = frozenset({
    "Any", "Callable", "Optional", "Union", "Tensor", "Size", "Module", "Parameter", "Self",
})
_NOT_CLASS_PREFIXES = ("torch.", "typing.", "collections.", "numpy.", "builtins.")

# Operators whose dunder Python runs on the left operand's class (`covar + noise_covar`).
OPERATOR_METHODS: dict[type[ast.operator], str] = {
    ast.Add: "__add__",
    ast.Sub: "__sub__",
    ast.Mult: "__mul__",
    ast.MatMult: "__matmul__",
    ast.Div: "__truediv__",
    ast.FloorDiv: "__floordiv__",
    ast.Mod: "__mod__",
    ast.Pow: "__pow__",
    ast.BitAnd: "__and__",
    ast.BitOr: "__or__",
    ast.BitXor: "__xor__",
    ast.LShift: "__lshift__",
    ast.RShift: "__rshift__",
}

# `tensor OP obj` runs `type(obj).__rOP__` in eager once the tensor's own operator declines.
REFLECTED_METHODS: dict[type[ast.operator], str] = {
    ast.Add: "__radd__",
    ast.Sub: "__rsub__",
    ast.Mult: "__rmul__",
    ast.MatMult: "__rmatmul__",
    ast.Div: "__rtruediv__",
    ast.FloorDiv: "__rfloordiv__",
    ast.Mod: "__rmod__",
    ast.Pow: "__rpow__",
    ast.BitAnd: "__rand__",
    ast.BitOr: "__ror__",
    ast.BitXor: "__rxor__",
    ast.LShift: "__rlshift__",
    ast.RShift: "__rrshift__",
}

# Decorators that make a method run on attribute access (by their last name: `functools.
# cached_property`, torch.distributions' `lazy_property`, which gpytorch's distributions use).
PROPERTY_DECORATORS = frozenset({"property", "cached_property", "lazy_property"})


def without_optional(annotation: ast.expr) -> ast.expr:
    """`Optional[Q]` and `Q | None` -> `Q`; any other annotation as it is."""
    if isinstance(annotation, ast.Subscript) and (dotted_name(annotation.value) or "").endswith("Optional"):
        return annotation.slice
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr) and narrowing.is_none_constant(
        annotation.right
    ):
        return annotation.left
    return annotation


def class_annotation(annotation: ast.expr | None, resolve: Resolve,
                     tree_class: Callable[[str], bool] | None = None) -> str | None:
    """The qualified class an annotation names (`Q`, `Optional[Q]`, `Q | None`, `"Q"`), or None
    for anything else (a union of classes, a container, a tensor, a builtin type). A name ending in
    `Tensor` is read as one of torch's tensor types unless `tree_class` says the tree defines it
    (pypose's `x: LieTensor`, a tensor subclass whose methods the tree defines: GM662); another
    package's (`adj: SparseTensor`) stays unread."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    name = dotted_name(without_optional(annotation))
    if name is None:
        return None
    leaf = name.rsplit(".", 1)[-1]
    if not leaf[:1].isupper() or leaf in _NOT_CLASSES:
        return None
    if leaf.endswith("Tensor") and (tree_class is None or name.startswith(_NOT_CLASS_PREFIXES)):
        return None  # `torch.FloatTensor`, unresolved: most annotations of model code
    qualified = resolve(annotation) or name
    if leaf.endswith("Tensor") and not (tree_class and tree_class(qualified)):
        return None
    return None if qualified.startswith(_NOT_CLASS_PREFIXES) else qualified


def imported_class_too(tree_class: Callable[[str], bool]) -> Callable[[str], bool]:
    """`tree_class`, widened to any class an import names outside torch (a dependency's maybe)."""
    return lambda qualified: tree_class(qualified) or ("." in qualified and not qualified.startswith(_NOT_CLASS_PREFIXES))


def is_property(decorators: tuple[str, ...]) -> bool:
    return any(decorator.rpartition(".")[2] in PROPERTY_DECORATORS for decorator in decorators)


def typed(qualified: str) -> str:
    return f"typed:{qualified}"


def member(base: str, name: str) -> str:
    return f"member:{base}>{name}"


def result(base: str, name: str) -> str:
    return f"result:{base}>{name}"


def annotated_root(ref: str | None) -> bool:
    """A value an annotation types (`x: Q`, or read from or returned by one): not a tensor, even
    when a method it calls shares a tensor method's name (`covar.solve(rhs)`)."""
    while ref is not None and ref.startswith(("member:", "result:")):
        ref = ref.partition(":")[2].rpartition(">")[0]
    return ref is not None and ref.startswith("typed:")


def built_in_function(ref: str) -> bool:
    """A constructor ref of an object built by a call in the function itself (GM605's subject),
    unlike module state, an annotated value or one read from another object."""
    return not ref.startswith(("attr:", "typed:", "member:", "result:", "self"))
