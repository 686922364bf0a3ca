"""GM615 typed-dict-with-optional-keys: its documentation, in one place with how it is detected.

The summary marks the TypedDicts with optional keys (analysis/typed_dicts.py: a class statement
with `total=False` or a `NotRequired[...]` key, a subclass of one in the same module, or the
functional `TypedDict("Name", {...}, total=False)`); the traversal drafts each call of a
capitalized name, and the scope solver keeps those that build a marked class, defined in the same
module or imported.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _built(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    if len(call.args) > 1:
        return  # a TypedDict takes one mapping at most: this builds something else
    checker.report_if_typed_dict_with_optional_keys(
        rule, call, f"building the TypedDict `{name}`, which has optional keys, breaks the graph"
    )


RULE = Rule(
    code="GM615",
    name="typed-dict-with-optional-keys",
    family="not traceable",
    gb_id="GB0257",
    summary=(
        "Flags a call of a TypedDict class with optional keys (`total=False`, `NotRequired[...]`) "
        "in traced code, defined in the checked tree (in the same module or imported)."
    ),
    why=(
        "TorchDynamo builds a TypedDict only when all its keys are required: calling one with "
        "optional keys ends the graph (GB0257, measured on torch 2.13) and the call runs eagerly. "
        "At run time a TypedDict is a plain dict, so a dict literal builds the same value."
    ),
    example=(
        "class Options(typing.TypedDict, total=False):\n"
        "    scale: float\n\n"
        "options = Options(scale=2.0)\n"
        "y = x * options.get(\"scale\", 1.0)"
    ),
    use_instead=(
        "class Options(typing.TypedDict, total=False):\n"
        "    scale: float\n\n"
        "options: Options = {\"scale\": 2.0}  # the same dict, and type checkers still read it\n"
        "y = x * options.get(\"scale\", 1.0)"
    ),
    fix_safety=(
        "No automatic fix. Calling a TypedDict class returns a plain `dict` of its keyword "
        "arguments, so a dict literal annotated with the class (`options: Options = {...}`) "
        "computes the same value."
    ),
    detection=Detection(class_call=_built),
    advice=("`{code}` builds a TypedDict with optional keys, which Dynamo cannot trace: write a dict literal "
            "annotated with the class instead"),
)
