"""Preconditions that keep rewrites well-typed: torch code is written only on tensors.

A rewrite turns Python control flow into torch operations (`torch.where`, `torch.cond`,
`torch.logical_*`). Each of those raises, or silently computes something else, when given a value
that is not a tensor: a numpy array (`img_np.max() <= 1` is a numpy bool, `np.int32` a type), a
Python literal, a type (`bool`), or a name an `isinstance` check narrowed to a Python number.
The detector reports a break on a value it believes is a tensor; the rewriter re-checks the
values it actually writes torch code on and refuses (the finding stays, with its advice) when any
of them is shown not to be one. Shown-not-a-tensor is decided from the function's own text:

- builtins and names of non-torch modules (`bool`, `np.int32`, `math.pi`);
- names bound to numpy, Python containers, `.numpy()`/`.tolist()`/`.item()` results or literals;
- parameters annotated with a non-tensor type (`np.ndarray`, `int`, `list[...]`);
- names an enclosing `isinstance(name, (int, float, ...))` test narrows to Python values;
- classes and their attributes (`Perturb.PREV`, an enum member): a class defined in the module,
  or a CapWords name it imports (PEP 8's class names), read rather than called.

A parameter's value comes from the callers: a rewrite is right for every call only when each
passes a tensor. The analysis names the parameters some call in the tree does not pass one
(Finding.unproven_parameters, analysis/caller_arguments.py); a fix of a line that reads them is
offered as unsafe, with that call as the reason (`caller_assumptions`).

`torch.cond` needs more: both branches must return tensors of one shape, so an arm that filters a
tensor with a mask or index tensor (`edge_index[:, mask]`) or calls an operation whose output
shape depends on data (`nonzero`, `masked_select`, `unique`) is never one (`changes_shape`).
"""

from __future__ import annotations

import builtins
import re
from typing import cast

import libcst as cst

from graphmend_bot.findings import Finding
from graphmend_bot.rewrite.branching import LocalFacts
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import Rejected, dotted

BUILTIN_NAMES = frozenset(dir(builtins)) - {"True", "False", "None"}
NON_TENSOR_MODULES = frozenset({"numpy", "math", "random", "pandas", "scipy", "PIL", "cv2", "jax"})
# Results that are never tensors, whatever they are called on.
NON_TENSOR_METHODS = frozenset({"numpy", "tolist", "item", "astype", "__array__"})
NUMPY_ANNOTATIONS = frozenset({"ndarray", "np.ndarray", "numpy.ndarray", "npt.NDArray", "NDArray"})
PYTHON_TYPES = frozenset({"int", "float", "bool", "complex", "str", "list", "tuple", "dict", "numbers.Number"})
# Operations whose output shape depends on the data: never the same shape in two branches.
DATA_DEPENDENT_SHAPE_CALLS = frozenset({
    "nonzero", "argwhere", "masked_select", "unique", "unique_consecutive", "repeat_interleave",
    "boolean_mask", "masked_scatter", "bincount", "histc",
})


