"""Asserts Dynamo cannot lower itself -> torch._assert_async (rewrite/validation/assertions.py): a passing
assert still passes and a failing one still raises (RuntimeError, with the static message), eagerly
and compiled with fullgraph=True; conditions not provably one-element tensors are left alone."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
import torch
from fixture_support import FIXTURES, break_count, fix_source, load_module

ASSERTIONS = FIXTURES / "assertions"


def rewritten(case: str, tmp_path: Path, name: str) -> tuple[ModuleType, ModuleType]:
    source = (ASSERTIONS / f"{case}.in.py").read_text()
    path = tmp_path / f"{name}_fixed.py"
    path.write_text(fix_source(source, tmp_path), encoding="utf-8")
    return load_module(ASSERTIONS / f"{case}.in.py", tmp_path, f"{name}_before"), load_module(path, tmp_path, name)


def test_formatted_message_assert_still_fails_and_compiles_to_one_graph(tmp_path: Path) -> None:
    before, after = rewritten("formatted_message", tmp_path, "assert_formatted")
    zeros, ones = torch.zeros(3), torch.ones(3)
    outside = torch.tensor([0.5, 2.0, 0.5])
    with pytest.raises(AssertionError, match="fails t0 <= t <= t1"):
        before.ENTRY()(zeros, ones, outside)
    # Only the message was the problem: eager calls keep the assert as written, values in the message.
    with pytest.raises(AssertionError, match=r"^fails t0 <= t <= t1: tensor\(\[0\., 0\., 0\.\]\), tensor"):
        after.ENTRY()(zeros, ones, outside)
    inside = torch.tensor([0.25, 0.5, 0.75])
    assert torch.equal(after.ENTRY()(zeros, ones, inside), before.ENTRY()(zeros, ones, inside))
    assert break_count(before.ENTRY(), (zeros, ones, inside)) == 1
    assert break_count(after.ENTRY(), (zeros, ones, inside)) == 0
    torch._dynamo.reset()
    compiled = torch.compile(after.ENTRY(), backend="aot_eager", fullgraph=True)
    assert torch.equal(compiled(zeros, ones, inside), before.ENTRY()(zeros, ones, inside))
    # Dynamo's own _assert_async, with the compiled arm's constant message
    with pytest.raises(RuntimeError, match=r"^fails t0 <= t <= t1: \{t0\}, \{t\}, \{t1\}$"):
        compiled(zeros, ones, outside)


def test_chained_comparison_keeps_both_links(tmp_path: Path) -> None:
    before, after = rewritten("chained_comparison", tmp_path, "assert_chained")
    low, high = torch.zeros(3), torch.ones(3)
    for t, fails in ((torch.tensor([0.5, 0.5, 0.5]), False), (torch.tensor([2.0, 2.0, 2.0]), True),
                     (torch.tensor([-1.0, -1.0, -1.0]), True)):
        if fails:
            with pytest.raises(AssertionError):
                before.ENTRY()(low, high, t)
            with pytest.raises((AssertionError, RuntimeError)):
                after.ENTRY()(low, high, t)
        else:
            assert torch.equal(after.ENTRY()(low, high, t), before.ENTRY()(low, high, t))
    # The chain whose middle is a call (`t0 <= t.mean() <= t1`) is left alone: its breaks remain.
    inside = torch.tensor([0.5, 0.5, 0.5])
    assert 0 < break_count(after.ENTRY(), (low, high, inside)) < break_count(before.ENTRY(), (low, high, inside))


def test_format_call_message_shows_its_fields_by_source(tmp_path: Path) -> None:
    before, after = rewritten("format_call_message", tmp_path, "assert_format_call")
    decreasing = torch.tensor([3.0, 2.0, 1.0])
    with pytest.raises(AssertionError, match="t must be strictly increasing"):
        before.ENTRY("t", decreasing)
    with pytest.raises(AssertionError, match=r"^t must be strictly increasing or decreasing$"):
        after.ENTRY("t", decreasing)  # eager: the assert as written
    increasing = torch.tensor([1.0, 2.0, 3.0])
    assert torch.equal(after.ENTRY("t", increasing), before.ENTRY("t", increasing))
    torch._dynamo.reset()
    compiled = torch.compile(after.ENTRY, backend="aot_eager", fullgraph=True)
    with pytest.raises(RuntimeError, match=r"^\{name\} must be strictly increasing or decreasing$"):
        compiled("t", decreasing)
    torch._dynamo.reset()


def test_private_helper_message_keeps_the_formatted_name(tmp_path: Path) -> None:
    """torchdiffeq's `_assert_increasing('t', t)` (HUNKS #10): every caller passes a string literal,
    so the message still names the tensor, eagerly and compiled in one graph."""
    before, after = rewritten("private_format_message", tmp_path, "assert_private_format")
    increasing, decreasing = torch.tensor([0.0, 1.0, 2.0]), torch.tensor([2.0, 1.0, 3.0])
    with pytest.raises(AssertionError, match=r"^t must be strictly increasing"):
        before.ENTRY(decreasing)
    with pytest.raises(AssertionError, match=r"^t must be strictly increasing or decreasing$"):
        after.ENTRY(decreasing)  # eager calls keep the assert as written
    assert torch.equal(after.ENTRY(increasing), before.ENTRY(increasing))
    torch._dynamo.reset()
    assert break_count(before.ENTRY, (increasing,)) >= 1
    assert break_count(after.ENTRY, (increasing,)) == 0
    torch._dynamo.reset()
    compiled = torch.compile(after.ENTRY, backend="aot_eager", fullgraph=True)
    with pytest.raises(RuntimeError, match=r"^AssertionError: t must be strictly increasing"):
        compiled(decreasing)
    torch._dynamo.reset()


@pytest.mark.parametrize("case", ["private_format_tensor_argument", "format_call_message"])
def test_message_arguments_not_proven_strings_are_shown_by_source(case: str, tmp_path: Path) -> None:
    """A caller passing a tensor, or a public helper (callers unknown): never formatted in compiled
    code; eager calls keep the assert as written."""
    fixed = fix_source((ASSERTIONS / f"{case}.in.py").read_text(), tmp_path)
    assert (
        "    if torch.compiler.is_compiling():\n"
        '        assert (t[1:] > t[:-1]).all(), "{name} must be strictly increasing or decreasing"\n'
        "    else:\n"
        "        assert (t[1:] > t[:-1]).all(), '{} must be strictly increasing or decreasing'.format(name)\n"
    ) in fixed


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # only the message breaks: compiled code asserts with a constant message, eager as written
        ('assert y.max() < 10, f"too large: {y}"',
         'if torch.compiler.is_compiling():\n        assert y.max() < 10, "too large: {y}"\n'
         '    else:\n        assert y.max() < 10, f"too large: {y}"\n'),
        # `not` of a bool-tensor reduction becomes `~`; `not` of a comparison (maybe a Python bool,
        # where `~` gives -1/-2) goes to torch._assert_async, which proves the operands tensors first
        ('assert not (y < 0).any(), f"negative: {y}"', 'assert ~(y < 0).any(), "negative: {y}"'),
        ('assert not y.sum() < 0, f"negative: {y}"', 'torch._assert_async(~(y.sum() < 0), "AssertionError: negative: {y}")'),
        # `and`: the right operand would now always run; an indexing there may raise, so no `&`
        ('assert (y > 0).all() and y[3] > 0, f"bad: {y}"', 'assert (y > 0).all() and y[3] > 0, f"bad: {y}"'),
    ],
    ids=["comparison", "not-reduction", "not-comparison", "and-indexing"],
)
def test_an_assert_whose_only_break_is_its_message_keeps_the_assert(body: str, expected: str, tmp_path: Path) -> None:
    source = f"import torch\n\n\ndef f(x):\n    y = x * 2\n    {body}\n    return y\n\n\ncompiled = torch.compile(f)\n"
    fixed = fix_source("# fixture: unsafe-fixes\n" + source, tmp_path)
    assert expected in fixed


def test_an_assert_converting_its_test_to_python_is_not_given_a_constant_message(tmp_path: Path) -> None:
    """`.item()` in the test breaks whatever the message says: no hunk without a gain."""
    source = ("# fixture: unsafe-fixes\nimport torch\n\n\ndef f(x):\n    y = x * 2\n"
              '    assert y.sum().item() > 0, f"sum {y}"\n    return y\n\n\ncompiled = torch.compile(f)\n')
    assert 'f"sum {y}"' in fix_source(source, tmp_path)


def test_or_of_reductions_with_a_named_message_still_fails_with_the_name(tmp_path: Path) -> None:
    before, after = rewritten("monotonic_or", tmp_path, "assert_monotonic_or")
    zigzag = torch.tensor([0.0, 2.0, 1.0])
    with pytest.raises(AssertionError, match=r"^t must be strictly"):
        before.ENTRY(zigzag)
    with pytest.raises(AssertionError, match=r"^t must be strictly increasing or decreasing$"):
        after.ENTRY(zigzag)  # eager calls keep the assert as written
    torch._dynamo.reset()
    with pytest.raises(RuntimeError, match=r"^AssertionError: t must be strictly increasing or decreasing$"):
        torch.compile(after.ENTRY, backend="aot_eager", fullgraph=True)(zigzag)
    for t in (torch.tensor([0.0, 1.0, 2.0]), torch.tensor([2.0, 1.0, 0.0])):
        assert torch.equal(after.ENTRY(t), before.ENTRY(t))
    torch._dynamo.reset()
    assert break_count(after.ENTRY, (zigzag.sort().values,)) == 0
    torch._dynamo.reset()


def test_an_and_split_into_asserts_checks_the_same_conditions_in_the_same_order(tmp_path: Path) -> None:
    """`assert a and b` -> `assert a` / `assert b`: where `a` fails, `b` (an indexing that would
    raise IndexError here) is still never evaluated, and the message and exception are the same."""
    source = ("import torch\n\n\ndef f(grid, t):\n    y = t * 2\n"
              '    assert grid.sum() > 0 and grid[3] == t[0], "bad grid"\n    return y\n\n\n'
              "compiled = torch.compile(f)\n")
    fixed = fix_source(source, tmp_path)
    assert '    assert grid.sum() > 0, "bad grid"\n    assert grid[3] == t[0], "bad grid"\n' in fixed
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "split_before.py").write_text(source)
    (sources / "split_after.py").write_text(fixed)
    modules = [load_module(sources / f"{name}.py", tmp_path, name) for name in ("split_before", "split_after")]
    short, t = torch.zeros(2), torch.ones(1)
    for module in modules:
        with pytest.raises(AssertionError, match=r"^bad grid$"):
            module.f(short, t)  # grid[3] would raise IndexError: never evaluated
        with pytest.raises(AssertionError, match=r"^bad grid$"):
            module.f(torch.full((4,), 2.0), t)
        assert torch.equal(module.f(torch.ones(4), t), t * 2)


def test_the_split_conjunction_removes_the_break(tmp_path: Path) -> None:
    before, after = rewritten("split_conjunction", tmp_path, "assert_split")
    t = torch.tensor([0.0, 0.5, 2.0])
    assert break_count(before.ENTRY, (t,)) > 0
    torch._dynamo.reset()
    assert break_count(after.ENTRY, (t,)) == 0
    torch._dynamo.reset()
    compiled = torch.compile(after.ENTRY, backend="aot_eager", fullgraph=True)
    assert torch.equal(compiled(t), before.ENTRY(t))
