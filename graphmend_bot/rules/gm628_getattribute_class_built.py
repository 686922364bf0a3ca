"""GM628 getattribute-class-built: its documentation, in one place with how it is detected.

The summary marks the plain classes of the checked tree that define `__getattribute__` or derive
from one of the module that does (analysis/getattribute_classes.py); the traversal drafts each call
of a capitalized name, and the scope solver keeps those that build a marked class, defined in the
same module or imported. Measured on torch 2.13 (tests/coverage_probes/gb0147_getattribute_class_built.py,
tests/fixtures/rules/GM628_getattribute_class_built.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _built(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    checker.report_if_builds_getattribute_class(
        rule,
        call,
        f"building `{name}`, whose class defines `__getattribute__`, breaks the graph: Dynamo builds "
        "only objects whose attribute lookup is Python's own",
    )


RULE = Rule(
    code="GM628",
    name="getattribute-class-built",
    family="not traceable",
    gb_id="GB0147",
    summary=(
        "Flags a call, in traced code, of a class of the checked tree that defines `__getattribute__` "
        "(or derives from a class of its module that does), defined in the same module or imported."
    ),
    why=(
        "TorchDynamo tracks the attribute writes of the objects it builds while tracing, which it "
        "can do only when the class looks attributes up Python's own way: for a class whose "
        '`__getattribute__` runs user code it refuses the call (GB0147 "Unsupported function '
        'call", measured on torch 2.13) and the construction runs eagerly. An object of such a '
        "class built outside the compiled code is read without a break, and a class that defines "
        "only `__getattr__` (called for missing attributes) or `__setattr__` is built in the graph."
    ),
    example=(
        "class Record:\n"
        "    def __getattribute__(self, name):\n"
        "        return super().__getattribute__(name)\n\n"
        "record = Record()"
    ),
    use_instead=(
        "class Record:\n"
        "    def __getattr__(self, name):  # runs only for missing attributes\n"
        "        raise AttributeError(name)\n\n"
        "record = Record()"
    ),
    fix_safety=(
        "No automatic fix: build the object outside the compiled function (in `__init__`), or give "
        "the class `__getattr__` instead of `__getattribute__` where that keeps its behaviour."
    ),
    detection=Detection(class_call=_built),
    advice=(
        "`{code}` builds an object whose class defines `__getattribute__`, which Dynamo cannot build: "
        "build it outside the compiled function, or use `__getattr__`"
    ),
)
