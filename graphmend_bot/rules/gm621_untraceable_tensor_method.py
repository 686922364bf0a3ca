"""GM621 untraceable-tensor-method: its documentation, in one place with how it is detected.

Each method with the id Dynamo reported for it, measured on torch 2.13 as a call on a tensor
between two tensor operations (tests/coverage_probes/gb0045_*, gb0046_*, gb0107_*, gb0108_*, gb0126_*,
gb0127_*). `retain_grad()` breaks on a tensor that requires grad (GB0108) and raises in eager on one
that does not, so wherever it runs without raising it breaks. Measured to need gradients, so
absent: reading `grad_fn` (GB0104), which a tensor without them answers with `None`.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

TENSOR_METHODS = {
    "is_inference": "GB0045",  # "Encountered tensor.is_inference() during tracing"
    "random_": "GB0107",  # "Tensor.random_ op"
    "retain_grad": "GB0108",  # "Tensor.retain_grad() with AOTDispatcher"
    "resize_": "GB0126",  # "Unsupported Tensor.resize_() call"
    "resize_as_": "GB0127",  # "Unsupported Tensor.resize_as_() call"
}
INFERENCE_MODE_ENABLED = "GB0046"  # "Encountered torch.is_inference_mode_enabled during tracing"


def _method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind | None:
    checker.report(rule, call, f"Dynamo cannot trace `Tensor.{method}()`", receiver, gb_id=TENSOR_METHODS[method])
    return NOT_TENSOR if method == "is_inference" else None


def _inference_mode_enabled(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    checker.report(
        rule, call, "Dynamo cannot trace `torch.is_inference_mode_enabled()`", TENSOR, gb_id=INFERENCE_MODE_ENABLED,
    )
    return NOT_TENSOR


RULE = Rule(
    code="GM621",
    name="untraceable-tensor-method",
    family="not traceable",
    gb_id="GB0045",
    other_gb_ids=(INFERENCE_MODE_ENABLED, *sorted(set(TENSOR_METHODS.values()) - {"GB0045"})),
    summary=(
        "Flags tensor methods TorchDynamo does not trace, in traced code: `is_inference()`, "
        "`random_()`, `retain_grad()`, `resize_()`, `resize_as_()`, and `torch.is_inference_mode_enabled()`."
    ),
    why=(
        "Dynamo ends the graph at each of these and runs it eagerly (measured on torch 2.13, each "
        "finding with its own id): it does not model inference-mode state (GB0045, GB0046), "
        "`random_` (GB0107), keeping the gradient of a non-leaf (`retain_grad`, GB0108), or resizing "
        "a tensor's storage in place (GB0126, GB0127)."
    ),
    example="if x.is_inference():\n    x = x.clone()",
    use_instead="# decide once, outside the compiled function, and pass a Python flag\nx = x.clone()",
    fix_safety=(
        "No automatic fix. Decide inference mode outside the compiled function; read gradients of "
        "intermediates with a hook outside it or from a forward that returns them; draw with "
        "`torch.randint(...)` instead of `random_()`; build a tensor of the new size "
        "(`torch.empty(size)`, `new_empty`) instead of resizing in place."
    ),
    detection=Detection(
        tensor_methods=dict.fromkeys(TENSOR_METHODS, _method),
        torch_functions={"is_inference_mode_enabled": _inference_mode_enabled},
    ),
    advice=("Dynamo does not trace `{code}`: decide it outside the compiled function (inference mode), "
            "or use an out-of-place form it traces (`torch.randint`, a new tensor of the new size)"),
)
