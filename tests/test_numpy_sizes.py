"""A NumPy value where a Python int is needed (GM302, GB0033): Dynamo runs NumPy through
torch._numpy, so `np.prod(self.dims)` or `np.array(pair)[0]` is a 0-d tensor, and a size or a
slice bound made of one is converted with `aten._local_scalar_dense` ("Data dependent operator").
Measured with `torch._dynamo.explain` on torch 2.13 (pythae's `x.reshape(-1, np.prod(self.input_dim))`,
deepctr-torch's `X[:, idx[0]:idx[1]]` with `idx = np.array(pair)`). Near misses measured: `math.prod`,
a Python tuple's elements, a NumPy value in arithmetic with a tensor, a 1-d NumPy index (advanced
indexing), and a product over a one-element size (`np.prod(x.shape[1:])` of a 2-d `x` traces; the
rank is not known from source, so a product that reads a value's `.shape` or `.size()` is never
reported: `np.prod(x.shape)` breaks and is missed, a lower bound), and a 0-d array constructed from
Python values (`np.int64(3)`, `np.array(3) + 0`) as a size, which converts without a break."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

_HEAD = (
    "import math\nimport numpy as np\nimport torch\nfrom torch import nn\n\n\n"
    "class Model(nn.Module):\n"
    "    def __init__(self):\n        super().__init__()\n        self.dims = (1, 3)\n        self.pair = (0, 2)\n\n"
    "    def forward(self, x):\n        x = x.reshape(1, 3)\n"
)

# the body's lines after `x = x.reshape(1, 3)`, and whether Dynamo breaks on (and graphmend
# reports) its last line
CASES = {
    "reshape_by_a_product": (["return x.reshape(-1, np.prod(self.dims))"], True),
    "view_by_a_product_in_a_tuple": (["return x.view((-1, np.prod(self.dims)))"], True),
    "expand_by_a_product_of_a_literal": (["return x.expand(np.prod((2, 1)), 3)"], True),
    "reshape_by_a_product_of_a_local_tuple": (["s = (1, 3)", "return x.reshape(-1, np.prod(s))"], True),
    "zeros_of_a_product": (["return torch.zeros(np.prod(self.dims)) + x.sum()"], True),
    "slice_by_array_elements": (["idx = np.array(self.pair)", "return x[:, idx[0]:idx[1]]"], True),
    "slice_by_a_sum": (["return x[:, : np.sum(self.pair)]"], True),
    "store_into_a_slice_by_array_elements": (["idx = np.array(self.pair)", "x[:, idx[0]:idx[1]] = 0.0"], True),
    # near misses
    "reshape_by_math_prod": (["return x.reshape(-1, math.prod(self.dims))"], False),
    "slice_by_tuple_elements": (["idx = self.pair", "return x[:, idx[0]:idx[1]]"], False),
    "arithmetic_with_a_product": (["return x * np.prod(self.dims)"], False),
    "index_by_a_1d_array": (["return x[:, np.array([0, 2])]"], False),
    "product_of_a_one_element_shape": (["return x.view(-1, np.prod(x.shape[1:]))"], False),
    # a 0-d array constructed from Python values (a scalar type, np.array, np.asarray) converts
    "reshape_by_a_scalar_type": (["return x.reshape(np.int64(1), 3)"], False),
    "view_by_a_scalar_type_of_an_attribute": (["return x.view(-1, np.int32(self.dims[1]))"], False),
    "new_zeros_of_a_scalar_type": (["return x.new_zeros(np.int64(3)) + x"], False),
    "reshape_by_an_array_in_arithmetic": (["return x.reshape(-1, np.array(3) + 0)"], False),
    "zeros_of_asarray_astype": (["return torch.zeros(np.asarray(3.0).astype(np.int64)) + x"], False),
    "reshape_by_a_scalar_type_times_a_product": (["return x.reshape(-1, np.int64(1) * np.prod(self.dims))"], True),
}


def _source(lines: list[str]) -> str:
    body = "".join(f"        {line}\n" for line in lines)
    if not lines[-1].startswith("return"):
        body += "        return x\n"
    return _HEAD + body


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_numpy_value_as_a_size_or_slice_bound(tmp_path: Path, case: str) -> None:
    lines, breaks = CASES[case]
    source = _source(lines)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if line.strip() == lines[-1])
    assert dynamo_breaks(source, tmp_path) == ({(row, "GB0033")} if breaks else set())
    assert graphmend_findings(source, tmp_path) == ({(row, "GM302", "GB0033")} if breaks else set())


def test_a_product_over_a_tensor_shape_is_not_reported(tmp_path: Path) -> None:
    """`np.prod(x.shape)` of a 2-d `x` breaks, but over a one-element size it traces: unreported."""
    source = _source(["return x.reshape(np.prod(x.shape))"])
    row = len(source.splitlines())
    assert dynamo_breaks(source, tmp_path) == {(row, "GB0033")}
    assert graphmend_findings(source, tmp_path) == set()
