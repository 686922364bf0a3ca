"""GM623 tensor-operator-on-object: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0055_tensor_operator_on_object.py): `t + obj`,
`t - obj`, `t * obj`, `t @ obj` and `t / obj`, with `t` a tensor and `obj` an object whose class
defines the reflected method (`__radd__`, `__rmul__`, ...), break with GB0055, and so does
`obj * t` on a class defining `__mul__`; so do `// % ** & | ^ << >>` either way round, and the
augmented forms, `t += obj` (`__radd__`) and `obj += t` (`__iadd__`, else `__add__`)
(tests/coverage_probes/gb0055_augmented_operator_on_object.py); comparisons run the object's
method and trace. The object may be built in the frame, received annotated, or read from where it is
held: `self.op` built by `__init__`, a module's `SCALE = Op(...)`, `self` in the class's own method
(tests/test_held_object_operands.py). The traversal asks at each such operation whose object's
class it knows; the scope solver keeps the finding when that class has the method in the checked
tree and derives from nothing outside it but nn.Module (analysis/object_operands.py). `a @ b`
with no tensor, on an object whose class defines `__matmul__`, breaks too, with GB0059: Dynamo's
builtin `matmul` has no handler for objects (tests/coverage_probes/gb0059_matmul_of_objects.py). So
does `~obj` on one whose class defines `__invert__`, built or received; `-obj`, `+obj` and
`abs(obj)` run the class's method (tests/coverage_probes/gb0059_invert_of_object.py). The class
may come from an isinstance test whose arm holds the operator, each test of an `and` too
(tests/test_narrowed_object_operands.py); one inside a configured dependency is GM608's at the call
passing objects (tests/test_dependency_breaks.py, complex).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.advice import AdviceCase
from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind

# "Failed to trace builtin operator": `a @ b` of objects, no tensor in it, and `~obj`
MATMUL_OF_OBJECTS = "GB0059"
MATMUL_MESSAGE = "`@` on an object whose class answers with "
INVERT_MESSAGE = "`~` on an object whose class answers with "


def _object_operand(rule: Rule, checker: Checker, node: ast.BinOp | ast.UnaryOp | ast.AugAssign, method_ref: str, tensor: Kind,
                    with_tensor: bool) -> None:
    method = method_ref.rpartition(">")[2]
    if isinstance(node, ast.UnaryOp):  # `~obj`
        checker.report_if_operand_method(
            rule, node, method_ref, f"{INVERT_MESSAGE}`{method}`: Dynamo has no `~` for objects and breaks the graph",
            tensor, gb_id=MATMUL_OF_OBJECTS, objects=(node.operand,),
        )
        return
    if not with_tensor:
        checker.report_if_operand_method(
            rule, node, method_ref, f"{MATMUL_MESSAGE}`{method}`: Dynamo has no `@` for objects and breaks the graph",
            tensor, gb_id=MATMUL_OF_OBJECTS, objects=(node.left, node.right) if isinstance(node, ast.BinOp) else (),
        )
        return
    checker.report_if_operand_method(
        rule, node, method_ref, f"a tensor operator with an object that answers with `{method}`: Dynamo "
        "cannot pass the object to the tensor operation and breaks the graph", tensor,
    )


# The class of the documented example and of its rewrite.
_SCALE = (
    "class Scale:\n"
    "    def __init__(self, t):\n"
    "        self.t = t\n"
    "\n"
    "    def __rmul__(self, other):\n"
    "        return other * self.t\n"
    "\n"
)

RULE = Rule(
    code="GM623",
    name="tensor-operator-on-object",
    family="not traceable",
    gb_id="GB0055",
    other_gb_ids=(MATMUL_OF_OBJECTS,),
    summary=(
        "Flags `t + obj`, `t * obj`, `t % obj` and every other arithmetic or bitwise operator "
        "(`- @ / // ** & | ^ << >>`) in traced code where `t` is a "
        "tensor and `obj` an object (built, received annotated, or held: `self.op`, a module's "
        "`SCALE = Op()`) of a class of the checked tree (deriving only from its classes or "
        "`nn.Module`: a `torch.Tensor` or `float` subclass traces) that defines the reflected "
        "method (`__radd__`, `__rmul__`, `__rmod__`, ...), and `obj * t` "
        "where it defines the operator (`__mul__`, ...), augmented too (`t += obj`, `obj += t` with "
        "`__iadd__` or `__add__`); and `a @ b` with no tensor, `a` such an "
        "object whose class defines `__matmul__`, and `~obj` on one whose class defines `__invert__` "
        "(GB0059)."
    ),
    why=(
        "In eager, the tensor's operator declines an object it does not know and Python calls the "
        "object's method. TorchDynamo instead passes the object to the tensor operation it "
        "records, cannot make it a graph input (\"Failed to convert args/kwargs to proxy\", "
        "GB0055, measured on torch 2.13) and ends the graph; the operation runs eagerly. `a @ b` "
        "of two objects fails the same way with GB0059 (\"Failed to trace builtin operator\"), and "
        "so does `~obj`: Dynamo runs an object's `__add__`, `__mul__`, `__neg__` or `__abs__`, but "
        "has no `@` or `~` for objects."
    ),
    example=_SCALE + "y = x * Scale(x)",
    use_instead=_SCALE + "y = Scale(x).__rmul__(x)  # call the object's method: Dynamo traces it",
    fix_safety=(
        "No automatic fix: call the object's method yourself (`obj.__rmul__(t)`, "
        "`a.__matmul__(b)`, which Dynamo traces), or operate on the tensor the object holds."
    ),
    detection=Detection(object_operand=_object_operand),
    advice_cases=(AdviceCase(lambda finding: finding.message.startswith(MATMUL_MESSAGE), (
        "`{code}` multiplies objects with `@`, which Dynamo cannot trace: call the method "
        "(`a.__matmul__(b)`) instead"
    )), AdviceCase(lambda finding: finding.message.startswith(INVERT_MESSAGE), (
        "`{code}` inverts an object with `~`, which Dynamo cannot trace: call the method "
        "(`obj.__invert__()`) instead"
    ))),
    advice=("`{code}` gives an object to a tensor operator, which Dynamo cannot trace: call the object's "
            "method (`obj.__rmul__(t)`) instead"),
)
