"""`assert args` on a function's `*args` -> `assert len(args) > 0` (rewrite/validation/star_args_assert.py).

The finding is GM203's (recallF's rule; on main it has no `fixes` yet): these tests build the
finding at the asserted name, as the rule reports it, and check the rewrite, its eager behaviour
and, with Dynamo, that the break is gone.
"""

from __future__ import annotations

import textwrap
from types import ModuleType

import pytest
import torch
import torch._dynamo

from graphmend_bot.findings import Finding, Location
from graphmend_bot.rewrite import apply_fixes
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.validation.star_args_assert import build_fix

COMPOSED = textwrap.dedent('''\
    import torch


    class Part:
        def __init__(self, scale):
            self.scale = scale


    class Composed:
        def __init__(self, *parts: Part):
            assert parts, "'parts' cannot be empty"
            self.parts = parts


    def apply(x):
        y = x * 2
        composed = Composed(Part(2.0), Part(3.0))
        for part in composed.parts:
            y = y * part.scale
        return y
    ''')


def finding_at(source: str, text: str) -> Finding:
    """GM203's finding: the span of the asserted name in `assert <text>`."""
    for row, line in enumerate(source.splitlines(), start=1):
        column = line.find(f"assert {text}")
        if column >= 0:
            start = column + len("assert ") + 1
            return Finding("GM203", "m", "p", Location(row, start), Location(row, start + len(text)), "GB0055")
    raise AssertionError(f"no `assert {text}` in the source")


def fixed(source: str, name: str) -> str | None:
    fix = build_fix(FixContext(source), finding_at(source, name))
    return None if fix is None else apply_fixes(source, [fix])


def load(source: str, name: str) -> ModuleType:
    module = ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def graph_breaks(module: ModuleType) -> int:
    torch._dynamo.reset()
    explained = torch._dynamo.explain(module.apply)(torch.ones(3))
    torch._dynamo.reset()
    return len(explained.break_reasons) + explained.graph_break_count


def test_the_star_args_assert_becomes_a_length_check() -> None:
    after = fixed(COMPOSED, "parts")
    assert after == COMPOSED.replace("assert parts,", "assert len(parts) > 0,")
    fix = build_fix(FixContext(COMPOSED), finding_at(COMPOSED, "parts"))
    assert fix is not None and fix.applicability == "safe"


def test_same_eager_behaviour_and_the_break_is_gone() -> None:
    after = fixed(COMPOSED, "parts")
    assert after is not None
    before_module, after_module = load(COMPOSED, "star_before"), load(after, "star_after")
    assert torch.equal(before_module.apply(torch.arange(3.0)), after_module.apply(torch.arange(3.0)))
    for module in (before_module, after_module):
        with pytest.raises(AssertionError, match="'parts' cannot be empty"):
            module.Composed()
    assert graph_breaks(before_module) > 0
    assert graph_breaks(after_module) == 0


@pytest.mark.parametrize(
    ("source", "name"),
    [
        # A plain parameter may be any object (a list, a tensor, an object with __bool__).
        (COMPOSED.replace("*parts: Part", "parts"), "parts"),
        # Rebound: no longer the tuple.
        (COMPOSED.replace("        assert parts,", "        parts = [p for p in parts if p.scale]\n        assert parts,"), "parts"),
        # `len` is the module's own function.
        (COMPOSED + "\n\ndef len(items):\n    return 0\n", "parts"),
    ],
)
def test_left_alone_when_not_provably_the_args_tuple(source: str, name: str) -> None:
    assert fixed(source, name) is None
