"""Which message arguments are provably Python strings, so a rewrite may format them on every call.

A message that formats a tensor reads its value (a graph break, and a device sync) each time it is
built, so messages moved out of a failing-only path are formatted only from values proven not to
be tensors: string and number literals, names that only ever hold Python numbers, and parameters
of a module-private function (`_name`) that every call in its module binds to a string literal.
A private function has no callers outside its module by convention; torchdiffeq's
`_assert_increasing('t', t)` is the shape this is for.
"""

from __future__ import annotations

import ast
import functools

import libcst as cst

from graphmend_bot.rewrite.branching import LocalFacts, is_python_number
from graphmend_bot.rewrite.context import FixContext


def is_python_text(ctx: FixContext, node: cst.BaseExpression, function: cst.FunctionDef | None,
                   facts: LocalFacts) -> bool:
    """Whether `node` is provably a str or a Python number (never a tensor)."""
    if isinstance(node, cst.SimpleString | cst.FormattedString | cst.ConcatenatedString):
        return not isinstance(node, cst.FormattedString) or all(
            is_python_text(ctx, part.expression, function, facts)
            for part in node.parts if isinstance(part, cst.FormattedStringExpression)
        )
    if is_python_number(node, facts.python_scalars()):
        return True
    return isinstance(node, cst.Name) and function is not None and _literal_string_parameter(ctx, function, node.value, facts)


def _literal_string_parameter(ctx: FixContext, function: cst.FunctionDef, name: str, facts: LocalFacts) -> bool:
    """`name` is a parameter of module-level private `function`, never reassigned, and every call of
    the function in this module passes a string literal for it (at least one call)."""
    if name not in facts.params or name in facts.assignments or not function.name.value.startswith("_"):
        return False
    if ctx.parent(function) is not ctx.module:
        return False
    params = function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    # The callers may sit in functions the fixer did not parse (FixContext focuses on findings):
    # read them from the whole source.
    calls = _calls_of(ctx.source, function.name.value)
    return bool(calls) and all(
        isinstance(bound, ast.Constant) and isinstance(bound.value, str)
        for bound in (_argument_for(call, name, positional) for call in calls)
    )


def _argument_for(call: ast.Call, name: str, positional: list[str]) -> ast.expr | None:
    """The expression `call` binds to parameter `name`; None when unknown (starred, defaulted)."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return None
    for index, arg in enumerate(call.args):
        if index < len(positional) and positional[index] == name:
            return arg
    return next((k.value for k in call.keywords if k.arg == name), None)


@functools.lru_cache(maxsize=8)
def _calls_of(source: str, function_name: str) -> tuple[ast.Call, ...]:
    """Every call of `function_name` by its plain name in `source`; none when the function is also
    used otherwise (passed as a callback, aliased, rebound), which makes its callers unknown."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    calls = [node for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function_name]
    called = {id(call.func) for call in calls}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == function_name and id(node) not in called:
            return ()
    definitions = [node for node in ast.walk(tree)
                   if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == function_name]
    return tuple(calls) if len(definitions) == 1 else ()
