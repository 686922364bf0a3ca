"""GM303 tensor-tolist: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection, array_element_copy, host_copy
from graphmend_bot.rules.rule import Rule

MESSAGE = "`.tolist()` copies tensor values to a Python list"

RULE = Rule(
    code="GM303",
    name="tensor-tolist",
    family="scalar extraction",
    gb_id="GB0109",
    summary="Flags `Tensor.tolist()` in traced code.",
    why="A Python list of a tensor's values cannot exist in a graph, so TorchDynamo breaks.",
    example="reduce_axis = torch.arange(1, x.dim() + 1).tolist()",
    use_instead="reduce_axis = list(range(1, x.dim() + 1))",
    fix_safety=(
        "Safe, and only for a tensor built from Python sizes in the same expression: "
        "`torch.arange(<ints>).tolist()` becomes `list(range(<ints>))` when every argument is "
        "provably a Python int (literals, `len()`, `.ndim`, `.dim()`, `.shape[i]`, `.size(i)`, `+ - *` "
        "of those), and `torch.tensor(x.shape).tolist()` becomes `list(x.shape)`: the same list of "
        "ints, with no copy from a tensor (measured on torch 2.13: the `.tolist()` forms break with "
        "a data-dependent operator, the list forms compile to one graph). Unsafe: a sorted table "
        "searched through its list, `min(bisect.bisect(T.tolist(), v), len(T) - 1)` (or a bare "
        "`bisect`/`bisect_right`/`bisect_left` of the standard library), becomes "
        "`torch.searchsorted(T, v, right=True).clamp(max=len(T) - 1)` when the index is assigned to a "
        "name or `self` attribute read only as an index of `T`, in an `if` comparison or with "
        "`+=`/`-=` of an integer; assuming `T` is sorted and `v` has its dtype (searchsorted "
        "promotes where bisect compared in `v`'s dtype). Any other `.tolist()` reads "
        "tensor data: keep the values in a tensor, or move the code that needs a Python list out of "
        "the compiled region."
    ),
    fixes=("scalars.size_lists", "scalars.bisect_search"),
    # the same break on an element of a NumPy array (a tensor under Dynamo), measured on torch 2.13
    detection=Detection(
        tensor_methods={"tolist": host_copy(MESSAGE)},
        ndarray_methods={"tolist": array_element_copy(MESSAGE, "GB0109")},
    ),
    advice=(
        "`{code}` copies every value to Python: keep the values in a tensor, or move this code out of "
        "the compiled region"
    ),
)
