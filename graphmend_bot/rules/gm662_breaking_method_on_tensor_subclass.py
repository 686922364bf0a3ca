"""GM662 breaking-method-on-tensor-subclass: its documentation, in one place with how it is detected.

The traversal asks at each `x.method()` whose receiver's class an `isinstance(x, Q)` arm or an
annotation proves; the scope solver keeps the finding when the call reaches only plain methods of
tensor subclasses and one breaks (analysis/subclass_methods.py, measured there).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _method_of_subclass_instance(rule: Rule, checker: Checker, call: ast.Call, method: str) -> None:
    checker.report_if_subclass_method_breaks(
        rule, call, f"`.{method}()` breaks inside, and Dynamo cannot rebuild a method bound to a tensor subclass's "
        "instance to run the call eagerly"
    )


RULE = Rule(
    code="GM662",
    name="breaking-method-on-tensor-subclass",
    family="not traceable",
    gb_id="GB0092",
    summary=(
        "Flags `x.method()` on an instance of a `torch.Tensor` subclass (`rotation.tensor()` on "
        "`rotation: Rotation`) when the method, or anything it calls, has a graph break."
    ),
    why=(
        "TorchDynamo holds a tensor subclass's instance as a tensor with a `__torch_function__` override, "
        "and a method bound to it has no source. When the method breaks, Dynamo must rebuild that bound "
        "method to run the call eagerly and cannot: \"Reconstruction failure\" (GB0092, measured on torch "
        "2.13) ends the graph at the call too, beside the break inside. Calling it through the class "
        "(`Rotation.tensor(x)`) is a function with a source, and only the break inside remains."
    ),
    example="""
import torch


class Rotation(torch.Tensor):
    def tensor(self):
        return torch.Tensor.as_subclass(self, torch.Tensor)


IDENTITY = torch.ones(4).as_subclass(Rotation)


def unwrap(rotation: Rotation):
    return rotation.tensor()


def forward(self, x):
    return unwrap(IDENTITY) * x
""",
    use_instead="""
import torch


class Rotation(torch.Tensor):
    def tensor(self):
        return torch.Tensor.as_subclass(self, torch.Tensor)


IDENTITY = torch.ones(4).as_subclass(Rotation)


def unwrap(rotation: Rotation):
    # through the class: the same method on the same instance, and a function Dynamo can rebuild
    return Rotation.tensor(rotation)


def forward(self, x):
    return unwrap(IDENTITY) * x
""",
    fix_safety=(
        "No automatic fix yet: `Q.method(x)` runs the same function as `x.method()` only when no "
        "subclass of Q overrides it, which the call site alone does not show."
    ),
    detection=Detection(instance_method_call=_method_of_subclass_instance),
    advice=(
        "`{code}` calls a breaking method bound to a tensor subclass's instance, which Dynamo cannot rebuild: "
        "call it through the class (`Q.method(x)`) or remove the break inside"
    ),
)
