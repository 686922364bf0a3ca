"""Summary side of the keyword-sort fact: which functions sort their `**kwargs` items, and which
names each call passes by keyword (analysis/keyword_sorts.py joins them at the call sites).

linear_operator's `LinearOperator.__init__(self, *args, **kwargs)` runs `for name, val in
sorted(kwargs.items())`. Measured on torch 2.13 (tests/fixtures/dependency): Dynamo sorts the
(name, value) pairs only when every value is a Python constant; a tensor, an nn.Module, a plain
object (`kernel=self`) or a SymInt breaks ("Cannot perform sort with non-constant key", GB0207),
while ints, floats, strings, None, tuples of constants and functions do not, and `sorted(kwargs)`
of the keys never does. Recorded only when the config names dependencies.
"""

from __future__ import annotations

import ast

from graphmend_bot.analysis.model import FunctionSummary

INSTANCE = "<self>"  # the name recorded for the method's instance parameter


def sorted_keyword_items(node: ast.Call, kwarg: str) -> bool:
    """`sorted(kwargs.items())` without a `key=`: the pairs themselves are the sort keys."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "sorted" and len(node.args) == 1):
        return False
    if any(keyword.arg == "key" for keyword in node.keywords):
        return False
    items = node.args[0]
    return (
        isinstance(items, ast.Call) and not items.args and not items.keywords
        and isinstance(items.func, ast.Attribute) and items.func.attr == "items"
        and isinstance(items.func.value, ast.Name) and items.func.value.id == kwarg
    )


def record_passed_names(summary: FunctionSummary, site: int, node: ast.Call, self_name: str | None,
                        params: frozenset[str]) -> None:
    """The keywords of call `site` whose value is the instance (`kernel=self`) or one of the
    function's own parameters (`kernel=kernel`, forwarded): values that are objects when the
    instance is one, or when a caller passes one."""
    passed = tuple(
        (keyword.arg, INSTANCE if keyword.value.id == self_name else keyword.value.id)
        for keyword in node.keywords
        if keyword.arg is not None and isinstance(keyword.value, ast.Name)
        and (keyword.value.id == self_name or keyword.value.id in params)
    )
    if passed:
        summary.passed_names[site] = passed
