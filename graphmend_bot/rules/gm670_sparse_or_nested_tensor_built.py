"""GM670 sparse-or-nested-tensor-built: its documentation, in one place with how it is detected.

Measured on torch 2.13, each as a call between two tensor operations (tests/coverage_probes/gb0374_*,
gb0233_*, gb0090_*, gb0277_*, gb0007_sparse_coo_tensor.py):
- `torch.sparse_csr_tensor`, `sparse_csc_tensor`, `sparse_bsr_tensor`, `sparse_bsc_tensor` and
  `sparse_compressed_tensor`: Dynamo's trace rules map them to a skip variable that refuses them,
  GB0374; `torch.sparse_coo_tensor` is an ordinary skipped function there, GB0007.
- `t.to_sparse()`, `to_sparse_coo/csr/csc/bsr/bsc()`: the sparse result cannot be wrapped, GB0277.
- `torch.nested.nested_tensor(ts, layout=torch.strided)`: GB0233; with no `layout` (strided is the
  default), and `torch.nested.as_nested_tensor(ts)` without `layout=torch.jagged`, the strided
  nested tensor's constructor does not run on fake tensors, GB0090. `layout=torch.jagged` traces;
  a layout held in a variable is not judged.
A sparse or strided nested result still alive after the call is an input of the graph that resumes,
which breaks again there (GB0015, GB0016): the first break is the one to move.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind

SPARSE_CREATION = "GB0374"  # "Sparse tensor creation not supported"
STRIDED_NESTED = "GB0233"  # "Attempted to use strided NestedTensor"
NO_FAKE_TENSORS = "GB0090"  # "Operator does not support running with fake tensors"
SPARSE_RESULT = "GB0277"  # "Attempted to wrap sparse Tensor with VariableTracker"
SKIPPED = "GB0007"  # "Attempted to call function marked as skipped": torch.sparse_coo_tensor

SPARSE_FACTORIES = ("sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
                    "sparse_bsc_tensor", "sparse_compressed_tensor")
TO_SPARSE_METHODS = ("to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
                     "to_sparse_bsc")


def _sparse_factory(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    checker.report(rule, call, f"Dynamo cannot build a sparse tensor with `torch.{name}()`", TENSOR,
                   gb_id=SKIPPED if name == "sparse_coo_tensor" else SPARSE_CREATION)
    return TENSOR


def _to_sparse(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
    checker.report(rule, call, f"Dynamo cannot hold the sparse tensor `.{method}()` makes", receiver,
                   gb_id=SPARSE_RESULT)
    return receiver


def _layout(call: ast.Call) -> str | None:
    """The layout a nested-tensor call asks for: "strided" by default, the attribute it names
    (`torch.jagged`), or "" when a variable holds it."""
    for keyword in call.keywords:
        if keyword.arg == "layout":
            return keyword.value.attr if isinstance(keyword.value, ast.Attribute) else ""
        if keyword.arg is None:
            return ""  # `**options` may name it
    return "strided"


def _nested_tensor(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    layout = _layout(call)
    if layout == "strided":
        explicit = any(keyword.arg == "layout" for keyword in call.keywords)
        gb_id = STRIDED_NESTED if explicit and name == "nested.nested_tensor" else NO_FAKE_TENSORS
        checker.report(rule, call, f"Dynamo cannot build a strided nested tensor with `torch.{name}()`", TENSOR,
                       gb_id=gb_id)
    return TENSOR


RULE = Rule(
    code="GM670",
    name="sparse-or-nested-tensor-built",
    family="not traceable",
    gb_id=SPARSE_CREATION,
    other_gb_ids=(STRIDED_NESTED, NO_FAKE_TENSORS, SPARSE_RESULT, SKIPPED),
    summary=(
        "Flags sparse and strided nested tensors built in traced code: `torch.sparse_coo_tensor(...)`, "
        "`torch.sparse_csr_tensor(...)` and the other compressed-layout factories, `t.to_sparse()` and its layout variants, and "
        "`torch.nested.nested_tensor(...)` / `as_nested_tensor(...)` without `layout=torch.jagged`."
    ),
    why=(
        "Dynamo's graphs hold neither sparse tensors nor strided nested tensors: it refuses the "
        "compressed sparse factories (GB0374) and skips `sparse_coo_tensor` (GB0007), cannot wrap what "
        "`to_sparse*()` returns (GB0277), and "
        "stops at a strided nested tensor (GB0233 with `layout=torch.strided`, GB0090 when strided is "
        "the default), running the call eagerly (measured on torch 2.13). The result, alive after the "
        "call, breaks the graph again where it is used."
    ),
    example="nested = torch.nested.nested_tensor([a, b])",
    use_instead="nested = torch.nested.nested_tensor([a, b], layout=torch.jagged)",
    fix_safety=(
        "No automatic fix: a jagged nested tensor supports other operations than a strided one, and a "
        "dense computation is not a sparse one. Build nested tensors with `layout=torch.jagged`; build "
        "sparse tensors outside the compiled function and pass them, or compute densely inside it."
    ),
    detection=Detection(
        torch_functions={
            **dict.fromkeys(SPARSE_FACTORIES, _sparse_factory),
            "nested.nested_tensor": _nested_tensor,
            "nested.as_nested_tensor": _nested_tensor,
        },
        tensor_methods=dict.fromkeys(TO_SPARSE_METHODS, _to_sparse),
    ),
    advice=("Dynamo cannot put the tensor `{code}` builds in a graph: use `layout=torch.jagged` for nested "
            "tensors, and build sparse tensors outside the compiled function"),
)
