"""GM682 typing-construct-method: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0289_typing_construct_method.py): Dynamo models a
subscripted `typing` construct (`Optional[int]`, `Union[int, str]`, `Tuple[...]`, `Dict[...]`,
`Callable[...]`) as a value with no methods: calling its `__eq__` or `__ne__` breaks with GB0289.
Comparing two with `==` traces, and so does `typing.Optional.__getitem__(int)`; its other methods
(`copy_with`, `__or__`, `__repr__`, ...) break with GB0116 first, which this rule leaves alone
(tests/fixtures/rules/GM682_typing_construct_method.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR

_TYPING = ("typing.", "typing_extensions.")
_METHODS = frozenset({"__eq__", "__ne__"})


def _method_of_construct(rule: Rule, checker: Checker, call: ast.Call, alias: str, method: str) -> None:
    if alias.startswith(_TYPING) and method in _METHODS:
        construct = alias.rpartition(".")[2]
        checker.report(
            rule, call, f"calling `{method}` of `{construct}[...]` in traced code breaks the graph", TENSOR
        )


RULE = Rule(
    code="GM682",
    name="typing-construct-method",
    family="not traceable",
    gb_id="GB0289",
    summary="Flags calling `__eq__` / `__ne__` of a subscripted `typing` construct (`Optional[int].__eq__(t)`) in traced code.",
    why=(
        "TorchDynamo holds a subscripted `typing` construct as a constant it can compare with `==`, "
        "but calls none of its methods: `Optional[int].__eq__(other)` ends the graph (GB0289, measured "
        "on torch 2.13) and runs eagerly."
    ),
    example="same = typing.Optional[int].__eq__(hint)\ny = x * 2",
    use_instead="same = typing.Optional[int] == hint  # the operator traces\ny = x * 2",
    fix_safety=(
        "No automatic fix: `a == b` calls `b.__eq__(a)` too when `a`'s returns NotImplemented, so "
        "the operator and the method call can differ for an operand of another class."
    ),
    detection=Detection(subscripted_receiver=_method_of_construct),
    advice="`{code}` calls a method of a typing construct while tracing: compare with `==`, or outside",
)
