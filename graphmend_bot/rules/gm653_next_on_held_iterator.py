"""GM653 next-on-held-iterator: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb4347_next_on_held_iterator.py,
tests/fixtures/rules/GM653_next_on_held_iterator.py): `next(it)` on an iterator built outside the
compiled region, held in a module global (`ORDER = itertools.cycle(...)`) or in `self` by
`__init__`, breaks with GB4347 "Missing tp_iternext": Dynamo wraps the outside object as one it
has no `next` for. The same iterators built in the traced frame trace, and so do a held
`itertools.count()`, `iter(range(n))` and `iter(a_tuple)`, which Dynamo models from outside too;
`iter` of a list, set, dict or str breaks (the builder says which: analysis/iterated_builders.py),
`iter` of anything else is not judged. The builders are known only to the scope solver (analysis/held_contexts.py, which
judges GM612's held context managers the same way).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind

# Builders whose iterator, held from outside the compiled region, Dynamo cannot step (each measured).
HELD_ITERATORS = frozenset({
    "map", "zip", "enumerate", "reversed", "filter",
    "itertools.cycle", "itertools.chain", "itertools.repeat", "itertools.islice", "itertools.product",
    "itertools.accumulate",
    # `iter(...)` of a list, set, dict or str (analysis/iterated_builders.py); of a tuple or range it traces
    "iter(list)", "iter(set)", "iter(dict)", "iter(str)",
})  # fmt: skip


def _next(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    if not call.args or isinstance(call.args[0], ast.Starred):
        return None
    held = call.args[0]
    where = "in `__init__`" if isinstance(held, ast.Attribute) else "at module level"
    checker.report_if_held_context_refused(
        rule,
        held,
        f"`next()` on an iterator built {where}: Dynamo cannot step an iterator made outside "
        "the compiled region and breaks the graph",
    )
    return None


RULE = Rule(
    code="GM653",
    name="next-on-held-iterator",
    family="not traceable",
    gb_id="GB4347",
    summary=(
        "Flags `next(NAME)` and `next(self.NAME)` in traced code on an iterator built outside the "
        "compiled region: at module level or in `__init__`, by `itertools.cycle`, `chain`, `repeat`, "
        "`islice`, `product`, `accumulate`, `map`, `zip`, `enumerate`, `reversed`, `filter`, or `iter` of a "
        "list, set, dict or str."
    ),
    why=(
        "TorchDynamo steps the iterators it builds while tracing, but an iterator object that comes "
        "from outside (a global, an attribute set in `__init__`) is one it has no `next` for: it "
        'breaks the graph (GB4347, "Missing tp_iternext", measured on torch 2.13) and the call runs '
        "eagerly. A held `itertools.count()`, `iter(range(n))` or tuple iterator traces; `iter([...])` does not."
    ),
    example=("import itertools\nORDER = itertools.cycle([0, 1])\nhead = next(ORDER)\ny = x[head]"),
    use_instead=(
        "import itertools\n"
        "ORDER = itertools.cycle([0, 1])\n"
        "HEAD = next(ORDER)  # stepped outside the compiled code; pass the value in\n"
        "y = x[HEAD]"
    ),
    fix_safety=(
        "No automatic fix: the iterator's state lives outside the graph. Step it before the compiled "
        "call and pass the value in, or keep a counter (`self.step += 1`, `head = self.step % 2`)."
    ),
    detection=Detection(builtins={"next": _next}, held_context=HELD_ITERATORS.__contains__),
    advice=(
        "Dynamo cannot step an iterator built outside the compiled region in `{code}`: step it "
        "before the compiled call and pass the value in"
    ),
)
