"""GM643 dispatch-mode-entered: its documentation, in one place with how it is detected.

The traversal drafts each call of a capitalized name a `with` enters; the scope solver keeps those
that build a TorchDispatchMode subclass of the tree, defined in the same module or imported, through
the tree's own subclasses too (analysis/dispatch_modes.py). Measured on torch 2.13
(tests/coverage_probes/gb0007_dispatch_mode_entered.py, benchmarks/spellings/pm_dispatch_modes.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _entered(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    if checker.is_context_manager(call):
        checker.report_if_enters_dispatch_mode(
            rule,
            call,
            f"entering `{name}`, a TorchDispatchMode, breaks the graph: its `__enter__` is torch's, "
            "in a module Dynamo skips",
        )


RULE = Rule(
    code="GM643",
    name="dispatch-mode-entered",
    family="not traceable",
    gb_id="GB0007",
    summary=(
        "Flags `with Mode(...):` in traced code when `Mode` is a subclass of "
        "`torch.utils._python_dispatch.TorchDispatchMode` defined in the checked tree (in the same "
        "module or imported, directly or through the tree's own subclasses)."
    ),
    why=(
        "A dispatch mode is entered through `TorchDispatchMode.__enter__`, which lives in a torch "
        "module Dynamo's trace rules skip: the `with` line breaks (GB0007 \"Attempted to call "
        'function marked as skipped", measured on torch 2.13) and the block runs eagerly. A '
        "`TorchFunctionMode` subclass is entered and traced."
    ),
    example=(
        "class CountOps(torch.utils._python_dispatch.TorchDispatchMode):\n"
        "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
        "        return func(*args, **(kwargs or {}))\n\n"
        "with CountOps():\n"
        "    y = self.layer(x)"
    ),
    use_instead=(
        "# Enter the mode around the compiled call, outside the compiled region:\n"
        "with CountOps():\n"
        "    y = compiled_model(x)"
    ),
    fix_safety="No automatic fix: the mode's work is eager-only; enter it outside the compiled function.",
    detection=Detection(class_call=_entered),
    advice="Dynamo cannot enter the dispatch mode in `{code}`: enter it outside the compiled function",
)
