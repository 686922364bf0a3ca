"""GM683 classmethod-behind-metaclass-getattribute: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb5458_metaclass_getattribute.py): calling a
classmethod on a class whose metaclass defines `__getattribute__` (`Registry.make(x)`), its own
or inherited, breaks with GB5458; a plain class attribute, a staticmethod or a function read from
the class trace (tests/fixtures/rules/GM683_classmethod_behind_metaclass_getattribute.py). The
class, its metaclass and their bases are read from the module that calls it
(analysis/guarded_classes.py); a class imported from another module is not judged.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR


def _guarded_call(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    message = (
        f"looking up a classmethod of `{name}`, whose metaclass defines `__getattribute__`, breaks the graph"
    )
    checker.report(rule, call, message, TENSOR)


RULE = Rule(
    code="GM683",
    name="classmethod-behind-metaclass-getattribute",
    family="not traceable",
    gb_id="GB5458",
    summary=(
        "Flags `Cls.method(...)` in traced code, a classmethod of a class whose metaclass defines "
        "`__getattribute__` (classes of the same module)."
    ),
    why=(
        "A metaclass's `__getattribute__` replaces Python's lookup of attributes on its classes, "
        "which TorchDynamo does not trace: reaching a classmethod through it ends the graph "
        "(GB5458, measured on torch 2.13) and the call runs eagerly."
    ),
    example=(
        "class Guarded(type):\n"
        "    def __getattribute__(cls, name):\n"
        "        return super().__getattribute__(name)\n"
        "class Registry(metaclass=Guarded):\n"
        "    @classmethod\n"
        "    def scaled(cls, t):\n"
        "        return t * 2\n"
        "y = Registry.scaled(x)"
    ),
    use_instead=(
        "class Guarded(type):\n"
        "    def __getattribute__(cls, name):\n"
        "        return super().__getattribute__(name)\n"
        "class Registry(metaclass=Guarded):\n"
        "    @staticmethod\n"
        "    def scaled(t):  # a staticmethod traces\n"
        "        return t * 2\n"
        "y = Registry.scaled(x)"
    ),
    fix_safety=(
        "No automatic fix: a classmethod that does not use `cls` can become a staticmethod or a "
        "module-level function; otherwise look the method up outside the compiled function."
    ),
    detection=Detection(guarded_class_call=_guarded_call),
    advice=(
        "`{code}` reaches a classmethod through a metaclass's `__getattribute__` while tracing: make it "
        "a staticmethod or a module-level function"
    ),
)
