"""GM610 metaclass-call-in-eager-frame: its documentation, in one place with how it is detected.

The traversal asks at each `super().__call__(...)` / `type.__call__(cls, ...)` in a `__call__`;
the scope solver keeps the finding when that `__call__` belongs to an in-tree metaclass of a class
that a frame running eagerly builds (analysis/eager_frames.py)."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _metaclass_call(rule: Rule, checker: Checker, call: ast.Call) -> None:
    """Measured on torch 2.13: reported at the `super().__call__` line (also `super(Meta,
    cls).__call__` and `type.__call__(cls, ...)`) when a frame Dynamo gave up on builds an
    instance; not when traced code that is not eager builds it (Dynamo then inlines the class)."""
    checker.report_if_built_eagerly(
        rule, call, "a frame Dynamo gave up on builds an instance of this metaclass's class: Dynamo "
        "then traces this `__call__` on its own and cannot trace `super().__call__`"
    )


RULE = Rule(
    code="GM610",
    name="metaclass-call-in-eager-frame",
    family="not traceable",
    gb_id="GB0006",
    summary=(
        "Flags `super().__call__(...)` in a metaclass's `__call__` when one of its classes is built "
        "in a traced frame that Dynamo gives up on and runs eagerly (after GM605 or GM609 there)."
    ),
    why=(
        "When TorchDynamo cannot resume a frame it runs the frame eagerly, and traces each function "
        "that frame calls as a frame of its own. Building an instance of a class with a Python "
        "metaclass calls the metaclass's `__call__`, and there `super().__call__` is not a function "
        "Dynamo can trace (measured on torch 2.13), so each construction adds a break."
    ),
    example=(
        "class Meta(type):\n"
        "    def __call__(cls, *args, **kwargs):\n"
        "        return super().__call__(*args, **kwargs)\n\n"
        "class Step(metaclass=Meta):\n"
        "    def __init__(self, y):\n"
        "        self.y = y\n\n"
        "class Log:\n"
        "    def __init__(self, *parts):\n"
        "        print(\"parts\", len(parts))\n"
        "        self.parts = parts\n\n"
        "log = Log(*(x * s for s in (1.0, 2.0)))\n"
        "y = Step(x).y * 2"
    ),
    use_instead=(
        "class Meta(type):\n"
        "    def __call__(cls, *args, **kwargs):\n"
        "        return super().__call__(*args, **kwargs)\n\n"
        "class Step(metaclass=Meta):\n"
        "    def __init__(self, y):\n"
        "        self.y = y\n\n"
        "class Log:\n"
        "    def __init__(self, *parts):\n"
        "        print(\"parts\", len(parts))\n"
        "        self.parts = parts\n\n"
        "log = Log(*[x * s for s in (1.0, 2.0)])\n"
        "y = Step(x).y * 2"
    ),
    fix_safety=(
        "No automatic fix. Remove what makes the frame eager (the GM605 or GM609 finding in it), or "
        "build the object outside the compiled function."
    ),
    detection=Detection(metaclass_call=_metaclass_call),
    advice=(
        "`{code}` runs a metaclass's `__call__` on its own because the frame that builds the class "
        "runs eagerly: remove the break that made Dynamo give up on that frame, or build the object "
        "outside the compiled region"
    ),
)
