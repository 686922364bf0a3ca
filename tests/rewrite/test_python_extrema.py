"""Python `max`/`min` and number conversions inside `torch.where` arms (rewrite/branches/python_extrema.py,
purity's `torch.max(a, b)` and `float(...)`): what they become, and what stays refused.

The rewrite itself is checked end to end by the fixture pairs predicate/python_max_arm (bit-identical
outputs with NaN norms on either side, fewer breaks) and predicate/neg_python_max_*.
"""

from __future__ import annotations

import libcst as cst
import pytest
import torch

from graphmend_bot.rewrite.branches.python_extrema import compared_tensors, lower_extrema
from graphmend_bot.rewrite.branching import LocalFacts
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.purity import ArmAnalyzer


def lowered(code: str, tensors: set[str], shadowed: frozenset[str] = frozenset()) -> tuple[str, list[str]]:
    node, notes = lower_extrema(cst.parse_expression(code), tensors, shadowed)
    return cst.Module(body=()).code_for_node(node), notes


def test_max_and_min_of_compared_tensors_become_pythons_own_rule() -> None:
    assert lowered("0.01 / max(d1, d2)", {"d1", "d2"})[0] == "0.01 / torch.where(d2 > d1, d2, d1)"
    assert lowered("min(self.a, b)", {"self.a", "b"})[0] == "torch.where(b < self.a, b, self.a)"
    code, notes = lowered("(max(d1, d2))", {"d1", "d2"})
    assert code == "(torch.where(d2 > d1, d2, d1))"
    assert len(notes) == 1 and "0-d tensors of one dtype" in notes[0]


@pytest.mark.parametrize(
    ("code", "tensors", "shadowed"),
    [
        ("max(d1, d2)", {"d1"}, set()),  # d2 is not shown to be a tensor
        ("max(d1, 1e-3)", {"d1"}, set()),  # a Python number: Python's max of a tensor and a float
        ("max(d1, d2, d3)", {"d1", "d2", "d3"}, set()),
        ("max(d1, d2, key=abs)", {"d1", "d2"}, set()),
        ("max([d1, d2])", {"d1", "d2"}, set()),
        ("max(d1, d2)", {"d1", "d2"}, {"max"}),  # the module's own `max`
        ("max(d1.abs(), d2)", {"d1", "d2"}, set()),
    ],
)
def test_other_calls_are_left_as_written(code: str, tensors: set[str], shadowed: set[str]) -> None:
    assert lowered(code, tensors, shadowed) == (code, [])


def test_python_max_matches_the_where_it_becomes_bit_for_bit() -> None:
    nan, inf = float("nan"), float("inf")
    values = [0.0, -0.0, 1e-20, 0.5, 2.0, nan, inf, -inf]
    for dtype in (torch.float16, torch.float32, torch.float64):
        for a in values:
            for b in values:
                d1, d2 = torch.tensor(a, dtype=dtype), torch.tensor(b, dtype=dtype)
                for python, where in ((max(d1, d2), torch.where(d2 > d1, d2, d1)), (min(d1, d2), torch.where(d2 < d1, d2, d1))):
                    assert python.dtype == where.dtype
                    assert torch.equal(python.isnan(), where.isnan())
                    assert torch.equal(python.nan_to_num(7.0), where.nan_to_num(7.0))
                    assert torch.equal(python.signbit(), where.signbit())


def facts_of(source: str) -> LocalFacts:
    ctx = FixContext(source)
    function = ctx.module.body[0]
    assert isinstance(function, cst.FunctionDef)
    return LocalFacts.of(ctx, function)


def test_the_condition_names_its_tensors_but_not_its_python_part() -> None:
    facts = facts_of("def f(d1, eps: float, flag, x, n: int):\n    pass\n")
    test = cst.parse_expression("d1 <= 1e-15 and self.d2 <= eps and not flag")
    assert compared_tensors([test], facts) == {"d1", "self.d2"}
    # `x is not None` and `n > 3` (an int parameter) stay a Python `if`: they show no tensor.
    guarded = cst.parse_expression("x is not None and n > 3 and d1 < 1e-3")
    assert compared_tensors([guarded], facts) == {"d1"}


def test_torch_max_of_two_tensors_is_elementwise_but_a_dimension_is_not() -> None:
    analyzer = ArmAnalyzer()
    info = analyzer.analyze(cst.parse_expression("torch.max(torch.tensor(1e-6, dtype=dtype), h0 * 1e-3)"))
    assert "h0" in info.leaves
    for code in ("torch.max(x, dim)", "torch.max(x, 1)", "torch.max(x)", "torch.max(x, dim=1)"):
        with pytest.raises(Rejected):
            analyzer.analyze(cst.parse_expression(code))


def test_number_conversions_are_python_numbers_with_their_assumption_stated() -> None:
    analyzer = ArmAnalyzer(python_scalars=frozenset({"n"}))
    assert analyzer.analyze(cst.parse_expression("1. / float(n + 1)")).notes == ()
    (note,) = analyzer.analyze(cst.parse_expression("x ** (1. / float(order + 1))")).notes
    assert "`order` holds a Python number" in note
    analyzer.known_float.add("x")
    for code in ("float(self.order)", "float(x)", "float(x.sum())", "int(torch.tensor(1))", "float(a, b)"):
        with pytest.raises(Rejected):
            analyzer.analyze(cst.parse_expression(code))
