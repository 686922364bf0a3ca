"""Parameters a root's body itself uses as Python numbers, so not assumed to be tensors.

A public callable of the tree is a root whose unannotated parameters without a default are assumed to
hold tensors (Program.declared_entry, FunctionSummary.configured_entry_params). A body that passes
one bare to `range(...)`, to a `math` function, as a size (`torch.zeros(width)`, `x.view(-1,
width)`: known_names' SIZE_FACTORIES and SIZE_METHODS), or repeats a list or tuple display by it
(`[None] * depth`) counts with it, so its callers pass a Python number: compiled with one, Dynamo
traces `if depth > 2:` on it without a break (tests/test_number_params.py). Such a parameter is no
assumed tensor; a tensor a caller in the tree passes still makes it one (the solver's flow).
A parameter the body rebinds is left assumed: the use may read the new value.
Only arguments that take nothing but a number count: `math`'s integer functions, not `math.exp(loss)`
or `math.isnan(loss)` (a 0-d loss there breaks on the call), nor the arguments whose signature
takes a 0-d tensor (`torch.linspace(lo, hi, n)`'s ends, `x.narrow(0, start, n)`'s start): with a
tensor there each breaks (tests/test_number_params.py).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence

from graphmend_bot.analysis.local_nodes import local_nodes
from graphmend_bot.vocabulary.known_names import SIZE_FACTORIES, SIZE_METHODS

Resolve = Callable[[ast.expr], str | None]
# `math` functions of integers or rounding to one: what they take is a count, not a 0-d loss or norm
_COUNTING_MATH = frozenset({"floor", "ceil", "trunc", "log2", "comb", "perm", "factorial", "gcd", "lcm", "isqrt"})
# arguments that take a 0-d tensor as well as a number: (callee, positions); torch.full's fill value too
_VALUE_ARGUMENTS = {"torch.full": (1,), "torch.linspace": (0, 1), "torch.logspace": (0, 1), "narrow": (1,)}
# A text check first, with `in` only (a regular expression over each function's text cost more
# than the walk): a counting call's name, and a candidate written where an argument or a count goes.
# Walking every function with an unannotated parameter cost 0.9% of summarising transformers' models/.
_MARKERS = (
    "range(", "math.", "] *", ") *", "* [", "* (",
    *(f"torch.{factory}(" for factory in SIZE_FACTORIES), *(f".{method}(" for method in SIZE_METHODS),
)


def _mentioned(text: str, names: set[str]) -> set[str]:
    """Those of `names` written as an argument or a count somewhere in `text` (a superset of the uses)."""
    return {
        name for name in names
        if f"({name})" in text or f"({name}," in text or f", {name})" in text or f", {name}," in text
        or f"* {name}" in text or f"{name} *" in text
    }


def number_params(
    body: Iterable[ast.stmt], candidates: Sequence[str], resolve: Resolve, text: str | None
) -> frozenset[str]:
    """Those of `candidates` (parameter names) `body` uses as a Python number and never rebinds."""
    if not candidates:
        return frozenset()
    if text is not None and not any(marker in text for marker in _MARKERS):
        return frozenset()
    names = set(candidates) if text is None else _mentioned(text, set(candidates))
    if not names:
        return frozenset()
    used: set[str] = set()
    stored: set[str] = set()
    for node in local_nodes(body):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                stored.add(node.id)
        elif isinstance(node, ast.Call):
            used.update(_counted_arguments(node, names, resolve))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            used.update(_repeat_count(node, names))
    return frozenset(used - stored)


def _counted_arguments(node: ast.Call, names: set[str], resolve: Resolve) -> list[str]:
    if not any(isinstance(arg, ast.Name) and arg.id in names for arg in node.args):
        return []
    resolved = resolve(node.func)
    if resolved == "builtins.range" or (
        resolved is not None and resolved.startswith("math.") and resolved[len("math."):] in _COUNTING_MATH
    ):
        callee = resolved
    elif resolved is not None and resolved.startswith("torch.") and resolved[len("torch."):] in SIZE_FACTORIES:
        callee = resolved  # `torch.zeros(batch, width)`
    elif resolved is None and isinstance(node.func, ast.Attribute) and node.func.attr in SIZE_METHODS:
        callee = node.func.attr  # `x.view(-1, width)`, `x.new_zeros(batch)`
    else:
        return []
    values = _VALUE_ARGUMENTS.get(callee, ())
    return [
        arg.id for i, arg in enumerate(node.args)
        if isinstance(arg, ast.Name) and arg.id in names and i not in values
    ]


def _repeat_count(node: ast.BinOp, names: set[str]) -> list[str]:
    """`[x] * n`, `(0,) * n`, `n * [x]`: a sequence display repeated, `n` a count."""
    for count, sequence in ((node.right, node.left), (node.left, node.right)):
        if isinstance(count, ast.Name) and count.id in names and isinstance(sequence, (ast.List, ast.Tuple)):
            return [count.id]
    return []
