"""function_aliases: the locals naming one of several functions, looked up lazily."""

from __future__ import annotations

import ast

from graphmend_bot.analysis.function_aliases import function_aliases

SOURCE = '''
def f(x, mode):
    if mode:
        fn = quadratic
    else:
        fn = splines.rational
    try:
        g = helper
    except ValueError:
        pass
    h = first
    [h for h in x]                 # a comprehension binds h too: its value is unknown
    k = other
    if (k := pick(x)) is None:     # so does a walrus
        pass
    m = chosen
    m += 1                         # and an augmented assignment
    def inner():
        n = nested_only            # another scope
    for p in x:
        q = self.block
    return fn(x), g(x), h(x), k(x), m(x), q(x)
'''


def test_aliases_are_the_locals_only_ever_bound_to_a_name_or_attribute() -> None:
    function = ast.parse(SOURCE).body[0]
    assert isinstance(function, ast.FunctionDef)
    aliases = function_aliases(function.body)
    assert "fn" in aliases and aliases["fn"] == ("name:quadratic", "dotted:splines.rational")
    assert aliases["g"] == ("name:helper",) and aliases["q"] == ("self:block",)
    for unknown in ("h", "k", "m", "n", "x", "mode", "quadratic"):
        assert unknown not in aliases
    assert dict(aliases) == {"fn": ("name:quadratic", "dotted:splines.rational"), "g": ("name:helper",),
                             "q": ("self:block",)}


def test_a_choice_between_module_functions_is_an_alias_and_a_choice_of_values_is_not() -> None:
    """torchcde's `odeint = torchdiffeq.odeint_adjoint if adjoint else torchdiffeq.odeint` names
    either function; `out = self.cached if out is None else out` picks a value, and `pick = a if c
    else b` may be values too: their calls are not sent to both arms."""
    body = ast.parse(
        "def f(x, adjoint, out, c):\n"
        "    odeint = torchdiffeq.odeint_adjoint if adjoint else torchdiffeq.odeint\n"
        "    out = self.cached if out is None else out\n"
        "    pick = a if c else b\n"
        "    return odeint(x), out(x), pick(x)\n"
    ).body[0]
    aliases = function_aliases(body.body)  # type: ignore[attr-defined]
    assert aliases["odeint"] == ("dotted:torchdiffeq.odeint_adjoint", "dotted:torchdiffeq.odeint")
    assert "out" not in aliases and "pick" not in aliases
