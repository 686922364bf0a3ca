"""A tensor and an object of a class that answers the operator: Dynamo breaks (GB0055, GM623).

Measured on torch 2.13 (tests/coverage_probes/gb0055_tensor_operator_on_object.py): in eager,
`t * scale` tries the tensor's `__mul__`, which declines an object it does not know, and Python
then calls `type(scale).__rmul__`; `scale * t` calls `type(scale).__mul__`. Dynamo instead hands
the object to the tensor operation it records, in either order, and cannot make it a graph input
("Failed to convert args/kwargs to proxy"); so it does for every arithmetic and bitwise operator
and for the augmented forms (`t += obj`; `obj += t`, answered by `__iadd__` or else `__add__`,
tests/fixtures/rules/GM623_tensor_operator_on_object.py). The finding stands when the other operand is a
tensor and the object's class has the method that answers in the checked tree (or a configured
dependency), the object built in the function, received (an annotated parameter, or read from
one) or held (`self.op` built by `__init__`, a module's `SCALE = Op(...)`, `self`): Dynamo hands
such an object to the tensor operation too (measured: tests/test_received_object_operands.py,
tests/test_held_object_operands.py; where an earlier break Dynamo cannot resume from skips the
rest of the frame, as test_dependency_breaks.py's typed fixture, nothing after it is traced: not
judged here, as for every finding in such a frame). The class has no `__torch_function__` (a
tensor-like class, which Dynamo dispatches another way: not measured, left unreported), and
derives only from classes of the tree, `object` or nn.Module (measured: breaks the same way): a
`torch.Tensor` subclass is a tensor to Dynamo, and a `float` subclass breaks at its constructor,
not at the operator (tests/fixtures/rules/GM623_tensor_operator_on_object.py); any other base is
not measured.

`a @ b` (and `operator.matmul`) with no tensor, on an object of a class of the tree defining
`__matmul__`, breaks whatever the class's `__torch_function__` and whether the frame built or received
the object (measured on torch 2.13, tests/fixtures/rules/GM623_tensor_operator_on_object.py):
Dynamo's builtin `matmul` has no handler for objects ("Failed to trace builtin operator", GB0059),
while `+ - * / // % ** & | ^ << >>` run the class's dunder. An operand's class may come from the
arm of an `isinstance` test, each test of an `and` (`isinstance(a, Q) and isinstance(b, Q)`:
tests/test_narrowed_object_operands.py). Inside a configured dependency such a draft is reported at
the calls from the tree that pass its parameters objects of a known class (dependency_breaks.py:
torch_complex's `matmul`, whose arm for a tensor and an object traces).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from graphmend_bot.analysis import value_class
from graphmend_bot.analysis.class_order import MethodOrder
from graphmend_bot.vocabulary.kind import Kind

# "Failed to trace builtin operator": the id of the `a @ b` drafts, which need no tensor operand
_NO_OBJECT_HANDLER = "GB0059"

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft


def object_operations(
    program: Program, holds: Callable[[FunctionId, Kind], bool], given: list[TracedDraft]
) -> list[TracedDraft]:
    """The drafts of traced `t OP obj` / `obj OP t` whose object's class answers the operator; those
    in a dependency go to `given`: they break at the calls that pass it objects (dependency_breaks.py)."""
    from graphmend_bot.analysis.scope import TracedDraft

    order = MethodOrder(program)
    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not function.object_operand_drafts:
            continue
        inside = fid[0] in program.dependency_modules
        standing = given if inside else found
        for augmented_ref, draft in function.object_operand_drafts:
            method_ref = _answering_method(program, fid, augmented_ref)
            torch_function = method_ref.rpartition(">")[0] + ">__torch_function__"
            objects_only = draft.gb_id == _NO_OBJECT_HANDLER
            if (holds(fid, draft.deps) and program.resolve_call(fid, method_ref)
                    and (objects_only or not program.resolve_call(fid, torch_function))
                    and _derives_from_tree_only(program, order, fid, method_ref)):
                standing.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _answering_method(program: Program, fid: FunctionId, method_ref: str) -> str:
    """`scale *= t` runs `__imul__` when the class defines it, else `__mul__`, as Python does."""
    owner, _, method = method_ref.rpartition(">")
    plain = f"__{method[3:]}"
    if plain in value_class.OPERATOR_METHODS.values() and not program.resolve_call(fid, method_ref):
        return f"{owner}>{plain}"
    return method_ref


def _derives_from_tree_only(program: Program, order: MethodOrder, fid: FunctionId, method_ref: str) -> bool:
    """Every class the object may be an instance of has only classes of the tree and nn.Module
    in its MRO, built or received."""
    from graphmend_bot.analysis.scope import MODULE_BASES

    constructor = method_ref.partition(":")[2].rpartition(">")[0]
    classes = program._constructed_classes(fid, constructor)
    outside = [order.outside_tree(cls) for cls in classes]
    return bool(classes) and all(bases is not None and set(bases) <= set(MODULE_BASES) for bases in outside)
