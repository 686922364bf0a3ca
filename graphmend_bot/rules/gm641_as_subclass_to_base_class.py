"""GM641 as-subclass-to-base-class: its documentation, in one place with how it is detected.

Measured on torch 2.13.0 (tests/coverage_probes/gb0001_as_subclass_to_tensor.py): Dynamo traces
`t.as_subclass(cls)` only when `cls` is a strict subclass of `torch.Tensor` it reads from a source
(variables/tensor.py `method_as_subclass`: a `TensorSubclassVariable`). `torch.Tensor` itself, the
usual way to unwrap a tensor subclass back to a plain tensor (`self.as_subclass(torch.Tensor)`,
`Tensor.as_subclass(self, Tensor)`), and `nn.Parameter` break with GB0001, on a plain tensor and on
a subclass instance alike (there the break is inside `Tensor.__torch_function__`, called from this
line). `t.as_subclass(MySubclass)` traces; `t.as_subclass(type(other))` is not judged (the class is
a runtime value). A receiver of unknown kind is taken for a tensor (only torch.Tensor has the method:
known_names.TENSOR_METHODS): pina's `self.as_subclass(Tensor)` in a tensor subclass's property.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind

# The classes Dynamo's builder does not model as a tensor subclass (builder.py: `torch.Tensor`
# itself is excluded; `nn.Parameter` and `nn.Buffer` get their own variable).
_BASE_CLASSES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter",
                           "torch.nn.Buffer", "torch.nn.parameter.Buffer"})  # fmt: skip


def _class_argument(call: ast.Call, position: int) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((keyword.value for keyword in call.keywords if keyword.arg == "cls"), None)


def _report_base_class(
    rule: Rule, checker: Checker, call: ast.Call, target: ast.expr | None, deps: Kind
) -> None:
    resolved = checker.resolve(target) if target is not None else None
    if resolved in _BASE_CLASSES:
        leaf = resolved.rsplit(".", 1)[-1]
        checker.report(
            rule,
            call,
            f"`as_subclass({leaf})` breaks the graph: Dynamo converts a tensor only to a "
            "strict subclass of `torch.Tensor`",
            deps,
        )


def _method(
    rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]
) -> None:
    _report_base_class(rule, checker, call, _class_argument(call, 0), receiver)


def _unbound(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """`torch.Tensor.as_subclass(t, torch.Tensor)`: the class is the second argument; the result is
    a tensor (a capitalised torch name is otherwise taken for a class building an object)."""
    _report_base_class(rule, checker, call, _class_argument(call, 1), TENSOR)
    return TENSOR


RULE = Rule(
    code="GM641",
    name="as-subclass-to-base-class",
    family="not traceable",
    gb_id="GB0001",
    summary=(
        "Flags `t.as_subclass(torch.Tensor)` and `torch.Tensor.as_subclass(t, torch.Tensor)` (or to "
        "`nn.Parameter`) in traced code: unwrapping a tensor subclass to a plain tensor."
    ),
    why=(
        "TorchDynamo models `as_subclass(cls)` only for `cls` a strict subclass of `torch.Tensor` "
        "(without `__torch_dispatch__`) read from a global or an attribute: it then wraps the traced "
        "tensor in that subclass. `torch.Tensor` itself and `nn.Parameter` are not such classes, so "
        "the call breaks the graph with GB0001 (measured on torch 2.13), on a plain tensor and on a "
        "subclass instance alike. Libraries with a tensor subclass (poses, metadata tensors) often "
        "unwrap this way in a `tensor()` or `as_tensor()` method; a method call on the subclass "
        "instance that reaches such a break can fail to resume as well."
    ),
    example="def forward(self, x):\n    plain = x.as_subclass(torch.Tensor)\n    return plain * 2",
    use_instead=(
        "def forward(self, x):\n"
        "    # Unwrap before calling the compiled function, or keep the subclass: Dynamo traces\n"
        "    # operations on a tensor subclass through its __torch_function__.\n"
        "    return x * 2"
    ),
    fix_safety=(
        "No automatic fix: the subclass decides what every later operation returns (its "
        "`__torch_function__` re-wraps results), so dropping or moving the unwrap changes types. "
        "Unwrap outside the compiled region, or let the subclass flow through."
    ),
    detection=Detection(
        tensor_methods={"as_subclass": _method}, torch_functions={"Tensor.as_subclass": _unbound}
    ),
    advice=(
        "`{code}` unwraps to a class Dynamo cannot convert to: unwrap before the compiled call, or keep "
        "the subclass (Dynamo traces it through `__torch_function__`)"
    ),
)
