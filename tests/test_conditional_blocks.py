"""The conditional blocks the workers keep per function (conditional_blocks.py) give the tail the
parent read from a parse of its own before: the descent below is that reading, kept as the oracle."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from graphmend_bot.analysis.conditional_blocks import (
    conditional_spans,
    first_definitions,
    it_runs_always,
    tail_in,
)
from graphmend_bot.analysis.held_module_reads import function_definition

ROOT = Path(__file__).resolve().parent.parent

SAMPLE = textwrap.dedent('''
    import torch

    class Block:
        def forward(self, x, flag):
            for layer in self.layers:
                x = layer(x)
            if flag:
                x = x + 1
            elif x.dim() > 2:
                x = x - 1; y = 2
            else:
                x = x * 2
            try:
                x = x.relu()
            except ValueError:
                x = x.abs()
            else:
                x = x + 3
            finally:
                x = x + 4
            while flag:
                with torch.no_grad():
                    if flag: x = x * 5
                flag = False
            else:
                x = x + 6
            match flag:
                case True:
                    x = x + 7
                case _:
                    pass
            if x.dim() > 3:
                raise ValueError(x)
            elif flag:
                x = x + 8
            else:
                x = x + 9
            if flag:

                @staticmethod
                def inner(z):
                    if z:
                        return z
                    return 0

                x = inner(x)
            return x

        def forward(self, x):
            return x

    if torch.cuda.is_available():
        def conditional_def(x):
            return x
    ''')


def _reference_tail(definition: ast.FunctionDef | ast.AsyncFunctionDef, row: int, past_leaving: bool = True) -> int:
    """The descent loop_calls and eager_entries ran on a parse of their own before the spans
    (`past_leaving` False: every `if` arm is a block, as whether a row runs on every call asks)."""
    tail = sys.maxsize
    block: list[ast.stmt] = definition.body
    while True:
        statement = next((s for s in block if s.lineno <= row <= (s.end_lineno or s.lineno)), None)
        if statement is None or isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return tail
        # an `if` arm is no conditional block when the other arm always returns or raises (and it
        # does not): every path past the `if` goes through it
        body_leaves = past_leaving and isinstance(statement, ast.If) and _ends_leaving(statement.body)
        else_leaves = past_leaving and isinstance(statement, ast.If) and _ends_leaving(statement.orelse)
        blocks = [
            (getattr(statement, "body", []), not isinstance(statement, (
                ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.For, ast.AsyncFor, ast.While))
             and not (else_leaves and not body_leaves)),
            (getattr(statement, "orelse", []), isinstance(statement, ast.If)  # a `try`'s runs on the usual path
             and not (body_leaves and not else_leaves)),
            (getattr(statement, "finalbody", []), False),
            *((handler.body, True) for handler in getattr(statement, "handlers", [])),
            *((case.body, True) for case in getattr(statement, "cases", [])),
        ]
        inner = next(((body, conditional) for body, conditional in blocks if isinstance(body, list) and body
                      and body[0].lineno <= row <= (body[-1].end_lineno or body[-1].lineno)), None)
        if inner is None:
            return tail
        block, conditional = inner
        if conditional:
            tail = block[-1].end_lineno or block[-1].lineno


def _ends_leaving(body: list[ast.stmt]) -> bool:
    """The block's last statement returns or raises, or is an `if` both arms of which do."""
    last = body[-1] if body else None
    if isinstance(last, ast.If):
        return _ends_leaving(last.body) and _ends_leaving(last.orelse)
    return isinstance(last, (ast.Return, ast.Raise))


def _qualnames(body: list[ast.stmt], prefix: str = "") -> set[str]:
    """Every def's and class's qualname, those under a module-level `if` too."""
    found: set[str] = set()
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(prefix + statement.name)
            found |= _qualnames(statement.body, f"{prefix}{statement.name}.")
        else:
            for name in ("body", "orelse", "finalbody"):
                nested = getattr(statement, name, [])
                found |= _qualnames(nested if isinstance(nested, list) else [], prefix)
    return found


def _agree(tree: ast.Module) -> int:
    """Assert the spans' tails are the descent's on every row of every def; the rows compared."""
    firsts = first_definitions(tree)
    compared = 0
    for qualname in _qualnames(tree.body):
        definition = function_definition(tree, qualname)
        assert firsts.get(qualname) is definition, qualname
        if definition is None:
            continue
        spans = conditional_spans(definition)
        for row in range(definition.lineno - 2, (definition.end_lineno or definition.lineno) + 2):
            assert tail_in(spans, row) == _reference_tail(definition, row), (qualname, row)
            assert it_runs_always(spans, row) == (_reference_tail(definition, row, False) == sys.maxsize), (qualname, row)
            compared += 1
    return compared


def test_sample_tails_by_hand() -> None:
    tree = ast.parse(SAMPLE)
    firsts = first_definitions(tree)
    assert "conditional_def" not in firsts  # a def under a module-level `if`: no def named so
    assert "Block.forward.inner" not in firsts  # nor in an `if` of a def
    forward = firsts["Block.forward"]
    assert forward.args.args[-1].arg == "flag"  # the first of the two `forward`s
    spans = conditional_spans(forward)
    lines = SAMPLE.splitlines()

    def tail(text: str) -> int:
        return tail_in(spans, next(i for i, line in enumerate(lines, 1) if line.strip() == text))

    def last(text: str) -> int:
        return next(i for i, line in enumerate(lines, 1) if line.strip() == text)

    assert tail("x = layer(x)") == sys.maxsize  # a loop body always runs
    assert tail("x = x + 1") == last("x = x + 1")
    assert tail("x = x - 1; y = 2") == last("x = x - 1; y = 2")
    assert tail("elif x.dim() > 2:") == last("x = x * 2")  # the header of an `elif`: the outer `else`
    assert tail("x = x.relu()") == sys.maxsize and tail("x = x + 4") == sys.maxsize
    # a handler runs on the error path only, a `try`'s `else` whenever the body raised nothing
    assert tail("x = x.abs()") == last("x = x.abs()") and tail("x = x + 3") == sys.maxsize
    assert tail("if flag: x = x * 5") == last("if flag: x = x * 5")  # the body on the header's line
    assert tail("flag = False") == sys.maxsize and tail("x = x + 6") == sys.maxsize
    assert tail("x = x + 7") == last("x = x + 7")
    # the first arm raises: past it, the `elif` and its own arms run on to the rest (review28)
    assert tail("elif flag:") == sys.maxsize and tail("x = x + 8") == last("x = x + 8")
    row = next(i for i, line in enumerate(lines, 1) if line.strip() == "elif flag:")
    assert not it_runs_always(spans, row)  # yet it runs only when the first arm's test is false
    assert it_runs_always(spans, next(i for i, line in enumerate(lines, 1) if line.strip() == "x = layer(x)"))
    assert tail("return 0") == last("x = inner(x)")  # a nested def's rows: the block holding the def
    assert tail_in(None, 5) == sys.maxsize
    assert _agree(tree) > 40


@pytest.mark.parametrize("folder", ["graphmend_bot", "tests/fixtures"])
def test_spans_agree_with_the_descent(folder: str) -> None:
    compared = 0
    for path in sorted((ROOT / folder).rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue  # fixtures of unparsable files
        compared += _agree(tree)
    assert compared > 10_000
