"""Storage a rewrite stops sharing: where the original handed on a tensor itself, the rewrite a copy.

`.item()` copies a value; the 0-dim tensor kept instead may be a view of its root (`x[0, 0]`).
A branch that selects `x` itself (`y = x if c else x * 2`) gives `y` the storage of `x`;
`torch.where` gives a new tensor. Either way an in-place update afterwards (`x.mul_(2)`,
`y.add_(1)`, `y += 1`, `y[0] = 0`, `out=`, `inplace=True`) is seen through both names in one
program and through one in the other. The scalar rewrite copies the view (`.clone()`); a
selection states the assumption when its function updates anything in place.
"""

from __future__ import annotations

import libcst as cst

# Methods whose result may share the input's storage (a view, or the input itself).
VIEWS = frozenset({
    "detach", "flatten", "reshape", "view", "view_as", "squeeze", "unsqueeze", "contiguous", "t", "transpose",
    "permute", "ravel", "expand", "expand_as", "narrow", "select", "unflatten", "movedim", "swapaxes", "as_strided",
    "unbind", "split", "chunk", "real", "imag", "T", "mT", "H", "mH", "data",
})


def shares_storage(expression: cst.BaseExpression) -> bool:
    """`expression` may be a tensor a name already holds, or a view of one: a name or attribute
    (`x`, `self.cache`), indexed or viewed (`x[0, 0]`, `x.flatten()[0]`, `x.T`) with no step that
    computes a new tensor."""
    node = expression
    while True:
        if isinstance(node, cst.Name):
            return True
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Attribute):
            node = node.value  # `self.cache`, `x.T`: an attribute read is a stored object or a view
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in VIEWS:
            node = node.func.value
        else:
            return False


def in_place_updates(function: cst.FunctionDef, python_names: frozenset[str] = frozenset()) -> list[cst.CSTNode]:
    """The parts of `function` that may update a tensor in place, in source order: a `*_` method
    call (`add_`, `copy_`), an augmented assignment to a name not known to hold a Python number,
    of no tuple, list or string (`y += 1` is in place on a tensor), an assignment to an item or slice, an `out=` argument,
    `inplace=True`."""
    found: list[cst.CSTNode] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and _in_place_name(func.attr.value):
                found.append(node)
            for arg in node.args:
                keyword = arg.keyword.value if arg.keyword is not None else None
                if keyword == "out" or (keyword == "inplace" and not (
                        isinstance(arg.value, cst.Name) and arg.value.value == "False")):
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


def _in_place_name(name: str) -> bool:
    """`add_`, `index_put_`: PyTorch's in-place methods end in one underscore (not `__iadd__`, `_private`)."""
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_")
