"""GM625 exception-keyword-arguments: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0273_exception_keyword_arguments.py): building a
builtin exception with keyword arguments in traced code, `AttributeError(msg, name=n)` or
`ImportError(msg, name=m)` (raised or kept), breaks with GB0273 ("Keyword args passed to
exception constructor") at the call. Only the builtin exceptions whose constructors take keywords
are looked at (known_names.EXCEPTION_KEYWORDS); the others raise TypeError on any keyword, in
eager too. A `**kwargs` splat is not reported: it may be empty.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind
from graphmend_bot.vocabulary.known_names import EXCEPTION_KEYWORDS


def _exception_with_keywords(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> None:
    keywords = [keyword.arg for keyword in call.keywords if keyword.arg in EXCEPTION_KEYWORDS[name]]
    if keywords:
        checker.report(
            rule, call, f"`{name}(..., {keywords[0]}=...)` built in traced code: Dynamo cannot build an exception "
            "with keyword arguments and breaks the graph", TENSOR,
        )


RULE = Rule(
    code="GM625",
    name="exception-keyword-arguments",
    family="not traceable",
    gb_id="GB0273",
    summary=(
        "Flags a builtin exception built with keyword arguments in traced code: "
        "`AttributeError(msg, name=..., obj=...)`, `NameError(msg, name=...)`, "
        "`ImportError(msg, name=..., path=...)` (raised or not)."
    ),
    why=(
        "TorchDynamo models an exception built in traced code by its type and positional "
        "arguments; keyword arguments it cannot handle: the constructor call ends the graph "
        "(GB0273, measured on torch 2.13). A `raise` on an error path breaks only when it runs."
    ),
    example=(
        "try:\n"
        "    if name not in self.fields:\n"
        "        raise AttributeError(f\"no field {name}\", name=name)\n"
        "    value = self.fields[name]\n"
        "except AttributeError:\n"
        "    value = default"
    ),
    use_instead=(
        "try:\n"
        "    if name not in self.fields:\n"
        "        raise AttributeError(f\"no field {name}\")\n"
        "    value = self.fields[name]\n"
        "except AttributeError:\n"
        "    value = default"
    ),
    fix_safety=(
        "No automatic fix: the keywords set attributes (`err.name`) a handler may read. Put the "
        "information in the message, or build the exception outside the compiled function."
    ),
    detection=Detection(builtins=dict.fromkeys(EXCEPTION_KEYWORDS, _exception_with_keywords)),
    advice=("`{code}` passes keyword arguments to an exception constructor, which Dynamo cannot trace: put "
            "them in the message"),
)
