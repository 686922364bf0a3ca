"""Storage a rewrite stops sharing: where the original handed on a tensor itself, the rewrite a copy.

`.item()` copies a value; the 0-dim tensor kept instead may be a view of its root (`x[0, 0]`).
A branch that selects `x` itself (`y = x if c else x * 2`) gives `y` the storage of `x`;
`torch.where` gives a new tensor. Either way an in-place update afterwards (`x.mul_(2)`,
`y.add_(1)`, `y += 1`, `y[0] = 0`, `out=`, `inplace=True`) is seen through both names in one
program and through one in the other. The scalar rewrite copies the view (`.clone()`); a
selection states the assumption when its function updates anything in place.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from graphmend_bot.rewrite.purity import dotted

# Methods whose result may share the input's storage (a view, or the input itself).
VIEWS = frozenset({
    "detach", "flatten", "reshape", "view", "view_as", "squeeze", "unsqueeze", "contiguous", "t", "transpose",
    "permute", "ravel", "expand", "expand_as", "narrow", "select", "unflatten", "movedim", "swapaxes", "as_strided",
    "unbind", "split", "chunk", "real", "imag", "T", "mT", "H", "mH", "data", "diagonal", "adjoint",
    # the input itself when its conjugate or negative bit is clear (always, for a real tensor)
    "conj", "resolve_conj", "resolve_neg", "positive",
})


def shares_storage(expression: cst.BaseExpression) -> bool:
    """`expression` may be a tensor a name already holds, or a view of one: a name or attribute
    (`x`, `self.cache`), indexed or viewed (`x[0, 0]`, `x.flatten()[0]`, `x.T`) with no step that
    computes a new tensor."""
    return storage_root(expression) is not None


def storage_root(expression: cst.BaseExpression) -> str | None:
    """The name whose tensor `expression` may be or view (`x` of `x[0].T`), else None."""
    node = expression
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Attribute):
            node = node.value  # `self.cache`, `x.T`: an attribute read is a stored object or a view
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in VIEWS:
            node = node.func.value
        else:
            return None


def in_place_updates(function: cst.FunctionDef, python_names: frozenset[str] = frozenset()) -> list[cst.CSTNode]:
    """The parts of `function` that may update a tensor in place, in source order: a `*_` method
    call (`add_`, `copy_`), an augmented assignment to a name not known to hold a Python number,
    of no tuple, list or string (`y += 1` is in place on a tensor), an assignment to an item or slice, an `out=` argument,
    `inplace=True`."""
    found: list[cst.CSTNode] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if (isinstance(func, cst.Attribute) and in_place_name(func.attr.value)) or torch_call_writes(node):
                found.append(node)
                return
            for arg in node.args:
                keyword = arg.keyword.value if arg.keyword is not None else None
                if keyword == "out" or (keyword == "inplace" and not _plainly(arg.value, "False")):
                    found.append(node)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.value, cst.Tuple | cst.List | cst.BaseString):
                return  # `outputs += (attn,)`: a container growing, not a tensor
            if not (isinstance(node.target, cst.Name) and node.target.value in python_names):
                found.append(node)

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if isinstance(node.target, cst.Subscript):
                found.append(node)

    function.body.visit(Finder())
    return found


class HandingSites:
    """One walk of a function: its calls, and its bindings that may hand a tensor on under another
    name (`z = y`, `a, b = y, x`, `for t in [y]`, `[f(t) for t in ys]`, `w := y`). Built once per
    function and asked about each selection in it (a walk per selection was quadratic)."""

    def __init__(self, function: cst.FunctionDef) -> None:
        self.calls: list[cst.Call] = []
        self.bindings: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        calls, bindings = self.calls, self.bindings

        class Collector(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                calls.append(node)

            def visit_Assign(self, node: cst.Assign) -> None:
                bindings.extend((target.target, node.value) for target in node.targets)

            def visit_For(self, node: cst.For) -> None:
                bindings.append((node.target, node.iter))

            def visit_CompFor(self, node: cst.CompFor) -> None:
                bindings.append((node.target, node.iter))

            def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
                bindings.append((node.target, node.value))

        function.body.visit(Collector())

    def calls_handed(self, names: set[str], pure: Callable[[cst.Call], bool]) -> list[cst.Call]:
        """The calls given one of `names`' tensors (or a view of it, or an alias) as an argument,
        which `pure` does not prove leave it alone: a user function or submodule may update it in place."""
        names = self._with_aliases(names)
        return [call for call in self.calls if any(_hands(arg.value, names) for arg in call.args) and not pure(call)]

    def _with_aliases(self, names: set[str]) -> set[str]:
        """`names` and the names bound to their tensors (a plain name hands on the same tensor)."""
        names = set(names)
        while True:
            grown = names | {name.value for target, value in self.bindings if _hands(value, names)
                             for name in target_names(target)}
            if grown == names:
                return names
            names = grown


def target_names(target: cst.BaseExpression) -> list[cst.Name]:
    """The names an assignment target binds (`y`, `a, [b, c]`); none for attributes and items."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, cst.Tuple | cst.List):
        return [name for element in target.elements for name in target_names(element.value)]
    return []


