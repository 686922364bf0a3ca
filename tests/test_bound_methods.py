"""Which assignments make an attribute hold its object's own bound methods (analysis/bound_methods.py)."""

import ast
import textwrap

import pytest

from graphmend_bot.analysis.bound_methods import bound_method_names, decode, encode
from graphmend_bot.analysis.summary import summarize_module


def names(expression: str) -> tuple[str, ...]:
    return bound_method_names(ast.parse(expression, mode="eval").body)


@pytest.mark.parametrize(("expression", "expected"), [
    ("self.step", ("step",)),
    ("{'diagonal': self.step_diagonal, 'additive': self.step_additive}.get(noise, self.step_default)",
     ("step_diagonal", "step_additive", "step_default")),
    ("{'diagonal': self.step_diagonal}[noise]", ("step_diagonal",)),
    ("self.fast if fast else self.slow", ("fast", "slow")),
    ("getattr(sde, 'f', self.f_default)", ("f_default",)),
    ("{NOISE.general: (self.v2 if fast else self.v1)}.get(noise, self._zero)", ("v2", "v1", "_zero")),
    ("{**others, 'a': self.a}.get(k)", ("a",)),
])
def test_the_methods_an_assignment_may_store(expression, expected):
    assert names(expression) == expected


@pytest.mark.parametrize("expression", [
    "sde.f",  # another object's method: not this object's
    "getattr(sde, 'f')",
    "{'a': sde.f}.get(k)",
    "make(self.f)",  # what a call returns is not the argument
    "self.f()",
    "1.0",
])
def test_values_that_are_not_own_bound_methods(expression):
    assert names(expression) == ()


def test_encoding_keeps_each_name_once_and_reads_back():
    assert decode(encode(("a", "b", "a"))) == ("a", "b")
    assert decode("typed:Foo") == ()
    assert decode(encode(())) == ()


def _attributes(source: str, cls: str) -> dict[str, str]:
    return summarize_module(textwrap.dedent(source), "m.py", "m", False).classes[cls].attributes


def test_a_getattr_or_staticmethod_the_module_or_init_binds_holds_no_method() -> None:
    """`getattr(obj, "f", self.m)` holds `self.m` only when `getattr` is the builtin; the same for
    `staticmethod(f)` in a class body. A module's own binding, or a parameter of `__init__`, runs
    instead (shadowed_builtins.py)."""
    source = """
        def rbf(x):
            return x


        class Held:
            kernel = staticmethod(rbf)

            def __init__(self, sde):
                self.f = getattr(sde, "f", self.f_default)

            def f_default(self, x):
                return x
    """
    held = _attributes(source, "Held")
    assert decode(held["f"]) == ("f_default",) and held["kernel"].endswith("rbf")
    rebound = _attributes("from tools import getattr, staticmethod\n" + textwrap.dedent(source), "Held")
    assert "f" not in rebound or not decode(rebound["f"])
    assert "kernel" not in rebound
    by_parameter = _attributes(source.replace("def __init__(self, sde)", "def __init__(self, sde, getattr=None)"), "Held")
    assert not decode(by_parameter.get("f", ""))
