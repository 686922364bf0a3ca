"""GM619 super-object-method-call: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0006_super_object_method.py,
gb0006_super_rich_comparison.py): `super().__eq__(other)` and the other rich comparisons (`__ne__`,
`__lt__`, `__le__`, `__gt__`, `__ge__`), `super().__hash__()`, `super().__repr__()`,
`super().__str__()`, `super().__format__(spec)` and `super().__dir__()` break with GB0006 when no
class after it in the instance's MRO defines the method, so that `super()` finds `object`'s (a slot
wrapper, not a function Dynamo can inline).
In a subclass of a builtin exception (tests/coverage_probes/gb0006_exception_super_init.py),
`super().__init__(message)` breaks the same way: it reaches BaseException's `__init__`, a C slot,
when the exception is built in traced code (`raise ShapeError(...)`, or kept); `super().__str__()`
and `super().__repr__()` there trace (Dynamo models BaseException's). The scope solver decides
both from the MROs of the class and its subclasses (analysis/super_calls.py). So is
`super().NAME(...)` whose NAME the first class after it binds to no function (a property, a
`cached_property`, `lru_cache` or `partialmethod` method, a `functools.partial`, an object such as `act = Scale()`):
tests/coverage_probes/gb0006_super_attribute_not_a_function.py.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary import known_names as V

READ, PROPERTY_READ = V.SUPER_READ, V.SUPER_PROPERTY_READ


def _super_call(rule: Rule, checker: Checker, call: ast.Call, method: str) -> None:
    if method in V.TENSOR_METHODS_REFUSED_VIA_SUPER:
        return  # torch.Tensor's, reached in a tensor subclass: GM701's
    if method == "__init__":  # reported only where the class derives from a builtin exception
        message = ("`super().__init__()` reaches the builtin exception's `__init__` (BaseException's C slot), which "
                   "Dynamo cannot call through `super()`: building this exception breaks the graph")
    elif method in V.OBJECT_METHODS_NOT_VIA_SUPER:
        message = (f"`super().{method}()` reaches `object.{method}`, which Dynamo cannot call through `super()`: "
                   "it breaks the graph")
    else:
        message = (f"`super().{method}()` reaches a `{method}` that is no function (a property, a cached or partial "
                   "method, an object), which Dynamo cannot call through `super()`: it breaks the graph")
    checker.report_if_super_reaches_object(rule, call, method, message)


def _super_read(rule: Rule, checker: Checker, node: ast.Attribute, name: str) -> None:
    message = (f"`super().{name}` reads a property through `super()`: Dynamo gets the property object, not its "
               "value, and the first use of it raises (Observed exception)")
    checker.report_if_super_reaches_object(rule, node, READ + name, message, gb_id=PROPERTY_READ)


RULE = Rule(
    code="GM619",
    name="super-object-method-call",
    family="not traceable",
    gb_id="GB0006",
    summary=(
        "Flags `super().__eq__(...)` and the other rich comparisons (`__ne__`, `__lt__`, `__le__`, "
        "`__gt__`, `__ge__`), `super().__hash__()`, `super().__repr__()`, `super().__str__()`, "
        "`super().__format__(...)` and `super().__dir__()` in traced code when no class after it in "
        "its MRO, or in the MRO of a subclass of the tree (a mixin's sibling base), defines the "
        "method (all of them classes of the checked tree, `object` or `nn.Module`); and "
        "`super().__init__(...)` in a subclass of a builtin exception (`class ShapeError(ValueError)`) "
        "built in traced code; and `super().NAME(...)` where the first class after it that binds NAME "
        "(in the tree) binds no function: a property, a `cached_property`, `lru_cache`, `cache` or "
        "`singledispatchmethod` method, a `functools.partialmethod` or `functools.partial`, or an object (`act = Scale()`); "
        "and a read of `super().NAME` (not called) where that class binds NAME with `@property`."
    ),
    why=(
        "Through `super()` TorchDynamo inlines Python functions and models a few of `object`'s "
        "methods (`__init__`, `__new__`, `__setattr__`, `__getattribute__`); `object`'s own "
        "rich comparisons, `__hash__`, `__repr__`, `__str__`, `__format__` and `__dir__` are C slots it "
        "cannot call: the call ends the graph (GB0006, measured on torch 2.13), and a caller that "
        "built the object in the same frame breaks too (GB0092). A builtin exception's `__init__` "
        "(BaseException's) is a C slot too: a custom exception whose `__init__` calls "
        "`super().__init__(message)` breaks the graph wherever it is built in traced code. Reading a "
        "base's property through `super()` (`super().features + [\"b\"]`) gives Dynamo 2.13 the property "
        "object itself, so the first operation on it raises TypeError inside the trace: GB0088."
    ),
    example=(
        "class Box:\n"
        "    def __init__(self, t):\n"
        "        self.t = t\n"
        "\n"
        "    def same(self, other):\n"
        "        return super().__eq__(other)\n"
        "\n"
        "box = Box(x)\n"
        "y = x * box.same(box)"
    ),
    use_instead=(
        "class Box:\n"
        "    def __init__(self, t):\n"
        "        self.t = t\n"
        "\n"
        "    def same(self, other):\n"
        "        return self is other  # what object.__eq__ decides\n"
        "\n"
        "box = Box(x)\n"
        "y = x * box.same(box)"
    ),
    fix_safety=(
        "No automatic fix: write what `object`'s method does (`self is other` for `__eq__`, "
        "`id(self)` based hashing, a fixed text for `__repr__`), or call it outside the compiled "
        "function. For an exception, pass the arguments on without `__init__` (define only "
        "`__str__`, or a `@classmethod` that builds the message), or raise it outside the compiled "
        "function."
    ),
    other_gb_ids=(PROPERTY_READ,),
    detection=Detection(super_method_call=_super_call, super_read=_super_read),
    advice=("`{code}` calls `object`'s or a builtin exception's method through `super()`, which Dynamo cannot "
            "trace: write what it does (`self is other` for `__eq__`)"),
)
