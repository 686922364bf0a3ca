"""GM660 breaking-context-manager: its documentation, in one place with how it is detected.

A break in the body of such a `with` (a class of the tree, a generator, `contextlib.suppress`, ...)
does the same: Dynamo takes no break under a manager it inlines (analysis/manager_bodies.py).

The traversal asks at each `with helper(...):` / `with Cls(...):` outside any `try` or `with` block,
after two tensor operations at the top of the function (where Dynamo keeps a point it can resume
at); the scope solver keeps the finding when entering runs a `@contextlib.contextmanager` generator
of the tree, or the class's `__enter__` or `__exit__`, that breaks, itself or in a callee, other
than on an error or misconfiguration branch, and nothing broke since the first of those two
operations (analysis/entered_managers.py has the measurements).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _entered(rule: Rule, checker: Checker, entered: ast.expr) -> None:
    checker.report_if_entered_manager_breaks(
        rule, entered, "The context manager entered here breaks inside: Dynamo cannot resume in it, so it compiles "
        "the graph up to this `with` and runs the rest of the function eagerly"
    )


# Managers of the standard library and torch that Dynamo inlines as generic ones, which take no
# break under them (measured on torch 2.13, tests/fixtures/rules/GM660_breaking_context_manager.py).
INLINED_MANAGERS = frozenset({"contextlib.suppress", "contextlib.ExitStack", "torch.autograd.forward_ad.dual_level"})


def _body(rule: Rule, checker: Checker, entered: ast.expr, name: str | None) -> None:
    checker.report_if_manager_body_breaks(
        rule, entered, "The body of this `with` breaks under a context manager Dynamo inlines, which takes no "
        "graph break: it compiles the graph up to this `with` and runs the rest of the function eagerly",
        name in INLINED_MANAGERS,
    )


RULE = Rule(
    code="GM660",
    name="breaking-context-manager",
    family="not traceable",
    gb_id="",
    break_reason="step_unsupported",
    summary=(
        "Flags `with helper(...):` in traced code when `helper` is a `@contextlib.contextmanager` "
        "generator of the checked tree with a graph break inside (before or after its `yield`), and "
        "`with Cls(...):` (or `with timer:` on a local built by `Cls(...)`) when the class's `__enter__` "
        "or `__exit__` breaks (a `print`, a clock read), other than on an error or misconfiguration "
        "branch; and such a `with` (or `contextlib.suppress`, `contextlib.ExitStack`, "
        "`torch.autograd.forward_ad.dual_level`) whose body breaks, Dynamo taking no break under a "
        "manager it inlines; entered outside any `try` or `with` block after two tensor operations of "
        "the function with no graph break since the first of them."
    ),
    why=(
        "TorchDynamo traces a context manager of your code inline, under the `with`. A graph break "
        "inside it cannot be resumed from there, so Dynamo goes back to the last point of the "
        "function it can resume at, the `with` statement, compiles the graph up to it and runs the "
        "rest of the function eagerly (measured on torch 2.13: the census records "
        "\"step_unsupported\" at the `with` line, beside the break inside). With fewer than two "
        "operations in the graph there is no such point (after a break Dynamo resumes with an empty "
        "graph), and Dynamo skips the whole function."
    ),
    example=(
        "class Steps:\n"
        "    @staticmethod\n"
        "    @contextlib.contextmanager\n"
        "    def announced(name):\n"
        "        print('entering', name)\n"
        "        yield\n\n"
        "x = self.norm(x)\n"
        "x = x * 2\n"
        "with Steps.announced('attention'):\n"
        "    x = self.attention(x)"
    ),
    use_instead=(
        "class Steps:\n"
        "    @staticmethod\n"
        "    @contextlib.contextmanager\n"
        "    def announced(name):\n"
        "        yield\n\n"
        "x = self.norm(x)\n"
        "x = x * 2\n"
        "with Steps.announced('attention'):\n"
        "    x = self.attention(x)"
    ),
    fix_safety=(
        "No automatic fix: remove the break inside the manager (its own finding has the advice), "
        "or enter the manager outside the compiled function."
    ),
    detection=Detection(entered_call=_entered, manager_body=_body),
    advice=(
        "`{code}` enters a context manager that breaks inside, so Dynamo compiles only up to here and "
        "runs the rest of the function eagerly: remove the break inside the manager, or enter it "
        "outside the compiled function"
    ),
)
