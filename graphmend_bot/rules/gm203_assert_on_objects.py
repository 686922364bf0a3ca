"""GM203 assert-on-objects: its documentation, in one place with how it is detected.

Measured on torch 2.13.0: Dynamo lowers `assert x` to `torch._assert` and cannot when `x` is a
tuple, list or dict holding tensors or objects, or an object (a user class, an nn.Module): it
breaks ("Missing `as_proxy()` implementation", or "Failed to handle graph break gracefully").
A tuple of ints, a string, an int, a bool attribute, `len(items) > 0`, `isinstance(...)`, `x is
not None` and `objs and True` do not break. The one form whose value the source pins down is
the function's own `*args` annotated with a class or a tensor (zuko's `ComposedTransform(*transforms:
Transform)`: `assert transforms, "..."`), so only that is reported.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import TENSOR

TENSOR_TUPLE = "GB0112"  # "TypeError when making fake tensor call"

# Annotations whose values are Python constants: a tuple of them is asserted without a break.
_CONSTANT_TYPES = frozenset({"int", "float", "bool", "str", "bytes", "complex", "Any", "object"})


def _assert_on_star_args(rule: Rule, checker: Checker, node: ast.Assert, star_args: ast.arg | None) -> None:
    test = node.test
    if star_args is None or not (isinstance(test, ast.Name) and test.id == star_args.arg):
        return
    annotation = dotted_name(star_args.annotation) if star_args.annotation is not None else None
    leaf = annotation.rsplit(".", 1)[-1] if annotation else ""
    if leaf[:1].isupper() and leaf not in _CONSTANT_TYPES:
        # Measured on torch 2.13: objects give GB0055, tensors GB0112 (torch.scalar_tensor of a tuple).
        checker.report(
            rule, test, f"`assert {test.id}` on a tuple of `{leaf}` objects breaks the graph: Dynamo "
            "cannot lower it to `torch._assert`; use `assert len(...) > 0`", TENSOR,
            gb_id=TENSOR_TUPLE if leaf == "Tensor" else None,
        )


RULE = Rule(
    code="GM203",
    name="assert-on-objects",
    family="validation guard",
    gb_id="GB0055",
    other_gb_ids=(TENSOR_TUPLE,),
    summary=(
        "Flags `assert args` on a function's `*args` annotated with a class or a tensor: a tuple of "
        "objects whose truth value Dynamo cannot lower to `torch._assert`."
    ),
    why=(
        "TorchDynamo turns `assert x, msg` into a call of `torch._assert(x, msg)` in the graph. A "
        "tuple of tensors or objects is no graph value (measured on torch 2.13: \"Missing "
        "`as_proxy()` implementation\" (GB0055) for objects, \"TypeError when making fake tensor "
        "call\" (GB0112) for tensors), so Dynamo breaks the graph at the assert, or gives up on "
        "the whole function when it cannot resume there."
    ),
    example=(
        "class Composed:\n"
        "    def __init__(self, *parts: torch.Tensor):\n"
        "        assert parts, \"'parts' cannot be empty\"\n"
        "        self.parts = parts\n\n"
        "y = Composed(x, x + 1).parts[1] * 2"
    ),
    use_instead=(
        "class Composed:\n"
        "    def __init__(self, *parts: torch.Tensor):\n"
        "        assert len(parts) > 0, \"'parts' cannot be empty\"\n"
        "        self.parts = parts\n\n"
        "y = Composed(x, x + 1).parts[1] * 2"
    ),
    fix_safety=(
        "Safe: `assert args` becomes `assert len(args) > 0` (rewrite/validation/star_args_assert.py). `*args` is "
        "always a tuple, whose truth value is exactly its length being positive, so the check, its "
        "message and its exception are unchanged; under Dynamo it is a constant (measured: no break). "
        "Not applied where the function rebinds the name or `len` is not the builtin."
    ),
    fixes=("validation.star_args_assert",),
    detection=Detection(object_assertion=_assert_on_star_args),
    advice=(
        "`{code}` asserts a tuple of objects, which Dynamo cannot lower to `torch._assert`: assert "
        "its length instead (`assert len(args) > 0`), the same check"
    ),
)
