"""GM681 made-up-id-comparison: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb9316_made_up_id_comparison.py): `id()` of a value
Dynamo holds with no source, such as a list, dict or set built in traced code, is a number Dynamo
makes up while tracing (FakeIdVariable). Two such ids compare with `==` and `!=`; any other
comparison of one, with a constant, with the id of an input or ordered (`<`), breaks with GB9316
(tests/fixtures/rules/GM681_made_up_id_comparison.py). `id(seen) in ids` traces. In a helper Dynamo
inlines, the same line breaks with GB4501 (tests/coverage_probes/gb4501_made_up_id_in_helper.py):
the break there would resume in the caller, which needs the made-up id as a real one.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind

_COMPARED = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _made_up_id(checker: Checker, node: ast.expr) -> bool:
    """`id(seen)` of a local list, dict or set this function built."""
    return (
        isinstance(node, ast.Call)
        and checker.builtin_of(node.func) == "id"
        and len(node.args) == 1
        and not node.keywords
        and checker.built_collection(node.args[0])
    )


def _comparison(rule: Rule, checker: Checker, node: ast.Compare, kinds: list[Kind]) -> None:
    operands = [node.left, *node.comparators]
    for op, left, right in zip(node.ops, operands, operands[1:]):
        made_up = _made_up_id(checker, left), _made_up_id(checker, right)
        if not isinstance(op, _COMPARED) or not any(made_up):
            continue
        if isinstance(op, (ast.Eq, ast.NotEq)) and all(made_up):
            continue  # two made-up ids compare by Dynamo's own numbers
        # In a helper Dynamo inlines, the break cannot stay inside it: the caller's frame would need
        # the made-up id as a real one, and Dynamo names that (GB4501).
        gb_id = None if checker.entry_point else "GB4501"
        message = "comparing `id()` of a collection built in traced code breaks the graph"
        checker.report(rule, node, message, TENSOR, gb_id=gb_id)
        return


RULE = Rule(
    code="GM681",
    name="made-up-id-comparison",
    family="not traceable",
    gb_id="GB9316",
    other_gb_ids=("GB4501",),
    summary=(
        "Flags comparing `id()` of a list, dict or set built in traced code with anything but the "
        "`id()` of another such value (`id(seen) == key`, `id(a) < id(b)`)."
    ),
    why=(
        "An object built while tracing does not exist yet: TorchDynamo gives its `id()` a number of "
        "its own, which it can compare only for equality with another one it made up. Any other "
        "comparison ends the graph (GB9316, measured on torch 2.13) and runs eagerly."
    ),
    example=("cache = {}\nif id(cache) != self.last_cache_id:\n    y = x * 2"),
    use_instead=(
        "cache = {}\nif cache is not self.last_cache:  # compare the objects, or keep a flag\n    y = x * 2"
    ),
    fix_safety=(
        "No automatic fix: compare the objects themselves (`is`), or keep the identity check "
        "outside the compiled function."
    ),
    detection=Detection(comparison=_comparison),
    advice="`{code}` compares an `id()` Dynamo makes up while tracing: compare the objects with `is`",
)
