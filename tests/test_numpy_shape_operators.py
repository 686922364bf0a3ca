"""NumPy's dynamic-shape functions (GM501, GB0036) on any argument, a Python list of ints included:
Dynamo traces NumPy through torch._numpy, which turns `list(x.shape)` into a tensor and runs
`aten.unique_dim` on it, whose output shape it cannot know (measured with `torch._dynamo.explain`
on torch 2.13: `np.unique(list(y.shape))` of a 2-d `y` breaks as `np.unique(x.numpy())` does).
Only a one-element argument traces (`np.unique([3])`, and so `list(x.shape)` of a 1-d `x`): the
rank is not known from source, so that case stays reported, an upper bound. A shape-keeping call
(`np.where(c, a, b)`, `np.sort`) does not break and is not reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

CASES = {
    # the expression forward(self, x) computes on x = torch.ones(3), and whether Dynamo breaks on it
    "unique_of_the_shape_as_a_list": ("np.unique(list(x.reshape(1, 3).shape))", True),
    "unique_of_a_literal_list": ("np.unique([1, 2, 2])", True),
    "unique_of_an_array": ("np.unique(x.numpy())", True),
    "nonzero_of_a_list": ("np.nonzero([1, 0, 1])", True),
    "where_of_three": ("np.where(x.numpy() > 0, 1.0, 0.0)", False),
    "sort_of_a_list": ("np.sort(list(x.shape))", False),
}
# one element: Dynamo traces it, but `list(x.shape)` has one only when `x` is 1-d, which graphmend
# does not know, so it reports it (the expression, whether Dynamo breaks, whether graphmend reports)
ONE_ELEMENT = {
    "unique_of_a_1d_shape": ("np.unique(list(x.shape))", False, True),
    "unique_of_one_literal": ("np.unique([3])", False, True),
}


def _source(expression: str) -> str:
    return (
        "import numpy as np\nimport torch\n\n\nclass Model(torch.nn.Module):\n"
        f"    def forward(self, x):\n        x = x + 1\n        found = {expression}\n"
        "        return x - 1, found\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_numpy_dynamic_shape_on_python_lists(tmp_path: Path, case: str) -> None:
    expression, breaks = CASES[case]
    source = _source(expression)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if "found =" in line)
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} == ({row} if breaks else set())
    assert {(line, code) for line, code, _ in graphmend_findings(source, tmp_path)} == (
        {(row, "GM501")} if breaks else set())


@pytest.mark.parametrize("case", sorted(ONE_ELEMENT))
def test_one_element_traces_but_stays_reported(tmp_path: Path, case: str) -> None:
    expression, breaks, reported = ONE_ELEMENT[case]
    source = _source(expression)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if "found =" in line)
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} == ({row} if breaks else set())
    assert {(line, code) for line, code, _ in graphmend_findings(source, tmp_path)} == (
        {(row, "GM501")} if reported else set())
