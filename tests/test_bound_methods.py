"""Which assignments make an attribute hold its object's own bound methods (analysis/bound_methods.py)."""

import ast

import pytest

from graphmend_bot.analysis.bound_methods import bound_method_names, decode, encode


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
