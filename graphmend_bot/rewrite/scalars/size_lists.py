"""`.tolist()` of a tensor built from Python sizes -> the Python list it came from.

    reduce_axis: list[int] = torch.arange(2, len(input.shape)).tolist()    # MONAI's DiceLoss
    reduce_axis: list[int] = list(range(2, len(input.shape)))

    sizes = torch.tensor(x.shape).tolist()
    sizes = list(x.shape)

Measured on torch 2.13: the `.tolist()` forms break the graph (aten._local_scalar_dense, "Data
dependent operator") and the list forms compile to one graph. Both give a list of Python ints
with the same values, so the fix is safe when:
- `torch.arange` gets one to three positional arguments that are provably Python ints (int
  literals, `len(...)`, `x.ndim`, `x.dim()`, `x.shape[i]`, `x.size(i)`, and `+ - *` of those) and
  no keyword but `device` (a list has no device). A float argument would make `arange` float.
- `torch.tensor` / `torch.as_tensor` gets `x.shape` or `x.size()` alone: the shape's entries.
Anything else (a tensor of data, a name whose value is not visible here) keeps GM303's advice.
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.findings import Edit, Finding, Fix
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import dotted

SIZE_ATTRIBUTES = frozenset({"ndim"})
SIZE_METHODS = frozenset({"dim", "size", "numel"})


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    call = ctx.node_at(finding)
    if not isinstance(call, cst.Call) or call.args:
        return None
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "tolist" or not isinstance(func.value, cst.Call):
        return None
    replacement = _python_list(ctx, func.value)
    if replacement is None:
        return None
    return Fix.of(
        f"Use the Python list the tensor was built from (`{replacement}`): no copy from a tensor",
        (Edit(replacement, *ctx.span(call)),),
    )


def _python_list(ctx: FixContext, built: cst.Call) -> str | None:
    name = dotted(built.func)
    if name == "torch.arange":
        positional = [a for a in built.args if a.keyword is None]
        keywords = [a for a in built.args if a.keyword is not None]
        if any(a.star for a in built.args) or not 1 <= len(positional) <= 3:
            return None
        if any(a.keyword is not None and a.keyword.value != "device" for a in keywords):
            return None
        if not all(is_python_int(a.value) for a in positional):
            return None
        return f"list(range({', '.join(ctx.code_for(a.value).strip() for a in positional)}))"
    if name in ("torch.tensor", "torch.as_tensor"):
        if len(built.args) != 1 or built.args[0].keyword is not None or built.args[0].star:
            return None
        value = built.args[0].value
        if _is_shape(value):
            return f"list({ctx.code_for(value).strip()})"
    return None


def _is_shape(node: cst.BaseExpression) -> bool:
    """`x.shape` or `x.size()`."""
    if isinstance(node, cst.Attribute):
        return node.attr.value == "shape"
    return (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "size"
    )


def is_python_int(node: cst.BaseExpression) -> bool:
    """An expression whose value is a Python int whatever the tensors it reads (sizes, counts)."""
    if isinstance(node, cst.Integer):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        return is_python_int(node.expression)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add | cst.Subtract | cst.Multiply):
        return is_python_int(node.left) and is_python_int(node.right)
    if isinstance(node, cst.Attribute):
        return node.attr.value in SIZE_ATTRIBUTES
    if isinstance(node, cst.Subscript):
        # x.shape[i] with a plain index (a slice would be a tuple)
        return (
            isinstance(node.value, cst.Attribute)
            and node.value.attr.value == "shape"
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
        )
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value == "len":
            return len(node.args) == 1
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in SIZE_METHODS:
            # x.size() without an argument is a torch.Size, not an int
            return node.func.attr.value != "size" or len(node.args) == 1
    return False
