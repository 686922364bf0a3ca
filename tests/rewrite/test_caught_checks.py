"""A guard or assert whose own `try` catches what it raises gets no lowering (rewrite/validation/handlers.py).

linear_operator's `contour_integral_quad` falls back when `torch.linalg.eigvalsh` gives a
non-positive eigenvalue: `try: ... if approx_eigs.min() <= 0: raise RuntimeError / except
RuntimeError: approx_eigs = linear_op._diagonal()`. Lowered to `torch._assert_async` (what
`--unsafe-fixes` wrote on main), the compiled call raises where the original fell back: the check
fails when the graph runs, outside the handler Dynamo traced. Measured here on torch 2.13, with the
text main's fix produced, so the refusal rests on Dynamo's behaviour, not on a guess.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
import torch
from fixture_support import load_module

from graphmend_bot.census.dynamo import Tree, explain_breaks
from graphmend_bot.config import Config
from graphmend_bot.rewrite import fix_paths

GUARD = """import torch


def eigenvalues(x):
    try:
        e = torch.linalg.eigvalsh(x)
        if e.min() <= 0:
            raise RuntimeError
    except RuntimeError:
        e = x.diagonal()
    return e * 2
"""
# What `--fix --unsafe-fixes` made of GUARD before the refusal.
LOWERED_GUARD = GUARD.replace(
    "        if e.min() <= 0:\n",
    "        if torch.compiler.is_compiling():\n"
    '            torch._assert_async(~(e.min() <= 0), "RuntimeError")\n'
    "        elif e.min() <= 0:\n",
)
ASSERT = """import torch


def positive_log(x):
    try:
        assert (x > 0).all() and (x < 10).all(), f"out of range: {x.shape}"
        y = x.log()
    except AssertionError:
        y = x
    return y * 2
"""
# What `--fix --unsafe-fixes` made of ASSERT before the refusal.
LOWERED_ASSERT = ASSERT.replace(
    '        assert (x > 0).all() and (x < 10).all(), f"out of range: {x.shape}"\n',
    "        if torch.compiler.is_compiling():\n"
    '            assert (x > 0).all() & (x < 10).all(), "out of range: {x.shape}"\n'
    "        else:\n"
    '            assert (x > 0).all() and (x < 10).all(), f"out of range: {x.shape}"\n',
)
# Outside a `try`, or in a `try` without handlers, the same checks are still lowered.
UNCAUGHT = {
    "guard": GUARD.replace("    try:\n", "    if True:\n").replace(
        "    except RuntimeError:\n        e = x.diagonal()\n", ""
    ),
    "assert": ASSERT.replace("    except AssertionError:\n        y = x\n", "    finally:\n        pass\n"),
}
# Arguments the handler catches for: eigenvalues -1 and 3; an element out of (0, 10).
FALLBACK_ARGUMENTS = {"guard": torch.tensor([[1.0, 2.0], [2.0, 1.0]]), "assert": torch.tensor([-1.0, 2.0])}
CAUGHT = {"guard": (GUARD, LOWERED_GUARD, "eigenvalues"), "assert": (ASSERT, LOWERED_ASSERT, "positive_log")}


def _fixed(source: str, tmp_path: Path) -> tuple[str, str]:
    """(the file as written, the file after `--fix --unsafe-fixes`); the entry is compiled in it."""
    entry = source.split("\ndef ", 1)[1].split("(", 1)[0]
    written = f"{source}\n\ncompiled = torch.compile({entry})\n"
    path = tmp_path / "case.py"
    path.write_text(written, encoding="utf-8")
    changes = fix_paths([str(path)], Config(), unsafe=True)
    return written, changes[0].after if changes else written


def _load(source: str, tmp_path: Path, name: str) -> ModuleType:
    path = tmp_path / f"{name}_source.py"
    path.write_text(source, encoding="utf-8")
    return load_module(path, tmp_path, name)


@pytest.mark.parametrize("kind", sorted(CAUGHT))
def test_a_check_its_own_try_catches_is_not_lowered(kind: str, tmp_path: Path) -> None:
    written, fixed = _fixed(CAUGHT[kind][0], tmp_path)
    assert fixed == written


@pytest.mark.parametrize("kind", sorted(UNCAUGHT))
def test_the_same_check_outside_a_handled_try_is_still_lowered(kind: str, tmp_path: Path) -> None:
    _, fixed = _fixed(UNCAUGHT[kind], tmp_path)
    assert "torch.compiler.is_compiling()" in fixed


@pytest.mark.parametrize("kind", sorted(CAUGHT))
def test_lowered_check_escapes_the_handler_under_compile(kind: str, tmp_path: Path) -> None:
    """Why the refusal: the original breaks the graph and falls back, compiled or not; the lowered
    text falls back eagerly but raises RuntimeError compiled."""
    source, lowered, entry = CAUGHT[kind]
    original = getattr(_load(source, tmp_path, f"caught_{kind}_original"), entry)
    rewritten = getattr(_load(lowered, tmp_path, f"caught_{kind}_lowered"), entry)
    argument = FALLBACK_ARGUMENTS[kind]
    expected = original(argument)
    assert torch.equal(rewritten(argument), expected)
    torch._dynamo.reset()
    assert torch.equal(torch.compile(original)(argument), expected)
    tree = Tree([str(tmp_path)])
    assert explain_breaks(original, (argument,), {}, tree).breaks, "the original check breaks the graph"
    torch._dynamo.reset()
    with pytest.raises(RuntimeError):
        torch.compile(rewritten)(argument)
