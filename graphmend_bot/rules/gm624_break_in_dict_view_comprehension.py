"""GM624 break-in-dict-view-comprehension: its documentation, in one place with how it is detected.

Measured on torch 2.13, Python 3.11 (tests/coverage_probes/gb0092_break_in_dict_view_comprehension.py):
a list, set or dict comprehension over `d.items()`, `d.values()` or `d.keys()` is a frame of its
own, handed a dict iterator; when a call inside it breaks, Dynamo cannot rebuild that iterator to
resume after the call ("Reconstruction failure", GB0092) and breaks at the comprehension too, on
its first line (the outer frame's call of it). So does one over an nn.ModuleList, Sequential or
ModuleDict the module's `__init__` built (`[layer(x) for layer in self.layers]`): their iterator
is a dict iterator over `_modules` (module_containers.py, tests/test_module_containers.py).
Over a list, a tuple, `zip` or `range` it resumes (measured); `enumerate(...)` breaks with another
id (GB8335) and a dict iterated directly with GB4347, not reported here. The traversal asks at
each call that may land in the tree inside such a comprehension; the scope solver keeps the
finding when the callee breaks. Python 3.12 inlines comprehensions (PEP 709): never reported there.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _view_call(rule: Rule, checker: Checker, call: ast.Call, comprehension: ast.expr) -> None:
    if isinstance(comprehension, ast.Call):
        return  # a builtin consuming a generator expression (GM666)
    checker.report_if_callee_breaks(
        rule, call, "A call in this comprehension breaks, and it iterates a dict iterator (a dict view, or "
        "an nn.ModuleList, Sequential or ModuleDict): Dynamo cannot rebuild that iterator to resume after "
        "the call, and gives up on the comprehension",
        at=comprehension,  # Dynamo reports the comprehension's first line, its frame's call
    )


RULE = Rule(
    code="GM624",
    name="break-in-dict-view-comprehension",
    family="not traceable",
    gb_id="GB0092",
    summary=(
        "Flags a list, set or dict comprehension in traced code over `d.items()`, `d.values()`, "
        "`d.keys()` or an nn.ModuleList / Sequential / ModuleDict, a call in which breaks "
        "(directly or in its callees) (Python < 3.12)."
    ),
    why=(
        "Before Python 3.12 a comprehension runs as a nested function that is handed an iterator "
        "over its iterable. When a call inside it breaks the graph, TorchDynamo must rebuild that "
        "frame's state to resume after the call; it cannot rebuild an iterator over a dict view "
        "(\"Reconstruction failure\", GB0092, measured on torch 2.13), so the comprehension breaks "
        "as well and runs eagerly. nn.ModuleList, Sequential and ModuleDict iterate their "
        "`_modules` dict, so `[layer(x) for layer in self.layers]` does the same. Over a list it resumes."
    ),
    example=(
        "def helper(t):\n"
        "    print(\"scaling\")\n"
        "    return t * 2\n"
        "\n"
        "parts = {\"a\": x, \"b\": x + 1}\n"
        "scaled = {k: helper(v) for k, v in parts.items()}"
    ),
    use_instead=(
        "def helper(t):\n"
        "    print(\"scaling\")\n"
        "    return t * 2\n"
        "\n"
        "parts = {\"a\": x, \"b\": x + 1}\n"
        "scaled = {k: helper(v) for k, v in list(parts.items())}  # a list: Dynamo resumes"
    ),
    fix_safety=(
        "No automatic fix: remove the break in the callee (its own finding says how), or iterate a "
        "list of the items (`list(d.items())`), whose iterator Dynamo rebuilds."
    ),
    detection=Detection(dict_view_comprehension_call=_view_call),
    advice=("`{code}` breaks inside a comprehension over a dict iterator: remove the break in the callee, or "
            "iterate `list(d.items())` / `list(self.layers)`"),
)
