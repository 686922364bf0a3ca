"""Generator expressions a builtin consumes in traced code, a call of whose elements breaks (GM666).

Measured on torch 2.13, Python 3.11 (tests/test_consumed_generators.py): `sum`, `any`, `all`, `set`,
`dict` and `functools.reduce` handed a generator expression step it inside Dynamo's trace (the
first four and reduce through Dynamo's polyfills). When a call an element makes breaks, Dynamo
cannot rebuild the generator to resume at the consuming call and breaks there too, on the call's
line: "Generator reconstruction with mutations" (GB8335) over a list, a tuple or `enumerate(...)`.
Near misses, measured: `list`, `tuple`, `frozenset`, `min`, `max`, `sorted`, `next` and `str.join`
take the generator and Dynamo resumes. Not reported: a generator over `range(...)` or a dict
iterator (a dict view, an nn.ModuleList / Sequential / ModuleDict: module_containers.py), where it
breaks ("Read uninitialized cell", GB0091) on some spellings and not on others, a call in an arm
that may not run (skipped_frames.element_calls), and a filter on the elements' type, which may
keep only those that trace.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from graphmend_bot.analysis.skipped_frames import element_calls, type_test

Resolve = Callable[[ast.expr], str | None]

# The builtins that step a generator expression inside the trace, by the position they take it at.
_CONSUMERS = {"sum": 0, "any": 0, "all": 0, "set": 0, "dict": 0}
_REDUCE = "functools.reduce"


def consumed(call: ast.Call, builtin: Resolve, resolve: Resolve) -> ast.GeneratorExp | None:
    """The generator expression `call` hands a consuming builtin: `sum(f(v) for v in vs)`,
    `functools.reduce(op, (f(v) for v in vs))` (asked when the first or last argument is one)."""
    func = call.func
    if isinstance(func, ast.Name) and (name := builtin(func)) in _CONSUMERS:
        position = _CONSUMERS[name]
    elif isinstance(func, (ast.Name, ast.Attribute)) and resolve(func) == _REDUCE:
        position = 1
    else:
        return None
    argument = call.args[position] if len(call.args) > position else None
    return argument if isinstance(argument, ast.GeneratorExp) else None


def element_call_sites(call: ast.Call, builtin: Resolve, resolve: Resolve) -> Iterator[tuple[int, ast.expr]]:
    """(id of a call an element makes, the consuming call) for `call` consuming a generator expression."""
    generator = consumed(call, builtin, resolve)
    if generator is None:
        return
    first = generator.generators[0].iter
    if isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and builtin(first.func) == "range":
        return
    if any(type_test(condition) for clause in generator.generators for condition in clause.ifs):
        return
    for element in element_calls(generator):
        yield id(element), call
