"""shadowed_builtins: the bindings that hide a builtin name, scope by scope."""

from __future__ import annotations

import ast
import builtins
import textwrap

import pytest

from graphmend_bot.analysis.shadowed_builtins import (
    BUILTIN_NAMES,
    Shadows,
    builtin_called,
    function_shadows,
    module_bindings,
)
from graphmend_bot.analysis.statement_forms import builds_dict, submodule_iteration
from graphmend_bot.vocabulary.star_exports import STAR_EXPORTED_BUILTINS


@pytest.mark.parametrize("module", sorted(STAR_EXPORTED_BUILTINS))
def test_the_star_exports_are_what_the_installed_module_binds(module: str) -> None:
    pytest.importorskip(module)
    namespace: dict[str, object] = {}
    exec(f"from {module} import *", namespace)  # the measurement itself
    assert STAR_EXPORTED_BUILTINS[module] == (namespace.keys() & set(dir(builtins))) - {"__builtins__"}


def _shadows(source: str) -> tuple[Shadows, list[ast.Name]]:
    """The function's shadows, and its calls of bare names in the order written."""
    text = textwrap.dedent(source)
    function = ast.parse(text).body[-1]
    assert isinstance(function, ast.FunctionDef)
    calls = [n.func for n in ast.walk(function) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    ordered = sorted(calls, key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
    return function_shadows(function, frozenset(), text.splitlines()), ordered  # type: ignore[return-value]


def test_a_comprehension_target_hides_the_builtin_inside_it_only() -> None:
    shadows, calls = _shadows("""
        def f(xs):
            ys = [len(len) for len in xs if len(len)]
            zs = [v for len in len(xs) for v in len]
            return len(ys)
    """)
    # inside the first comprehension (element and filter): the target; its first iterable and
    # the call after it: the builtin
    assert [shadows.hides(call.id, call) for call in calls] == [True, True, False, False]


def test_a_walrus_and_a_match_capture_bind_in_the_function() -> None:
    shadows, calls = _shadows("""
        def f(x):
            match x:
                case [first, *rest] if (print := log):
                    pass
                case {"k": v, **max}:
                    pass
            return print(max(x))
    """)
    assert all(shadows.hides(call.id, call) for call in calls)


def test_a_target_over_lines_is_walked_too() -> None:
    shadows, calls = _shadows("""
        def f(pairs):
            return [len(a) for (len,
                                a) in pairs]
    """)
    assert shadows.hides("len", calls[0])


def test_a_star_import_of_torch_binds_pow_but_not_print() -> None:
    tree = ast.parse("from torch import *\nfrom os import *\nfrom .local import *\n")
    found = module_bindings(tree, [], "")
    assert "pow" in found and "int" in found and "print" not in found
    assert found <= BUILTIN_NAMES


def _builtin_of(shadows: Shadows):
    """FunctionState.builtin_of for a function with no imports."""
    return lambda func: None if isinstance(func, ast.Name) and shadows.hides(func.id, func) else builtin_called(func, None)


def test_a_local_enumerate_or_dict_is_no_submodule_iteration_nor_a_dict() -> None:
    source = """
        def forward(self, x, pairs):
            for i, layer in enumerate(self.layers):
                x = layer(x)
            enumerate = pairs
            for i, layer in enumerate(self.layers):
                x = layer(x)
            table = dict(a=1)
            dict = pairs
            other = dict(a=1)
            return x
    """
    shadows, _ = _shadows(source)
    function = ast.parse(textwrap.dedent(source)).body[0]
    loops = [n for n in ast.walk(function) if isinstance(n, ast.For)]
    # `enumerate` is bound in the function, so both loops run the binding (Python's scoping)
    assert [submodule_iteration(loop, _builtin_of(shadows)) for loop in loops] == [None, None]
    unbound, _ = _shadows(source.replace("enumerate = pairs", "pass").replace("dict = pairs", "pass"))
    assert submodule_iteration(loops[0], _builtin_of(unbound)) == ("layer", "self:layers[]")
    values = [n for n in ast.walk(function) if isinstance(n, ast.Call) and ast.unparse(n.func) == "dict"]
    assert [builds_dict(value, _builtin_of(shadows)) for value in values] == [False, False]
    assert builds_dict(values[0], _builtin_of(unbound)) is True


def test_what_only_type_checkers_see_binds_nothing() -> None:
    """`if TYPE_CHECKING:` never runs: its imports (transformers' `__init__`s star-import every
    submodule there) bind no builtin, and the star-imported modules are not read at all."""
    import ast

    from graphmend_bot.analysis.shadowed_builtins import module_bindings

    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .ops import *\n    from .ops import max\nelse:\n    sum = 0\n"
        "import typing\nif typing.TYPE_CHECKING:\n    min = None\n"
    )
    asked: list[ast.ImportFrom] = []

    def star(node: ast.ImportFrom) -> list[str]:
        asked.append(node)
        return ["pow"]

    assert module_bindings(ast.parse(source), (), source, star) == {"sum"}
    assert asked == []
