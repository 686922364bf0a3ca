"""GM673 in-place-view-on-input: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0148_*, gb0072_*): an in-place view method
(`unsqueeze_`, `squeeze_`, `transpose_`, `t_`, `swapdims_`, `swapaxes_`, `as_strided_`) on a graph
input (a tensor with a source: a parameter of the compiled frame, a buffer or parameter read from
`self`) breaks at its call: GB0148 for `x.unsqueeze_(0)`, whose attribute Dynamo turns into a
delayed break, and GB0072 for `torch.Tensor.unsqueeze_(x, 0)`. On an intermediate it traces. Which
parameter of an inlined helper, or of a `forward` run inside a parent module's, holds a graph input
is not tracked: only `self.NAME` and the parameters of a function that is itself compiled
(`@torch.compile`), as they came in, are judged. (`resize_`, `resize_as_` and `set_` carry the same
tag and break the same way on an input; GM621 reports them, by their own ids.)
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind

DELAYED_CALL = "GB0148"  # "Unsupported function call (delayed)"
THROUGH_TENSOR_CLASS = "GB0072"  # "Inplace op on input tensor"
IN_PLACE_VIEWS = ("unsqueeze_", "squeeze_", "transpose_", "t_", "swapdims_", "swapaxes_", "as_strided_")


def _graph_input(checker: Checker, node: ast.expr) -> bool:
    """`self.NAME` (module state has a source), or a parameter of a compiled function as it came in."""
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id == "self"
    return checker.compiled_input(node)


def _view_method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    if isinstance(call.func, ast.Attribute) and _graph_input(checker, call.func.value):
        checker.report(rule, call, f"`.{method}()` on an input of the graph breaks it", receiver, gb_id=DELAYED_CALL)


def _through_tensor_class(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> None:
    if call.args and args and _graph_input(checker, call.args[0]):
        checker.report(rule, call, f"`torch.{name}()` on an input of the graph breaks it", args[0],
                       gb_id=THROUGH_TENSOR_CLASS)


RULE = Rule(
    code="GM673",
    name="in-place-view-on-input",
    family="not traceable",
    gb_id=DELAYED_CALL,
    other_gb_ids=(THROUGH_TENSOR_CLASS,),
    summary=(
        "Flags in-place view methods (`unsqueeze_`, `squeeze_`, `transpose_`, `t_`, `swapdims_`, "
        "`swapaxes_`, `as_strided_`) on an input of the graph: a buffer or parameter read from `self`, "
        "or a parameter of a `@torch.compile` function as it came in."
    ),
    why=(
        "Changing an input's shape or strides in place is a metadata mutation Dynamo does not carry "
        "across its graph's inputs: it ends the graph at the call and runs it eagerly (measured on "
        "torch 2.13: GB0148, GB0072 through `torch.Tensor.unsqueeze_(x, 0)`). The same method on a "
        "tensor computed inside the compiled region traces."
    ),
    example=(
        "class Biased(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer(\"bias\", torch.zeros(3))\n\n    def forward(self, x):\n"
        "        self.bias.unsqueeze_(0)\n        return x + self.bias"
    ),
    use_instead=(
        "class Biased(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer(\"bias\", torch.zeros(3))\n\n    def forward(self, x):\n"
        "        bias = self.bias.unsqueeze(0)  # a view: the buffer keeps its shape\n        return x + bias"
    ),
    fix_safety=(
        "No automatic fix: the out-of-place view (`x.unsqueeze(0)`) leaves the input's shape as it "
        "was, which a caller holding the tensor may have relied on. Bind the view to a new name, and "
        "reshape the stored tensor once outside the compiled function if it must change."
    ),
    detection=Detection(
        tensor_methods=dict.fromkeys(IN_PLACE_VIEWS, _view_method),
        torch_functions={f"Tensor.{method}": _through_tensor_class for method in IN_PLACE_VIEWS},
    ),
    advice=("Dynamo cannot change an input's shape in place in `{code}`: use the out-of-place view "
            "(`unsqueeze`, `t`, `transpose`) and bind it to a new name"),
)
