"""Scalar extraction kept as a tensor: the safe rewrites are bit-identical for every dtype and rank
(on CPU the unsafe `x / value` and `x // value` too: they are unsafe for CUDA's division kernels).

The property test generates `v = x.<ops>.item()` feeding `x <op> v` for random dtypes (float32,
float64, float16, bfloat16, int64, int32, uint8), ranks (0-dim included) and operators, applies
only the *safe* fixes, and compares result dtype and bits (or the exception) with the original.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from fixture_support import assert_identical
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import attach_fixes, fix_paths

DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.uint8)
SHAPES = ((), (3,), (2, 3))
CHAINS = ("max()", "min()", "abs().max()", "amax()", "mean()", "flatten()[0]", "detach().max()", "neg().min()")
OPERATORS = ("+", "-", "*", "/", "//", "%")


def _fixed(tmp_path: Path, source: str, unsafe: bool = False) -> str:
    path = tmp_path / "scalar_case.py"
    path.write_text(source, encoding="utf-8")
    changes = fix_paths([str(path)], Config(), unsafe=unsafe)
    return changes[0].after if changes else source


def _call(source: str, x: torch.Tensor) -> object:
    namespace: dict[str, object] = {}
    exec(compile(source, "<case>", "exec"), namespace)  # generated test code
    try:
        return namespace["f"](x)  # type: ignore[operator]
    except Exception as error:  # the original may fail (mean of ints): the rewrite must fail alike
        return type(error)


def _tensor(dtype: torch.dtype, shape: tuple[int, ...], seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    values = torch.randn(shape, generator=generator, dtype=torch.float64) * 5
    if not dtype.is_floating_point:
        values = values.abs() + 1 if dtype == torch.uint8 else values
    return values.to(dtype)


SOURCE = '''import torch


def f(x):
    value = x.{chain}.item()
    return {expression}


compiled = torch.compile(f)
'''


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    dtype=st.sampled_from(DTYPES),
    shape=st.sampled_from(SHAPES),
    chain=st.sampled_from(CHAINS),
    operator=st.sampled_from(OPERATORS),
    value_first=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_safe_scalar_rewrites_are_bit_identical(
    tmp_path: Path, dtype: torch.dtype, shape: tuple[int, ...], chain: str, operator: str, value_first: bool, seed: int
) -> None:
    if chain.startswith("flatten()[0]") and shape == ():
        chain = "max()"
    if operator == "/":
        value_first = False  # `number / tensor` rounds twice in PyTorch: not offered (tested below)
    expression = f"value {operator} x" if value_first else f"x {operator} value"
    source = SOURCE.format(chain=chain, expression=expression)
    # `x / value` and `x // value` are unsafe (CUDA divides by a Python number through its
    # reciprocal: test_a_divisor_kept_a_tensor_is_unsafe_for_cuda); on CPU they are identical too.
    divisor = operator in ("/", "//") and not value_first
    fixed = _fixed(tmp_path, source, unsafe=divisor)
    assert ".item()" not in fixed, "the safe rewrite should apply to this pattern"
    x = _tensor(dtype, shape, seed)
    before, after = _call(source, x.clone()), _call(fixed, x.clone())
    if isinstance(before, type):
        assert before is after
    else:
        assert_identical(before, after)


@pytest.mark.parametrize(("expression", "safe"), [("x / value", False), ("x // value", False), ("value // x", True),
                                                ("x % value", True), ("x * value", True)])
def test_a_divisor_kept_a_tensor_is_unsafe_for_cuda(tmp_path: Path, expression: str, safe: bool) -> None:
    # CUDA computes `x / value` with a Python `value` as x * (1 / value) (BinaryDivTrueKernel.cu,
    # BinaryDivFloorKernel.cu); with the 0-dim tensor the fix keeps, it divides. Only the divisor
    # takes that path: `value // x` and the other operators apply one functor either way.
    source = SOURCE.format(chain="abs().max()", expression=expression)
    path = tmp_path / "divisor_case.py"
    path.write_text(source, encoding="utf-8")
    (finding,) = [f for f in attach_fixes(check([str(path)], jobs=1), Config()).findings if f.code == "GM301"]
    assert finding.fix is not None and (finding.fix.applicability == "safe") is safe, finding.fix.message
    assert ("on CUDA" in finding.fix.message) is not safe
    assert "identical result" in finding.fix.message if safe else "identical result" not in finding.fix.title


def test_unsafe_when_the_value_meets_a_promoting_reduction(tmp_path: Path) -> None:
    # x.sum() of an int32 tensor is int64; as a 0-dim tensor it promotes a 0-dim int32 x to int64,
    # where the Python int kept int32: so the fix exists but only as unsafe.
    source = SOURCE.format(chain="sum()", expression="x * value")
    assert _fixed(tmp_path, source) == source
    unsafe = _fixed(tmp_path, source, unsafe=True)
    assert "value = x.sum().detach()\n" in unsafe
    x = torch.tensor(3, dtype=torch.int32)
    original, rewritten = _call(source, x), _call(unsafe, x)
    assert isinstance(original, torch.Tensor) and isinstance(rewritten, torch.Tensor)
    assert (original.dtype, rewritten.dtype) == (torch.int32, torch.int64)


@pytest.mark.parametrize(
    "body",
    [
        "value = x.max().item()\n    return y * value",  # meets another tensor: its dtype may differ
        "value = x.max().item()\n    return x ** value",  # x ** 2.0 is special-cased for Python numbers
        "value = x.max().item()\n    return [x * value, value]",  # escapes into a list
        "value = x.max().item()\n    x = x.float()\n    return x * value",  # x changes after extraction
        "value = x.max().item()\n    if value > 0:\n        x = x * 2\n    return x * value",
        "value = x.max().item()\n    return x.reshape(value)",  # a shape
        "value = x.max().item()\n    return value / x",  # number / tensor is number * reciprocal
    ],
)
def test_values_used_elsewhere_stay_reports(tmp_path: Path, body: str) -> None:
    source = f"import torch\n\n\ndef f(x, y):\n    {body}\n\n\ncompiled = torch.compile(f)\n"
    assert _fixed(tmp_path, source, unsafe=True) == source


def test_promotion_facts_the_safety_rule_rests_on() -> None:
    ints = torch.tensor([1, 2])
    assert (ints * 1.5).dtype == torch.float32
    assert (ints * torch.tensor(1.5, dtype=torch.float64)).dtype == torch.float64
    floats = torch.randn(4)
    zero_dim = torch.tensor(1.1, dtype=torch.float64)
    assert torch.equal(floats * zero_dim, floats * zero_dim.item())
    assert (torch.tensor(2.0) * zero_dim).dtype == torch.float64  # two 0-dim operands: by dtype
    x = torch.tensor(0.39229682087898254)
    assert not torch.equal(x.max().item() / x, x.max() / x)  # number / tensor rounds twice
