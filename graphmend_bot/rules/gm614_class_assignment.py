"""GM614 class-assignment: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb4271_class_assignment.py): `obj.__class__ = C` on
an object that is no tensor (`self`, a local object, an argument) breaks with GB4271; on a tensor
it is GB0058 ("Failed to set tensor attribute"): a value known to be a tensor is left to the
tensor attributes.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind


def _class_assignment(rule: Rule, checker: Checker, target: ast.Attribute, owner: Kind) -> None:
    # Left out: a value that is a tensor, or one when its function's caller passes one. What an
    # in-tree call returns, and an entry point's parameter only assumed to be a tensor, are objects
    # in practice where code assigns their class.
    if not (owner.always or (owner.params and not checker.assumed_tensor(owner))):
        checker.report(rule, target, "assigning `__class__` of an object in traced code breaks the graph", TENSOR)


RULE = Rule(
    code="GM614",
    name="class-assignment",
    family="not traceable",
    gb_id="GB4271",
    summary="Flags `obj.__class__ = Cls` on an object (not a tensor) in traced code.",
    why=(
        "TorchDynamo models each object by the class it had when tracing met it, and does not "
        "support changing it: assigning `__class__` ends the graph (GB4271, measured on torch "
        "2.13) and the assignment runs eagerly."
    ),
    example=(
        "state = State(x)\n"
        "state.__class__ = FinishedState\n"
        "y = x * 2"
    ),
    use_instead=(
        "state = FinishedState(x)  # build the object with the class it needs\n"
        "y = x * 2"
    ),
    fix_safety=(
        "No automatic fix: build the object with the class it ends with, or change its class "
        "outside the compiled function."
    ),
    detection=Detection(attribute_writes={"__class__": _class_assignment}),
    advice=("`{code}` changes an object's class while tracing: build it with that class, or change it "
            "outside the compiled function"),
)
