"""GM608 break-inside-dependency: its documentation, in one place with how it is detected.

Only when `dependencies` (config) stands for some package (named, or `auto`: the installed
torch libraries the tree imports), the traversal asks at each call the scope solver
resolves; the solver keeps the finding when the callee lies in a dependency and breaks there, and
quotes that break (analysis/dependency_breaks.py; an operator on objects an isinstance test proves
there when the call passes it objects), when the keywords it passes are sorted there and
are not Python constants (analysis/keyword_sorts.py), or when it constructs an in-tree class whose
`super().__init__` breaks inside (analysis/breaking_constructions.py)."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _call_into_dependency(rule: Rule, checker: Checker, call: ast.expr) -> None:
    """Measured on torch 2.13 (tests/fixtures/dependency): the project's innermost frame on the
    stack of a break inside an installed package is the call into it."""
    checker.report_if_dependency_breaks(rule, call, "breaks inside a dependency")


RULE = Rule(
    code="GM608",
    name="break-inside-dependency",
    family="not traceable",
    gb_id="GB0007",  # a default, as GM604's: each finding carries the id of the break inside
    other_gb_ids=("GB0207",),  # "sort with non-constant keys": a tensor passed by a sorted keyword
    summary=(
        "Flags a call from traced code into an installed package of `dependencies` (config: names, "
        "or `auto` for the installed torch libraries the tree imports; none by default) "
        "when the function it reaches there, or anything that function calls inside the package, "
        "has a graph break. The finding is at the call line and quotes the break inside. Also: a "
        "call passing a tensor or an object (`kernel=self`, or a parameter given one) by a keyword "
        "the dependency sorts with `sorted(kwargs.items())`, and the construction of an in-tree "
        "class whose `super().__init__` breaks inside the dependency."
    ),
    why=(
        "Dynamo inlines the dependency's code into the graph, and a break there splits the graph "
        "as one in the project's own code does. Dynamo's report points into the installed package; "
        "the innermost line of the project's own code on that stack is the call, which is what the "
        "project can change (measured on torch 2.13 with a package on sys.path: explain's "
        "user_stack names the call line as the project's innermost frame)."
    ),
    example=(
        "# .graphmend.yml: dependencies: [auto] (or [fakedep]); fakedep is installed and requires torch\n"
        "# fakedep/ops.py: def branching(x):\n"
        "#                     y = x * 2\n"
        "#                     if y.sum() > 0: ...\n"
        "from fakedep.ops import branching\n"
        "y = branching(x)"
    ),
    use_instead=(
        "# A function of the dependency that does not break (fakedep.ops: `def clean(x):\n"
        "# return torch.relu(x) * 2`), or the breaking one called outside the compiled region.\n"
        "from fakedep.ops import clean\n"
        "y = clean(x)"
    ),
    fix_safety=(
        "No automatic fix: the code that breaks is not the project's. Report it upstream, or change "
        "the call."
    ),
    detection=Detection(dependency_call=_call_into_dependency),
    advice=(
        "`{code}` reaches a graph break inside an installed package (quoted above): call a form of its API "
        "that does not break, call it outside the compiled region, or report the break upstream"
    ),
)
