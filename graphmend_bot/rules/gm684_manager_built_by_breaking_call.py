"""GM684 manager-built-by-breaking-call: its documentation, in one place with how it is detected.

The traversal asks at each call a `with` enters outside any loop or `try` block; the scope solver
keeps the finding when the call constructs a context-manager class of the tree (a class with
`__enter__`, no nn.Module) whose `__init__` breaks, itself or in a callee, other than on an error
or misconfiguration branch, on a line the call's arguments run (`if verbose:` with `verbose` left
at a falsy default runs nothing, and so does `if self.verbose:` after `self.verbose = verbose`;
analysis/built_managers.py has the measurements).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _built(rule: Rule, checker: Checker, call: ast.Call) -> None:
    checker.report_if_construction_breaks(
        rule,
        call,
        "Building this context manager breaks the graph: Dynamo builds it eagerly and then cannot "
        "enter an object built outside the graph",
    )


RULE = Rule(
    code="GM684",
    name="manager-built-by-breaking-call",
    family="not traceable",
    gb_id="GB0142",
    summary=(
        "Flags `with Cls(...):` in traced code, outside any loop or `try` block, when `Cls` is a "
        "context-manager class of the checked tree (it has `__enter__`, it is no nn.Module) whose "
        "`__init__` breaks (a `print`, a clock read, a call Dynamo skips), itself or in a callee, "
        "other than on an error or misconfiguration branch, or under an `if verbose:` on a parameter "
        "the call leaves at its falsy default (or passes a falsy literal)."
    ),
    why=(
        "Dynamo enters a context manager of your code only when it built the object in the graph. "
        "When the constructor breaks, Dynamo runs the construction eagerly and resumes after the "
        "call with the finished object as an input: a manager built outside the graph, which it "
        'cannot enter (GB0142 "Unsupported context manager" at the `with`, measured on torch '
        "2.13), so the graph breaks twice, inside `__init__` and at the `with`."
    ),
    example=(
        "class Section:\n"
        "    def __init__(self, name):\n"
        "        self.start = time.perf_counter()\n"
        "    def __enter__(self):\n"
        "        return self\n"
        "    def __exit__(self, *exc):\n"
        "        return False\n\n"
        "with Section('attention'):\n"
        "    x = self.attention(x)"
    ),
    use_instead=(
        "class Section:\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
        "    def __enter__(self):\n"
        "        return self\n"
        "    def __exit__(self, *exc):\n"
        "        return False\n\n"
        "with Section('attention'):\n"
        "    x = self.attention(x)"
    ),
    fix_safety=(
        "No automatic fix: remove the break from the constructor (its own finding has the advice), "
        "or enter the manager outside the compiled function."
    ),
    detection=Detection(built_manager=_built),
    advice=(
        "Building the manager in `{code}` breaks the graph, and Dynamo cannot enter a manager built "
        "eagerly: remove the break from its `__init__`, or enter it outside the compiled function"
    ),
)