class TypeEvidence:
    """What a function's text shows about which names and expressions are not tensors."""

    def __init__(self, ctx: FixContext, facts: LocalFacts, at: cst.CSTNode) -> None:
        self.ctx = ctx
        self.facts = facts
        self.modules = _non_torch_module_aliases(ctx)
        self.narrowed = _isinstance_narrowed(ctx, at)
        self.classes = _class_names(ctx)
        self.scalars = facts.python_scalars()

    def require_tensors(self, node: cst.BaseExpression, what: str) -> None:
        """Raise Rejected unless `node`, a value torch code will consume, may be a tensor.

        The value as a whole must not be a Python value (a literal, a number, `.item()`); Python
        numbers mixed into arithmetic (`x * 2`, `x / len(y)`) are fine, but no part of it may be
        a numpy array, a type, a non-torch module's value or a name narrowed to a Python type."""
        whole = self.python_value(node)
        if whole is not None:
            raise Rejected(f"{what} is {whole}, not a tensor")
        for leaf in _leaves(node):
            reason = self.foreign(leaf)
            if reason is not None:
                raise Rejected(f"{what} reads `{self.ctx.code_for(leaf).strip()}`: {reason}")

    def python_value(self, node: cst.BaseExpression) -> str | None:
        """Why `node` as a whole is a Python value (never a tensor), else None."""
        if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
            return "a Python literal"
        if isinstance(node, cst.BaseNumber | cst.BaseString | cst.Tuple | cst.List | cst.Dict | cst.Set
                      | cst.Lambda | cst.ListComp | cst.DictComp | cst.SetComp | cst.GeneratorExp):
            return "a Python literal or container"
        if isinstance(node, cst.Name) and node.value in self.scalars:
            return "a Python number"
        if isinstance(node, cst.Name) and node.value in self.narrowed:
            return "narrowed by `isinstance` to a Python type"
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Name) and func.value in BUILTIN_NAMES:
                return f"the Python value `{func.value}(...)` returns"
            if isinstance(func, cst.Attribute) and func.attr.value in NON_TENSOR_METHODS:
                return f"the Python or numpy value `.{func.attr.value}()` returns"
        return self.foreign(node)

    def foreign(self, leaf: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> str | None:
        """Why `leaf` (a name, attribute chain or call) is shown to be a non-torch object
        (numpy, a type, another library's value), else None."""
        if isinstance(leaf, cst.Call):
            func = leaf.func
            callee = (dotted(func) or "").split(".", 1)[0]
            if callee in self.modules:
                return f"a call into `{callee}`, not torch"
            if isinstance(func, cst.Attribute) and func.attr.value in ("numpy", "astype", "__array__"):
                return f"`.{func.attr.value}()` returns a numpy array"
            if isinstance(func, cst.Attribute):
                return self.foreign(func.value, seen)
            return None
        name = dotted(leaf)
        if name is None:
            return None
        root = name.split(".", 1)[0]
        if root in self.modules:
            return f"a `{root}` value, not a tensor"
        if name in BUILTIN_NAMES:
            return "a Python builtin (a type or function), not a tensor"
        if root in self.narrowed:
            return "narrowed by `isinstance` to a Python type"
        if root in self.classes and not self._called(leaf):
            return "a class or one of its attributes (an enum member, a class constant), not a tensor"
        if root in seen or root == "self":
            return None
        key = ("foreign local", root, seen, self.narrowed)
        if key not in self.facts.derived:  # every finding in the function asks about the same locals
            self.facts.derived[key] = self._foreign_local(root, seen)
        return cast(str | None, self.facts.derived[key])

    def _foreign_local(self, root: str, seen: frozenset[str]) -> str | None:
        """Why the local or parameter `root` holds a non-torch object: its name, its annotation
        or a value assigned to it (followed back, except through the names in `seen`)."""
        if root.endswith("_np") or root.startswith("np_"):
            return "named as a numpy array"
        param = self.facts.params.get(root)
        if param is not None and param.annotation is not None:
            annotation = self.ctx.code_for(param.annotation.annotation).strip()
            if annotation.split("[", 1)[0] in NUMPY_ANNOTATIONS:
                return f"annotated `{annotation}`"
        for value in self.facts.values(root):
            if value is None:
                continue
            for inner in [value] if isinstance(value, cst.Name | cst.Attribute | cst.Call) else _leaves(value):
                reason = self.foreign(inner, seen | {root})
                if reason is not None:
                    return f"assigned from {reason}"
        return None


    def _called(self, leaf: cst.BaseExpression) -> bool:
        """`Function.apply(...)`, `Model(...)`: a call through a class may return a tensor."""
        parent = self.ctx.parent(leaf)
        return isinstance(parent, cst.Call) and parent.func is leaf


def changes_shape(node: cst.CSTNode) -> str | None:
    """Why an arm's result can differ in shape from the other arm's by data, else None."""
    found: list[str] = []

    class Visitor(cst.CSTVisitor):
        def visit_Subscript(self, subscript: cst.Subscript) -> None:
            for element in subscript.slice:
                index = element.slice
                if isinstance(index, cst.Index) and not _static_index(index.value):
                    found.append("indexes with a tensor (a mask or index filter changes the shape)")

        def visit_Call(self, call: cst.Call) -> None:
            name = dotted(call.func) or ""
            leaf = call.func.attr.value if isinstance(call.func, cst.Attribute) else name.rsplit(".", 1)[-1]
            if leaf in DATA_DEPENDENT_SHAPE_CALLS:
                found.append(f"`{leaf}` has a data-dependent shape")
            if leaf == "where" and len(call.args) == 1:
                found.append("one-argument `where` has a data-dependent shape")

    node.visit(Visitor())
    return found[0] if found else None


def _static_index(node: cst.BaseExpression) -> bool:
    """An index that selects by position, never by data: integers, `None`, `...`, negatives."""
    if isinstance(node, cst.Integer | cst.Ellipsis):
        return True
    if isinstance(node, cst.Name):
        return node.value == "None"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _static_index(node.expression)
    return False


def _leaves(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """Names, attribute chains and calls an expression reads (outermost only)."""
    found: list[cst.BaseExpression] = []

    class Visitor(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> bool:
            found.append(name)
            return False

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            if dotted(attribute) is not None:
                found.append(attribute)
            else:
                attribute.value.visit(self)  # `(x > 0).all`: the attribute's name is not a value
            return False

        def visit_Call(self, call: cst.Call) -> bool:
            if isinstance(call.func, cst.Name):
                found.append(call)  # `len(y)`: the call is the value, `len` itself is not read
                for arg in call.args:
                    arg.visit(self)
                return False
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in NON_TENSOR_METHODS:
                found.append(call)
            return True

        def visit_Arg(self, arg: cst.Arg) -> bool:
            if arg.keyword is not None:  # `dim=1`: a keyword's name is not a value
                arg.value.visit(self)
                return False
            return True

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    node.visit(Visitor())
    return found


def _non_torch_module_aliases(ctx: FixContext) -> frozenset[str]:
    """Names this module binds to non-torch modules (`import numpy as np` -> "np")."""
    names: set[str] = set()
    for text in ctx.top_level_imports():
        if not text.startswith("import "):
            continue
        module, _, alias = text.removeprefix("import ").partition(" as ")
        if module.split(".", 1)[0] in NON_TENSOR_MODULES:
            names.add(alias or module.split(".", 1)[0])
    return frozenset(names)


CLASS_NAME = re.compile(r"_*[A-Z]\w*[a-z]\w*")


def _class_names(ctx: FixContext) -> frozenset[str]:
    """Names this module binds to classes: its own `class` statements, and CapWords names it
    imports (`from .misc import Perturb`), which PEP 8 reserves for classes."""
    names = set(ctx.top_level_classes)
    for text in ctx.top_level_imports():
        if text.startswith("from "):
            imported = text.rpartition(" import ")[2]
            name = imported.partition(" as ")[2] or imported
            if CLASS_NAME.fullmatch(name.strip()):
                names.add(name.strip())
    return frozenset(names)


def _isinstance_narrowed(ctx: FixContext, at: cst.CSTNode) -> frozenset[str]:
    """Names an enclosing `if isinstance(name, <Python types>):` narrows, where `at` lies in its body."""
    names: set[str] = set()
    child: cst.CSTNode = at
    for ancestor in ctx.ancestors(at):
        if isinstance(ancestor, cst.If) and child is ancestor.body:
            names |= _narrowed_by(ancestor.test)
        if isinstance(ancestor, cst.IfExp) and child is ancestor.body:
            names |= _narrowed_by(ancestor.test)
        child = ancestor
    return frozenset(names)


def _narrowed_by(test: cst.BaseExpression) -> set[str]:
    names: set[str] = set()
    parts = [test.left, test.right] if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) else [test]
    for part in parts:
        if isinstance(part, cst.Call) and dotted(part.func) == "isinstance" and len(part.args) == 2:
            subject, kinds = part.args[0].value, part.args[1].value
            types = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
            if isinstance(subject, cst.Name) and types and all((dotted(t) or "") in PYTHON_TYPES for t in types):
                names.add(subject.value)
    return names


def require_well_typed(ctx: FixContext, facts: LocalFacts, construct: cst.CSTNode, condition: cst.BaseExpression) -> None:
    """The precondition every control-flow rewrite states before writing torch code: the
    condition may be a tensor (not a Python value, not numpy), and nothing the construct reads
    is shown to be a numpy array, a type or another library's value. Raises Rejected."""
    evidence = TypeEvidence(ctx, facts, construct)
    evidence.require_tensors(condition, "the condition")
    for leaf in _leaves(construct):
        reason = evidence.foreign(leaf)
        if reason is not None:
            raise Rejected(f"`{ctx.code_for(leaf).strip()}`: {reason}")


# Return annotations a tensor satisfies: `Tensor`, `torch.Tensor`, `torch.FloatTensor`, `"Tensor"`,
# `Optional[Tensor]`, `Tensor | None`.
TENSOR_ANNOTATION = re.compile(r"(\w+\.)*\w*Tensor")


def require_declared_tensor_return(ctx: FixContext, at: cst.CSTNode) -> None:
    """Raise Rejected when the function holding `at` declares a return type a tensor is not
    (`-> bool`, `-> float`, `-> tuple[...]`): a rewrite that returns `torch.where(...)` or
    `torch.cond(...)` there would change the declared type, whatever the branch returned before.
    A function without a return annotation declares nothing."""
    function = next((node for node in ctx.ancestors(at) if isinstance(node, cst.FunctionDef)), None)
    if function is None or function.returns is None:
        return
    annotation = ctx.code_for(function.returns.annotation).strip()
    if not _tensor_annotation(annotation):
        raise Rejected(f"the function is declared `-> {annotation}`: the rewrite would return a tensor")


def _tensor_annotation(text: str) -> bool:
    text = text.strip().strip("'\"").strip()
    optional = re.fullmatch(r"(?:typing\.)?Optional\[(.*)\]", text)
    if optional:
        text = optional.group(1)
    parts = [part.strip() for part in text.split("|")]
    return all(part == "None" or TENSOR_ANNOTATION.fullmatch(part) for part in parts) and any(part != "None" for part in parts)


def caller_assumptions(finding: Finding) -> tuple[str, ...]:
    """What a fix of `finding` assumes of its function's callers: that the parameters its line
    reads are tensors at every call (the rewrite writes torch code on them; the original also
    ran on a numpy array or a Python number)."""
    return tuple(f"assumes every caller passes `{name}` a tensor, but {why}"
                 for name, why in finding.unproven_parameters)
