"""GM301 tensor-item: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection, array_element_copy, host_copy
from graphmend_bot.rules.rule import Rule

MESSAGE = "`.item()` copies a tensor value to Python"
ARRAY_VALUE = "GB0033"  # "Data dependent operator"

RULE = Rule(
    code="GM301",
    name="tensor-item",
    family="scalar extraction",
    gb_id="GB0124",
    summary="Flags `Tensor.item()` in traced code.",
    why=(
        "`.item()` copies a value to the host. Without `capture_scalar_outputs` TorchDynamo breaks "
        "the graph to run it eagerly."
    ),
    example="""
scale = x.abs().max().item()
y = x / scale
""",
    use_instead="""
scale = x.abs().max().detach()
y = x / scale
""",
    fix_safety=(
        "Keeping the value a tensor is safe when it only feeds tensor arithmetic and type promotion "
        "is unchanged. The tensor kept is detached, as `.item()`'s value was (else gradients would "
        "flow through it), and a view of the input (`x[0, 0]`) is also cloned, as `.item()` copied it "
        "(else an in-place update of `x` before the use would change it). As a divisor (`x / value`, "
        "`x // value`) it is UNSAFE: CUDA divides a tensor by a Python number through its reciprocal "
        "(\"may lose one bit\", BinaryDivTrueKernel.cu) and by the 0-dim tensor kept with a division, "
        "so the last bit may differ there (identical on CPU). A clamp bound carried through Python (`b = max(t.min().item(), 1e-3)` read "
        "only as `x.to(torch.float).clamp_(min=b)`) stays a tensor, "
        "`t.min().detach().to(torch.float).clamp(min=1e-3)`: the same bound, since Python's "
        "`max(v, c)` and `clamp` agree on NaN and rounding to the clamped float32/float64 dtype is "
        "monotone. Otherwise set `torch._dynamo.config.capture_scalar_outputs`."
    ),
    fixes=("scalars.scalars", "scalars.clamp_bounds"),
    # On a NumPy array Dynamo breaks with "Data dependent operator" instead (measured on torch 2.13:
    # tests/test_numpy_conversions.py)
    other_gb_ids=(ARRAY_VALUE,),
    detection=Detection(
        tensor_methods={"item": host_copy(MESSAGE, array_gb_id=ARRAY_VALUE)},
        ndarray_methods={"item": array_element_copy(MESSAGE, ARRAY_VALUE)},
    ),
    advice=(
        "Keep the value of `{code}` a tensor while it only feeds tensor arithmetic; otherwise set "
        "`torch._dynamo.config.capture_scalar_outputs = True`"
    ),
)
