"""GM607 parameter-in-traced-code: its documentation, in one place with how it is detected."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind

# torch.nn classes measured on torch 2.13 to break when built in traced code, because their
# constructors make `nn.Parameter`s (GB0264); layers without parameters (`nn.ReLU`, `nn.Dropout`,
# `nn.LayerNorm(..., elementwise_affine=False)`) compile.
_PARAMETRIZED_LAYERS = frozenset({"Linear", "Conv1d", "Conv2d", "Conv3d", "Embedding", "LayerNorm"})
_PARAMETER = frozenset({"nn.Parameter", "nn.parameter.Parameter"})


def _parameter(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    checker.report(rule, call, "`nn.Parameter(...)` in traced code: Dynamo cannot create parameters", TENSOR)
    return TENSOR


def _layer(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> None:
    if any(kw.arg == "elementwise_affine" for kw in call.keywords):
        return None  # LayerNorm without affine parameters compiles (when the flag is False)
    checker.report(rule, call, f"`torch.{name}(...)` creates parameters: Dynamo cannot build it in traced code", TENSOR)
    return None


RULE = Rule(
    code="GM607",
    name="parameter-in-traced-code",
    family="not traceable",
    gb_id="GB0264",
    summary=(
        "Flags `nn.Parameter(...)` and torch.nn layers that create parameters (`nn.Linear`, "
        "`nn.Conv1d/2d/3d`, `nn.Embedding`, `nn.LayerNorm`) built inside traced code."
    ),
    why=(
        "TorchDynamo does not support the `torch.nn.Parameter()` constructor (measured on torch "
        "2.13: GB0264 at the line that builds the parameter or the layer). Building an nn.Module "
        "without parameters in traced code is fine."
    ),
    example="proj = nn.Linear(4, 4)\ny = proj(x)",
    use_instead="y = x @ weight.T  # the layer built once in __init__, or its weight passed in",
    fix_safety=(
        "No automatic fix: build the layer once (in `__init__`, or outside the compiled function) "
        "and reuse it; a fresh layer per call also means fresh random weights."
    ),
    detection=Detection(
        torch_functions={
            **dict.fromkeys(_PARAMETER, _parameter),
            **{f"nn.{layer}": _layer for layer in _PARAMETRIZED_LAYERS},
        },
    ),
    advice=(
        "`{code}` creates parameters inside the compiled region: build it once in `__init__` (or "
        "outside the compiled function) and reuse it"
    ),
)