def _hands(value: cst.BaseExpression, names: set[str]) -> bool:
    """`y`, `y[0]`, `[y, z]`, `(y,)`, `{y}`, `{'h': y}`, `w := y`: the argument passes on the tensor
    of one of `names` (`**{'t': y}` is a dict argument)."""
    if isinstance(value, cst.List | cst.Tuple | cst.Set):
        return any(_hands(element.value, names) for element in value.elements)
    if isinstance(value, cst.Dict):
        return any(_hands(element.value, names) for element in value.elements)
    if isinstance(value, cst.NamedExpr):
        return _hands(value.value, names)
    return storage_root(value) in names


def in_place_name(name: str) -> bool:
    """`add_`, `index_put_`: PyTorch's in-place methods end in one underscore (not `__iadd__`, `_private`)."""
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_")


# torch.nn.functional's flags that make a call write into the tensor it is given, with their
# position (`F.relu(x, True)`); tests/rewrite/test_selection_copies.py checks them against torch.
FUNCTIONAL_WRITE_FLAGS: dict[str, tuple[str, int]] = {
    **dict.fromkeys(("relu", "relu6", "selu", "silu", "mish", "hardswish", "hardsigmoid"), ("inplace", 1)),
    **dict.fromkeys(("elu", "celu", "leaky_relu"), ("inplace", 2)),
    **dict.fromkeys(("hardtanh", "threshold", "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d",
                     "dropout2d", "dropout3d"), ("inplace", 3)),
    "rrelu": ("inplace", 4),
    "normalize": ("out", 4),
}
FUNCTIONAL_NAMESPACES = ("F.", "nn.functional.", "torch.nn.functional.")


def torch_call_writes(call: cst.Call) -> bool:
    """A torch function call that may write into a tensor it is given: a part of its name ending in
    one `_` (`torch.relu_`, `torch._foreach_add_`, `torch.ops.aten.add_.Tensor`), an `out=` not
    plainly None, an `inplace` flag not plainly False, by keyword or by position (`F.relu(x, True)`)."""
    name = dotted(call.func) or ""
    if not name.startswith(TORCH_NAMESPACES):
        return False
    if any(part.endswith("_") and not part.endswith("__") for part in name.split(".")):
        return True
    flag, position = FUNCTIONAL_WRITE_FLAGS.get(name.rsplit(".", 1)[-1], ("", -1)) \
        if name.startswith(FUNCTIONAL_NAMESPACES) else ("", -1)
    for index, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "out" and not _plainly(arg.value, "None"):
            return True
        if keyword == "inplace" and not _plainly(arg.value, "False"):
            return True
        if flag and arg.star:
            return True  # `F.relu(*args)`: the flag may be among them
        if keyword is None and index == position and not _plainly(arg.value, "None" if flag == "out" else "False"):
            return True
    return False


def _plainly(value: cst.BaseExpression, constant: str) -> bool:
    return isinstance(value, cst.Name) and value.value == constant


# Methods that hand back the tensor itself when it already has the dtype or device asked for.
SAME_OBJECT = frozenset({
    "float", "double", "half", "bfloat16", "int", "long", "short", "bool", "byte", "char", "to", "cpu", "cuda",
    "type", "type_as",
})
# torch functions whose result may be their first argument or a view of it (`F.dropout` in eval).
PASSING_FUNCTIONS = VIEWS | {
    "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "atleast_1d",
    "atleast_2d", "atleast_3d", "broadcast_to",
}
TORCH_NAMESPACES = ("torch.", "F.", "nn.functional.")


def may_return_input(expression: cst.BaseExpression, fresh: Callable[[cst.Call], bool]) -> bool:
    """`expression` may be a tensor a name already holds, a view of one, or one handed back unchanged:
    `x.float()` on a float `x`, `F.dropout(x)` in eval, a call `fresh` does not prove computes a new
    tensor (`self.skip(x)` with an `nn.Identity`, a user function returning its argument)."""
    node = expression
    while True:
        if isinstance(node, cst.Name):
            return True
        if isinstance(node, cst.Subscript | cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Call):
            func = node.func
            name = dotted(func) or ""
            if name.startswith(TORCH_NAMESPACES) and name.rsplit(".", 1)[-1] in PASSING_FUNCTIONS:
                first = next((arg.value for arg in node.args if arg.keyword is None and not arg.star), None)
                if first is None:
                    return False
                node = first
            elif isinstance(func, cst.Attribute) and func.attr.value in VIEWS | SAME_OBJECT and not name.startswith(TORCH_NAMESPACES):
                node = func.value
            else:
                return not fresh(node)
        else:
            return False

