"""GM621 untraceable-tensor-method: its documentation, in one place with how it is detected.

Each method with the id Dynamo reported for it, measured on torch 2.13 as a call on a tensor
between two tensor operations (tests/coverage_probes/gb0045_*, gb0046_*, gb0107_*, gb0108_*, gb0126_*,
gb0127_*). `retain_grad()` breaks on a tensor that requires grad (GB0108) and raises in eager on one
that does not, so wherever it runs without raising it breaks. Measured to need gradients, so
absent here: reading `grad_fn` (GB0104), which a tensor without them answers with `None` (rule grad-fn-read
reports it, naming the grad mode).

Breaking only in some forms, each as Dynamo's handler tests it (tests/coverage_probes/gb0110_*,
gb0117_*, gb0128_*): `set_` with more than one positional argument (a storage with offset, size and
stride: GB0128; `set_(source)` traces), `uniform_` given the keyword `from` (only through
`**{"from": a}`, `from` being a Python keyword: GB0110), and `share_memory_()`, which breaks with
GB0117 "Unhandled args for method" on torch 2.13 (its handler's signature does not take Dynamo's
call, so its own GB4197 is never raised).
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
SET_STORAGE = "GB0128"  # "Unsupported Tensor.set_() call", with more than one positional argument
UNIFORM_FROM = "GB0110"  # "Tensor.uniform_ op called with `from` keyword"
SHARE_MEMORY = "GB0117"  # "Unhandled args for method": share_memory_'s handler does not take the call


def _method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind | None:
    checker.report(rule, call, f"Dynamo cannot trace `Tensor.{method}()`", receiver, gb_id=TENSOR_METHODS[method])
    return NOT_TENSOR if method == "is_inference" else None


def _set_storage(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    if len(call.args) > 1 and not any(isinstance(arg, ast.Starred) for arg in call.args):
        checker.report(rule, call, "Dynamo cannot trace `Tensor.set_()` with a storage offset, size or stride",
                       receiver, gb_id=SET_STORAGE)


def _uniform_from(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    """`w.uniform_(**{"from": -a, "to": a})`: the only way to name `from`; `uniform_(-a, a)` traces."""
    unpacked = [k.value for k in call.keywords if k.arg is None and isinstance(k.value, ast.Dict)]
    if any(isinstance(key, ast.Constant) and key.value == "from" for d in unpacked for key in d.keys):
        checker.report(rule, call, "Dynamo cannot trace `Tensor.uniform_()` given `from` by keyword", receiver,
                       gb_id=UNIFORM_FROM)


def _share_memory(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    checker.report(rule, call, "Dynamo cannot trace `Tensor.share_memory_()`", receiver, gb_id=SHARE_MEMORY)


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
    other_gb_ids=(INFERENCE_MODE_ENABLED, *sorted(set(TENSOR_METHODS.values()) - {"GB0045"}),
                  SET_STORAGE, UNIFORM_FROM, SHARE_MEMORY),
    summary=(
        "Flags tensor methods TorchDynamo does not trace, in traced code: `is_inference()`, "
        "`random_()`, `retain_grad()`, `resize_()`, `resize_as_()`, `share_memory_()`, `set_()` with a "
        "storage offset, size or stride, `uniform_(**{\"from\": a})`, and `torch.is_inference_mode_enabled()`."
    ),
    why=(
        "Dynamo ends the graph at each of these and runs it eagerly (measured on torch 2.13, each "
        "finding with its own id): it does not model inference-mode state (GB0045, GB0046), "
        "`random_` (GB0107), keeping the gradient of a non-leaf (`retain_grad`, GB0108), or resizing "
        "a tensor's storage in place (GB0126, GB0127, `set_` with more than one argument GB0128), "
        "`uniform_` given `from` by keyword (GB0110), or `share_memory_()` (GB0117)."
    ),
    example="if x.is_inference():\n    x = x.clone()",
    use_instead="# decide once, outside the compiled function, and pass a Python flag\nx = x.clone()",
    fix_safety=(
        "No automatic fix. Decide inference mode outside the compiled function; read gradients of "
        "intermediates with a hook outside it or from a forward that returns them; draw with "
        "`torch.randint(...)` instead of `random_()`; build a tensor of the new size "
        "(`torch.empty(size)`, `new_empty`) instead of resizing in place or re-pointing its storage; "
        "pass `uniform_`'s bounds by position; share memory before the compiled call."
    ),
    detection=Detection(
        tensor_methods={**dict.fromkeys(TENSOR_METHODS, _method), "set_": _set_storage, "uniform_": _uniform_from,
                        "share_memory_": _share_memory},
        torch_functions={"is_inference_mode_enabled": _inference_mode_enabled},
    ),
    advice=("Dynamo does not trace `{code}`: decide it outside the compiled function (inference mode), "
            "or use an out-of-place form it traces (`torch.randint`, a new tensor of the new size)"),
)
