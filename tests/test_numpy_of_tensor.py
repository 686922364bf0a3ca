"""A tensor's `.numpy()` is a NumPy array under Dynamo as much as `np.asarray(...)` is (torch._numpy,
`trace_numpy` on by default): reading its `.flags`, `.base` or `.dtype` breaks (GM632, GB0157), and it
is a 0-d tensor where a size is taken (GM302, GB0033). Measured with `torch._dynamo.explain` on
torch 2.13 (the differential fuzzer's `a = y.detach().numpy()`, `a.flags[...]`); near misses: the
attributes Dynamo answers from the example value (`shape`, `ndim`, `size`, `itemsize`, `T`), and
the array back to a tensor (`torch.from_numpy(a * 2)`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

_HEAD = (
    "import numpy as np\nimport torch\nfrom torch import nn\n\n\n"
    "class Model(nn.Module):\n"
    "    def forward(self, x):\n        x = x * 2\n"
)
LINE = 10  # the case's last line

# the array's spelling and the line reading it, and whether Dynamo breaks on (and graphmend reports) it
CASES = {
    "flags": ("x.numpy()", "v = a.flags['C_CONTIGUOUS']", True),
    "base": ("x.detach().cpu().numpy()", "v = a.base is None", True),
    "dtype": ("x.numpy(force=True)", "v = a.dtype", True),
    "zeros_of_its_sum": ("x.numpy()", "x = torch.zeros(a.sum().astype(int)) + x.sum()", True),
    # near misses
    "shape": ("x.numpy()", "x = x.view(a.shape[0])", False),
    "ndim": ("x.detach().numpy()", "x = x * a.ndim", False),
    "size": ("x.numpy()", "x = x.reshape(a.size)", False),
    "itemsize": ("x.numpy()", "x = x * a.itemsize", False),
    "transpose": ("x.numpy()", "x = x + torch.from_numpy(a.T * 2)", False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_array_of_a_tensor_as_dynamo_measures(name: str, tmp_path: Path) -> None:
    array, line, breaks = CASES[name]
    source = _HEAD + f"        a = {array}\n        {line}\n        return x + 1\n"
    assert source.splitlines()[LINE - 1].strip() == line
    dynamo = {row for row, _ in dynamo_breaks(source, tmp_path)}
    ours = {row for row, _, _ in graphmend_findings(source, tmp_path)}
    assert (LINE in dynamo) is breaks, dynamo
    assert dynamo == ours, (dynamo, ours)
