"""GM611 comprehension-in-skipped-frame: its documentation, in one place with how it is detected.

The traversal asks at each list, set or dict comprehension over a list, dict or set (or over a local bound
to a call's result: the solver then requires every in-tree callee to return a list, dict or set,
analysis/collection_returns.py) that captures a value of the enclosing function, after a draft or a call inside a `try` or loop body, a property read or a
`with` Dynamo cannot enter (tests/test_frame_skipping_reads.py); the scope solver
keeps the finding when the captured value is a tensor and a break there (or in the callee) makes
Dynamo skip the frame (analysis/skipped_frames.py). Python 3.11 only: 3.12 inlines comprehensions.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind


def _comprehension(rule: Rule, checker: Checker, node: ast.expr, captured: Kind) -> None:
    checker.report_if_frame_skipped(
        rule, node, "Comprehension over a list, dict or set in a frame Dynamo skips after an earlier break in a "
        "`try` or loop body: it compiles the comprehension as its own frame and cannot step its "
        "iterator", captured,
    )


RULE = Rule(
    code="GM611",
    name="comprehension-in-skipped-frame",
    family="not traceable",
    gb_id="GB4347",
    summary=(
        "Flags a list, set or dict comprehension over a list, dict (or its `keys()`, `values()`, "
        "`items()`) or set (also a local bound to a call whose in-tree callees return one: by their "
        "return annotation, `-> dict`, or by every `return`) that reads a tensor of the enclosing "
        "function, after a graph break inside a `try` or loop body of that function, or before a "
        "`try` whose body breaks when fewer than two tensor operations come before it, or after a "
        "break Dynamo cannot resume from: a property read whose getter breaks (a "
        "`functools.cached_property` read takes a lock), a `with` it cannot enter (Python < 3.12)."
    ),
    why=(
        "A graph break inside a `try` block or a loop makes TorchDynamo give up on the whole frame "
        "and run it eagerly (from the start when the graph held fewer than two operations before the "
        "`try`: it has no earlier point to resume at). A break in a property getter or at a `with` "
        "Dynamo cannot enter is on an instruction it cannot resume after (an attribute load, entering "
        "the manager): it runs the rest of the frame eagerly. Before Python 3.12 a comprehension is a nested function, so each one "
        "that runs afterwards is a new frame Dynamo compiles on its own when it holds a tensor; it is "
        "handed its list as an iterator, which Dynamo cannot step (\"Dynamo does not support next() "
        "on list_iterator\", or `dict_keyiterator`, `set_iterator`), and breaks again. Iterating a tuple "
        "or a range traces."
    ),
    example=(
        "order = [1, 0]\n"
        "try:\n"
        "    scale = weights.sum().item()\n"
        "except RuntimeError:\n"
        "    scale = 1.0\n"
        "parts = [x[i] for i in order]"
    ),
    use_instead=(
        "order = [1, 0]\n"
        "try:\n"
        "    scale = weights.sum().item()\n"
        "except RuntimeError:\n"
        "    scale = 1.0\n"
        "parts = [x[i] for i in tuple(order)]"
    ),
    fix_safety=(
        "No automatic fix. Remove the break in the `try` or loop body (its own finding says how), so "
        "Dynamo no longer skips the frame, or iterate a tuple (`tuple(order)`) or use a `for` loop."
    ),
    detection=Detection(skipped_frame_comprehension=_comprehension),
    advice=(
        "Dynamo skipped this function after a break in a `try` or loop body, then compiles `{code}` "
        "on its own: remove that break, or iterate a tuple (`tuple(...)`) or use a `for` loop"
    ),
)
