"""Validation guards -> torch._assert_async (rewrite/validation/guards.py): eager calls keep the `if` and
raise the original exception as before; compiled calls check with torch._assert_async (the
message prefixed by the exception type) in one graph; the break is gone. Eager calls keep the `if`
and its raise for every exception type, RuntimeError included (issue 24)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
import torch
from fixture_support import FIXTURES, break_count, fix_source, load_module

from graphmend_bot.census.dynamo import Tree, explain_breaks
from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import attach_fixes

GUARDS = FIXTURES / "guards"


def rewritten(case: str, tmp_path: Path, name: str) -> tuple[ModuleType, ModuleType]:
    source = (GUARDS / f"{case}.in.py").read_text()
    path = tmp_path / f"{name}_fixed.py"
    path.write_text(fix_source(source, tmp_path), encoding="utf-8")
    return load_module(GUARDS / f"{case}.in.py", tmp_path, f"{name}_before"), load_module(path, tmp_path, name)


def test_nan_guard_still_fires_with_the_message(tmp_path: Path) -> None:
    before, after = rewritten("nan_check", tmp_path, "guard_nan")
    torch.manual_seed(0)
    model = after.ENTRY().eval()
    bad = torch.tensor([[1.0, float("nan"), 0.0, 2.0]])
    with pytest.raises(ValueError, match="NaN in input"):
        before.ENTRY()(bad)
    with pytest.raises(ValueError, match=r"^NaN in input$"):
        model(bad)  # eager: the original `if` and exception, unchanged
    # Compiled: on CPU the assertion raises synchronously, in the same call.
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
    good = torch.randn(2, 4)
    assert torch.equal(compiled(good), model(good))
    with pytest.raises(RuntimeError, match="ValueError: NaN in input"):
        compiled(bad)
    torch._dynamo.reset()
    assert break_count(before.ENTRY(), (good,)) == 1
    assert break_count(model, (good,)) == 0


def test_torch_equal_guard_keeps_shape_check_and_checks_values(tmp_path: Path) -> None:
    before, after = rewritten("tensor_equal", tmp_path, "guard_equal")
    a = torch.tensor([1.0, 2.0, 3.0])
    assert torch.equal(after.ENTRY(a, a * 2), before.ENTRY(a, a * 2))
    with pytest.raises(ValueError, match="signs differ for 3 rows"):
        after.ENTRY(a, torch.ones(2))  # different shapes: still the original exception
    with pytest.raises(ValueError, match=r"^signs differ for 3 rows$"):
        after.ENTRY(a, -a)
    torch._dynamo.reset()
    compiled = torch.compile(after.ENTRY, backend="aot_eager", fullgraph=True)
    with pytest.raises(RuntimeError, match=r"^ValueError: signs differ for 3 rows$"):
        compiled(a, -a)
    torch._dynamo.reset()
    with pytest.raises(ValueError, match="signs differ for 3 rows"):  # the static shape check
        torch.compile(after.ENTRY, backend="aot_eager")(a, torch.ones(2))
    torch._dynamo.reset()


def test_comparison_guard_negation_treats_nan_like_the_if(tmp_path: Path) -> None:
    before, after = rewritten("comparison_guard", tmp_path, "guard_cmp")
    nan = torch.tensor([float("nan"), 1.0])
    # `nan > 1e6` is False, so the `if` does not raise; `~(... > 1e6)` keeps that (a `<=` would not).
    out_before, out_after = before.ENTRY(nan), after.ENTRY(nan)
    assert torch.equal(out_before.nan_to_num(), out_after.nan_to_num())
    with pytest.raises(RuntimeError, match=r"^$"):
        after.ENTRY(torch.tensor([1e7]))  # eager: the original bare `raise RuntimeError`
    torch._dynamo.reset()
    with pytest.raises(RuntimeError, match=r"^RuntimeError$"):
        torch.compile(after.ENTRY, backend="aot_eager", fullgraph=True)(torch.tensor([1e7]))
    torch._dynamo.reset()


def test_guard_fixes_are_unsafe_and_name_the_exception(tmp_path: Path) -> None:
    path = tmp_path / "case.py"
    path.write_text((GUARDS / "nan_check.in.py").read_text(), encoding="utf-8")
    (finding,) = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM201"]
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert "RuntimeError" in finding.fix.message and "`ValueError:`" in finding.fix.message


@pytest.mark.parametrize(
    "guard",
    [
        'raise ValueError(f"negative input, minimum {x.min()}")',  # message reads a tensor
        'raise ValueError("bad") from None',  # a cause we cannot keep
        "raise make_error()",  # not an exception class
    ],
    ids=["tensor-message", "raise-from", "computed-exception"],
)
def test_guards_that_cannot_keep_their_message_get_no_fix(guard: str, tmp_path: Path) -> None:
    source = (
        "import torch\n\n\ndef make_error():\n    return ValueError('x')\n\n\n"
        f"def f(x):\n    if (x < 0).any():\n        {guard}\n    return x\n\n\ncompiled = torch.compile(f)\n"
    )
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM201"]
    assert len(findings) == 1
    assert findings[0].fix is None


def test_python_part_of_a_guard_stays_an_if(tmp_path: Path) -> None:
    _, after = rewritten("labels_in_range", tmp_path, "guard_labels")
    torch.manual_seed(0)
    model = after.ENTRY().eval()
    hidden = torch.randn(2, 4)
    assert model(hidden).shape == (2, 12)  # labels=None: the check is skipped, as before
    with pytest.raises(ValueError, match=r"^Label values must be <= vocab_size: 12$"):
        model(hidden, torch.tensor([3, 12]))
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
    assert compiled(hidden).shape == (2, 12)
    with pytest.raises(RuntimeError, match=r"^ValueError: Label values must be <= vocab_size: 12$"):
        compiled(hidden, torch.tensor([3, 12]))
    torch._dynamo.reset()


def test_guard_reading_an_indexed_tensor_and_an_unpacked_size_still_fires(tmp_path: Path) -> None:
    before, after = rewritten("shape_sum_guard", tmp_path, "guard_shape_sum")
    hidden = torch.randn(1, 6, 4)
    wrong = torch.tensor([[1, 2], [1, 2]])  # 4 positions for a sequence of 6
    with pytest.raises(ValueError, match="Make sure to align"):
        before.ENTRY()(hidden, wrong)
    with pytest.raises(ValueError, match=r"^Make sure to align the spatial shapes"):
        after.ENTRY()(hidden, wrong)
    torch._dynamo.reset()
    compiled = torch.compile(after.ENTRY(), backend="aot_eager", fullgraph=True)
    with pytest.raises(RuntimeError, match="ValueError: Make sure to align"):
        compiled(hidden, wrong)


def test_nan_or_inf_guard_reads_with_operators_and_still_fires(tmp_path: Path) -> None:
    before, after = rewritten("nan_or_inf", tmp_path, "guard_nan_or_inf")
    boxes = torch.randn(3, 4)
    assert torch.equal(after.ENTRY(boxes), before.ENTRY(boxes))
    for bad in (float("nan"), float("inf")):
        broken = boxes.clone()
        broken[1, 2] = bad
        with pytest.raises(ValueError, match="NaN or Inf"):
            before.ENTRY(broken)
        with pytest.raises(ValueError, match=r"^Box GIoU is NaN or Inf.$"):
            after.ENTRY(broken)
        torch._dynamo.reset()
        with pytest.raises(RuntimeError, match=r"^ValueError: Box GIoU is NaN or Inf.$"):
            torch.compile(after.ENTRY, backend="aot_eager", fullgraph=True)(broken)
    torch._dynamo.reset()
    assert break_count(before.ENTRY, (boxes,)) == 2  # one for each operand of `or`
    assert break_count(after.ENTRY, (boxes,)) == 0


def test_a_uint8_reduction_is_negated_with_logical_not(tmp_path: Path) -> None:
    before, after = rewritten("uint8_mask", tmp_path, "guard_uint8")
    flags = torch.tensor([0, 1, 0, 0], dtype=torch.uint8)
    assert (~flags.any()).item() == 254  # why `~` is wrong here: it is never false
    with pytest.raises(RuntimeError, match="a flag is set"):
        before.ENTRY(torch.ones(4), flags)
    with pytest.raises(RuntimeError, match="a flag is set"):
        after.ENTRY(torch.ones(4), flags)
    clear = torch.zeros(4, dtype=torch.uint8)
    assert torch.equal(after.ENTRY(torch.ones(4), clear), before.ENTRY(torch.ones(4), clear))


def _check_value_guard(x: torch.Tensor) -> torch.Tensor:
    torch._check_value(bool((x >= 0).all()), lambda: "negative")
    return x * 2


def test_no_torch_check_keeps_the_exception_type_without_a_break() -> None:
    """Why GM201 lowers to torch._assert_async (unsafe) and not torch._check_value (GM201's fix
    safety): measured on torch 2.13, `_check_value` takes only Python bools, so a tensor condition
    needs `bool(...)`, which breaks the graph; with capture_scalar_outputs it compiles to one graph
    but raises RuntimeError, not ValueError."""
    good, bad = torch.ones(3), -torch.ones(3)
    with pytest.raises(TypeError, match="cond must be a bool"):
        torch._check_value((good >= 0).all(), lambda: "negative")
    with pytest.raises(ValueError, match="negative"):
        _check_value_guard(bad)
    torch._dynamo.reset()
    assert break_count(_check_value_guard, (good,)) == 1
    torch._dynamo.reset()
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        assert break_count(_check_value_guard, (good,)) == 0
        torch._dynamo.reset()
        compiled = torch.compile(_check_value_guard, backend="eager")
        compiled(good)
        with pytest.raises(RuntimeError) as raised:
            compiled(bad)
        assert not isinstance(raised.value, ValueError)
    torch._dynamo.reset()


def test_interval_guard_formatting_names_keeps_eager_message_and_fires_compiled(tmp_path: Path) -> None:
    """torchsde's `if t0 > t1: raise ValueError(f"... {t0} ... {t1}.")`: eager calls keep the
    message with the values; compiled calls assert with the names in their place on 0-d tensors,
    and keep the `if` for Python floats (the other documented type), in one graph either way."""
    before, after = rewritten("interval_bounds", tmp_path, "guard_interval")
    for t0, t1 in ((torch.tensor(2.0), torch.tensor(1.0)), (2.0, 1.0)):
        with pytest.raises(ValueError, match=r"^Initial time 2.0 should be less than terminal time 1.0.$"):
            after.Interval(t0, t1)  # eager: the original `if`, exception and formatted values
    torch._dynamo.reset()
    build = torch.compile(lambda x, t0, t1: (after.Interval(t0, t1), x * 2)[1], backend="aot_eager", fullgraph=True)
    x = torch.ones(2)
    for good in ((torch.tensor(0.0), torch.tensor(1.0)), (0.0, 1.0), (torch.tensor(float("nan")), torch.tensor(1.0))):
        assert torch.equal(build(x, *good), x * 2)  # NaN: `nan > 1` is False, the `if` did not fire either
    with pytest.raises(RuntimeError, match=r"ValueError: Initial time \{t0\} should be less than terminal time \{t1\}\."):
        build(x, torch.tensor(2.0), torch.tensor(1.0))
    # Python floats (traced as dynamic SymFloats by now) keep the `if`; formatting its message
    # breaks the graph as it did before the rewrite, so this call is compiled without fullgraph.
    lenient = torch.compile(lambda x, t0, t1: (after.Interval(t0, t1), x * 2)[1], backend="aot_eager")
    assert torch.equal(lenient(x, 0.0, 1.0), x * 2)
    with pytest.raises(ValueError, match=r"^Initial time 2.0 should be less than terminal time 1.0.$"):
        lenient(x, 2.0, 1.0)
    torch._dynamo.reset()
    ts = torch.tensor([0.0, 0.5, 1.0])
    assert break_count(before.ENTRY, (x, ts)) >= 1
    assert break_count(after.ENTRY, (x, ts)) == 0


@pytest.mark.parametrize(
    "guard",
    [
        'raise ValueError(f"t0={t0!r} after t1")',  # a conversion of the value
        'raise ValueError(f"t0={t0:.3f} after t1")',  # a format spec
        'raise ValueError(f"t0={t0 + 1} after t1")',  # a computed placeholder
    ],
    ids=["conversion", "format-spec", "computed"],
)
def test_guards_formatting_a_tensor_otherwise_get_no_fix(guard: str, tmp_path: Path) -> None:
    source = (
        "import torch\n\n\ndef f(x: torch.Tensor, t0: torch.Tensor, t1: torch.Tensor):\n"
        f"    y = x * 2\n    if t0 > t1:\n        {guard}\n    return y\n\n\ncompiled = torch.compile(f)\n"
    )
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM201"]
    assert len(findings) == 1
    assert findings[0].fix is None


def test_size_part_of_a_negated_guard_is_checked_first_with_the_original_error(tmp_path: Path) -> None:
    """gpytorch's `if not (n1 == n2 and torch.eq(x1, x2).all()): raise RuntimeError(m)`: inputs
    of different sizes still raise `m` (a `(n1 == n2) & torch.eq(x1, x2)` would raise a
    broadcasting error first); equal sizes assert on the values, compiled in one graph."""
    before, after = rewritten("diag_sizes_first", tmp_path, "guard_diag")
    x = torch.randn(3, 2)
    for module in (before, after):
        with pytest.raises(RuntimeError, match=r"^diag=True only works when x1 == x2$"):
            module.ENTRY(x, torch.randn(2, 2))
        with pytest.raises(RuntimeError, match="diag=True only works when x1 == x2"):
            module.ENTRY(x, x + 1)
    torch._dynamo.reset()
    compiled = torch.compile(after.ENTRY, backend="aot_eager", fullgraph=True)
    assert torch.equal(compiled(x, x.clone()), before.ENTRY(x, x.clone()))
    with pytest.raises(RuntimeError, match="diag=True only works when x1 == x2"):
        compiled(x, x + 1)
    torch._dynamo.reset()
    assert break_count(before.ENTRY, (x, x.clone())) == 1
    assert break_count(after.ENTRY, (x, x.clone())) == 0


def test_pairwise_torch_equal_checks_each_pair_in_order_and_compiles_whole(tmp_path: Path) -> None:
    before, after = rewritten("pairwise_equal", tmp_path, "guard_pairwise")
    torch.manual_seed(0)
    original, model = before.ENTRY(), after.ENTRY()
    good = (torch.linspace(0, 1, 6), torch.arange(6.0))
    assert torch.equal(model(*good), original(*good))
    for bad, error, message in [
        ((good[0], good[1] + 1), RuntimeError, "^You must train on the training inputs!$"),  # values differ
        ((good[0], torch.arange(5.0)), RuntimeError, "^You must train on the training inputs!$"),  # shapes differ
        ((good[0],), ValueError, "zip"),  # fewer inputs: zip(strict=True) raises, as it did under all()
        ((good[0] + 1, torch.arange(5.0)), RuntimeError, "training inputs"),  # first pair stops it
    ]:
        for module in (original, model):
            with pytest.raises(error, match=message):
                module(*bad)
    # The break inside `all()`'s generator makes Dynamo skip the frame: explain records no graph,
    # only the graph_breaks log reports it (as the wild benchmark counts: gpytorch exact_gp.py:277-278).
    tree = Tree([str(tmp_path)])
    torch._dynamo.reset()
    assert {b.location[1] for b in explain_breaks(original, good, {}, tree).breaks if b.location} == {16}
    torch._dynamo.reset()
    assert explain_breaks(model, good, {}, tree).breaks == []
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
    assert torch.equal(compiled(*good), original(*good))
    with pytest.raises(RuntimeError, match=r"^You must train on the training inputs!$"):
        compiled(good[0], good[1] + 1)
    torch._dynamo.reset()


PAIRWISE = '''
import torch


def check(xs, ys):
    {line}
        raise RuntimeError("inputs differ")
    return {result}


compiled = torch.compile(check)
'''


@pytest.mark.parametrize(("why", "line", "result"), [
    ("a target read after the check (the loop would rebind it)",
     "if not all(torch.equal(x, y) for x, y in zip(xs, ys)):", "y"),
    ("a target that is a parameter", "if not all(torch.equal(xs, y) for xs, y in zip(xs, ys)):", "ys"),
    ("a filtered generator", "if not all(torch.equal(x, y) for x, y in zip(xs, ys) if x is not None):", "ys"),
    ("not the loop's names", "if not all(torch.equal(x, x) for x, y in zip(xs, ys)):", "ys"),
    ("a guard that fires on equality", "if all(torch.equal(x, y) for x, y in zip(xs, ys)):", "ys"),
])
def test_no_pairwise_fix_where_the_loop_would_not_mean_the_same(why: str, line: str, result: str, tmp_path: Path) -> None:
    path = tmp_path / "pairs.py"
    path.write_text(PAIRWISE.format(line=line, result=result), encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM105"]
    assert findings, why
    assert all(f.fix is None for f in findings), why


ENCODEC = (
    "import torch\n\n\ndef overlap_add(frames):\n    sum_weight = frames.sum(0)\n    out = frames * 2\n"
    "    if sum_weight.min() == 0:\n"
    '        raise ValueError(f"`sum_weight` minimum element must be bigger than zero: {sum_weight}`")\n'
    "    return out / sum_weight\n\n\ncompiled = torch.compile(overlap_add)\n"
)


def test_a_formatted_name_stays_readable_in_the_compiled_message(tmp_path: Path) -> None:
    """transformers' encodec `_linear_overlap_add` (issue 24): the compiled message read
    "...bigger than zero: sum_weight`", the name run into the text; it now shows the placeholder.
    Eager calls keep the original `raise` with the formatted value."""
    fixed = fix_source("# fixture: unsafe-fixes\n" + ENCODEC, tmp_path)
    assert '"ValueError: `sum_weight` minimum element must be bigger than zero: {sum_weight}`"' in fixed
    namespace: dict = {}
    exec(compile(fixed, "<rewritten>", "exec"), namespace)
    zero = torch.tensor([[1.0, 0.0], [-1.0, 0.0]])
    with pytest.raises(ValueError, match=r"^`sum_weight` minimum element must be bigger than zero: tensor\(\[0\., 0\.\]\)`$"):
        namespace["overlap_add"](zero)
    torch._dynamo.reset()
    compiled = torch.compile(namespace["overlap_add"], backend="aot_eager", fullgraph=True)
    with pytest.raises(RuntimeError, match=r"^ValueError: `sum_weight` minimum element must be bigger than zero: \{sum_weight\}`$"):
        compiled(zero)
    torch._dynamo.reset()


def test_an_elif_guard_is_lowered_inside_its_chain_and_fires_compiled(tmp_path: Path) -> None:
    """Review 14, finding 4: the guard fix on an `elif` once wrote `elelif` (a file that does not
    parse, posted as a review suggestion). It now adds an `elif` before the guard; the `elif` after
    its own compiled check gets no second fix."""
    before, after = rewritten("elif_bounds", tmp_path, "guard_elif")
    x, low, high = torch.linspace(-2.0, 2.0, 5), torch.tensor(-1.0), torch.tensor(1.0)
    for function in (before.clip_to_window, after.clip_to_window):  # eager: the chain in its order
        with pytest.raises(ValueError, match="as low and high only"):
            function(x, high, low, width=3)
        with pytest.raises(ValueError, match=r"starts at 1\.0, after its end -1\.0"):
            function(x, high, low)
    torch._dynamo.reset()
    compiled = torch.compile(after.clip_to_window, backend="aot_eager", fullgraph=True)
    assert torch.equal(compiled(x, low, high), before.clip_to_window(x, low, high))
    with pytest.raises(RuntimeError, match=r"ValueError: the window starts at \{low\}"):
        compiled(x, high, low)
    torch._dynamo.reset()
    assert break_count(before.clip_to_window, (x, low, high)) >= 1
    assert break_count(after.clip_to_window, (x, low, high)) == 0
    fixed = Path(after.__file__)
    assert all(f.fix is None for f in attach_fixes(check([str(fixed)]), Config()).findings if f.code == "GM201")
