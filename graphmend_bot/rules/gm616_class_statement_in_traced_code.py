"""GM616 class-statement-in-traced-code: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb8977_class_statement.py): a `class` statement that
traced code runs breaks with GB8977 ("Invalid call to __build_class__"), at the `class` line, in the
function that holds it or in any function traced code calls. Reported at the `class` keyword and name.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR


def _class_statement(rule: Rule, checker: Checker, node: ast.ClassDef) -> None:
    # The finding covers `class Name`, not the whole body (a suppression comment goes on that line).
    header = ast.Name(id=node.name, lineno=node.lineno, col_offset=node.col_offset,
                      end_lineno=node.lineno, end_col_offset=node.col_offset + len(f"class {node.name}"))
    checker.report(rule, header, f"defining the class `{node.name}` in traced code breaks the graph", TENSOR)


RULE = Rule(
    code="GM616",
    name="class-statement-in-traced-code",
    family="not traceable",
    gb_id="GB8977",
    summary="Flags a `class` statement inside a function that traced code runs.",
    why=(
        "A `class` statement calls the builtin `__build_class__`, which TorchDynamo does not trace: "
        "it ends the graph at the `class` line (GB8977, measured on torch 2.13) and builds the "
        "class eagerly, on every call."
    ),
    example=(
        "factor = 2.0\n"
        "class Scaled:\n"
        "    scale = factor\n"
        "y = x * Scaled.scale"
    ),
    use_instead=(
        "factor = 2.0\n"
        "y = x * factor  # or define the class once, at module level"
    ),
    fix_safety=(
        "No automatic fix: define the class at module level (a closure over the function's locals "
        "becomes an argument or an attribute)."
    ),
    detection=Detection(class_statement=_class_statement),
    advice="`{code}` defines a class while tracing: define it once at module level",
)
