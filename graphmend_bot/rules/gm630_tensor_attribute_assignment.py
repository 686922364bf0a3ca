"""GM630 tensor-attribute-assignment: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0056_*, gb0058_*), as Dynamo's `setattr` handler
for tensors tests them:
- `t.data = value` where `t` has no source, i.e. was made inside the compiled region: GB0056. A
  local bound in this function to a tensor made from nothing that reaches it (`t = torch.zeros(n)`)
  is such a tensor; the `.data` of an input or a parameter (`self.weight.data = w`) traces while the
  dtype stays (a new dtype is GB0220, a run-time fact the source does not show). A local computed
  from the inputs (`c = x.clone()`) has no source either and breaks the same way, but its Kind
  does not tell it from an input bound to another name (`c = x`): left out, a known miss.
- `t.real = value` / `t.imag = value` on a tensor: GB0058 "Failed to set tensor attribute" (the
  other writable getset descriptors are `data`, `grad` and `requires_grad`, handled apart, or raise
  in eager too).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind

DATA_OF_TRACED_TENSOR = "GB0056"  # "Failed to mutate tensor data attribute"
TENSOR_ATTRIBUTE = "GB0058"  # "Failed to set tensor attribute"


def _made_in_frame(target: ast.Attribute, owner: Kind) -> bool:
    """`t.data = ...` with `t` a local bound to a tensor made here from no tensor that reaches the
    function (a torch factory): Dynamo gives it no source. What an input or a call returns may be
    an input too, so it is left out."""
    return isinstance(target.value, ast.Name) and owner.always and not owner.params and not owner.calls


def _set_data(rule: Rule, checker: Checker, target: ast.Attribute, owner: Kind) -> None:
    if _made_in_frame(target, owner):
        checker.report(rule, target, "assigning `.data` of a tensor made in traced code breaks the graph", owner,
                       gb_id=DATA_OF_TRACED_TENSOR)


def _set_part(rule: Rule, checker: Checker, target: ast.Attribute, owner: Kind) -> None:
    if owner.is_tensor and not checker.assumed_tensor(owner):
        checker.report(rule, target, f"assigning `.{target.attr}` of a tensor breaks the graph", owner,
                       gb_id=TENSOR_ATTRIBUTE)


RULE = Rule(
    code="GM630",
    name="tensor-attribute-assignment",
    family="not traceable",
    gb_id=DATA_OF_TRACED_TENSOR,
    other_gb_ids=(TENSOR_ATTRIBUTE,),
    summary=(
        "Flags assignments to tensor attributes Dynamo cannot trace: `t.data = v` on a tensor made in "
        "traced code (`t = torch.zeros(n)`), and `t.real = v` / `t.imag = v`."
    ),
    why=(
        "Dynamo models `.data =` only on a tensor that came from outside the compiled region (an "
        "input, a parameter) and keeps its dtype; on one made inside it, and for the `real` and "
        "`imag` setters, it ends the graph and runs the assignment eagerly (measured on torch 2.13: "
        "GB0056, GB0058)."
    ),
    example="buffer = torch.zeros(3)\nbuffer.data = x.detach()",
    use_instead="buffer = x.detach()  # bind the new tensor; write parts with torch.complex(re, im)",
    fix_safety=(
        "No automatic fix: `.data =` swaps a tensor's storage behind autograd's back, which the "
        "program may rely on. Bind the new tensor to the name instead, or copy into it in place "
        "(`t.copy_(v)`, under `torch.no_grad()` for a leaf); build a complex tensor from its parts "
        "with `torch.complex(real, imag)`."
    ),
    detection=Detection(attribute_writes={"data": _set_data, "real": _set_part, "imag": _set_part}),
    advice="`{code}` assigns a tensor attribute Dynamo cannot trace: bind a new tensor, or copy into it with `copy_`",
)
