"""code_text: a function's text with its docstring blanked, every line and column of code kept."""

from __future__ import annotations

import ast
import textwrap

from graphmend_bot.analysis import shadowed_builtins
from graphmend_bot.analysis.code_text import function_text


def _function(source: str) -> tuple[ast.FunctionDef, list[str]]:
    text = textwrap.dedent(source)
    node = ast.parse(text).body[-1]
    assert isinstance(node, ast.FunctionDef)
    return node, text.splitlines()


def test_the_docstring_is_blanked_and_the_code_keeps_its_place() -> None:
    node, lines = _function('''
        def f(x):
            """Loops for the model, over `torch.Tensor` éléments,
            with care; yield nothing."""
            return x
    ''')
    text = function_text(node, lines)
    assert text.splitlines()[0] == "def f(x):"
    assert text.splitlines()[-1] == "    return x"
    assert [len(line.encode()) for line in text.splitlines()] == [len(line.encode()) for line in lines[1:]]
    assert not any(word in text for word in ("for", "torch", "with", "yield", "Loops"))


def test_code_on_the_docstrings_lines_stays() -> None:
    node, lines = _function("""
        def f(xs): "prose for the model,"; return [len(x) for len in xs]
    """)
    text = function_text(node, lines)
    assert text.startswith("def f(xs): ") and text.endswith("; return [len(x) for len in xs]")
    assert "prose" not in text


def test_a_function_without_a_docstring_is_its_text() -> None:
    node, lines = _function("""
        def f(xs):
            "a" + "b"
            return xs
    """)
    assert function_text(node, lines) == "\n".join(lines[1:])


def test_prose_in_a_docstring_no_longer_sends_the_function_to_the_expression_walk() -> None:
    # a `for` in prose ending in a comma read as a comprehension target continued on the next line
    prose, lines = _function('''
        def f(x):
            """Returns the hidden states for the model,
            one per layer."""
            return len(x)
    ''')
    assert not shadowed_builtins._may_bind_in_expressions(prose, lines)
    code, lines = _function('''
        def f(pairs):
            """Returns the hidden states for the model,
            one per layer."""
            return [len(a) for (len,
                                a) in pairs]
    ''')
    assert shadowed_builtins._may_bind_in_expressions(code, lines)
