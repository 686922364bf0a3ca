"""GM648: a tensor's `apply_` / `map_` / `map2_` with a Python function breaks with GB0055 ("Failed to
convert args/kwargs to proxy"), measured with Dynamo on torch 2.13 beside what graphmend reports,
for a lambda, a nested `def` and a builtin. Near misses measured: `torch.vmap(fn)(x)`, and an
`apply_` method of a class of the tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

_HEAD = "import torch\nfrom torch import nn\n\n\nclass Box:\n    def apply_(self, f):\n        return f([1])\n\n\n"

# the forward's body after `x = x * 2`; whether the line marked `# call` breaks
CASES = {
    "apply_lambda": (["y = x.clone().apply_(lambda v: v * 2)  # call"], True),
    "apply_nested_def": (["def f(v):", "    return v + 1", "y = x.clone()", "y.apply_(f)  # call"], True),
    "apply_builtin": (["y = x.clone().apply_(abs)  # call"], True),
    "map_": (["y = x.clone().map_(x, lambda a, b: a + b)  # call"], True),
    "map2_": (["y = x.clone().map2_(x, x, lambda a, b, c: a + b + c)  # call"], True),
    # near misses
    "vmap": (["y = torch.vmap(lambda v: v * 2)(x)  # call"], False),
    "tree_class_apply_": (["n = Box().apply_(len)  # call"], False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_python_function_given_to_a_tensor_method(tmp_path: Path, case: str) -> None:
    body, breaks = CASES[case]
    lines = ["class Model(nn.Module):", "    def forward(self, x):", "        x = x * 2",
             *(f"        {line}" for line in body), "        return x + 1"]
    source = _HEAD + "\n".join(lines) + "\n"
    expected = {line_of(source, "# call")} if breaks else set()
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0055") for line in expected}
    assert graphmend_findings(source, tmp_path) == {(line, "GM648", "GB0055") for line in expected}
