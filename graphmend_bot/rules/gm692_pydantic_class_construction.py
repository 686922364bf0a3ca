"""GM692 pydantic-class-construction: its documentation, in one place with how it is detected.

The summary marks the classes of the checked tree decorated with `pydantic.dataclasses.dataclass`
(GB3383) and the subclasses of `pydantic.BaseModel` (GB0156; analysis/pydantic_classes.py); the
traversal drafts each call of a capitalized name, and the scope solver keeps those that build a
marked class, defined in the same module or imported, with that class's id.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _built(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    checker.report_if_builds_pydantic_class(
        rule,
        call,
        f"building `{name}`, a pydantic class, breaks the graph: Dynamo cannot trace its validation",
    )


RULE = Rule(
    code="GM692",
    name="pydantic-class-construction",
    family="not traceable",
    gb_id="GB3383",
    other_gb_ids=("GB0156",),
    summary=(
        "Flags a call, in traced code, of a class of the checked tree decorated with "
        "`pydantic.dataclasses.dataclass` or derived from `pydantic.BaseModel`."
    ),
    why=(
        "Pydantic fills a new instance through its compiled validator, which TorchDynamo cannot "
        "trace: building a pydantic dataclass ends the graph (GB3383) and building a BaseModel "
        "ends it at `SchemaValidator.validate_python` (GB0156), both measured on torch 2.13 with "
        "pydantic 2.14. An instance built outside the compiled code is read without a break, and "
        "a standard-library dataclass builds."
    ),
    example=(
        "@pydantic.dataclasses.dataclass\n"
        "class Options:\n"
        "    scale: float\n\n"
        "options = Options(scale=2.0)\n"
        "y = x * options.scale"
    ),
    use_instead=(
        "@dataclasses.dataclass  # the standard library's: Dynamo builds it (or build the pydantic one in __init__)\n"
        "class Options:\n"
        "    scale: float\n\n"
        "options = Options(scale=2.0)\n"
        "y = x * options.scale"
    ),
    fix_safety=(
        "No automatic fix: moving the construction out of the traced code, or trading pydantic's "
        "validation for a standard-library dataclass, changes when (and whether) the values are "
        "validated, which only the author can decide."
    ),
    detection=Detection(class_call=_built),
    advice=(
        "`{code}` builds a pydantic class, whose validation Dynamo cannot trace: build it outside the "
        "compiled code (in `__init__`, or pass it in), or use a standard-library dataclass"
    ),
)
