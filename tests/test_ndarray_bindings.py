"""GM632 on arrays bound beyond `name = <array>` (analysis/ndarray_bindings.py, numpy_values.py):
reading `.dtype` of each breaks with GB0157, measured with Dynamo on torch 2.13 beside what graphmend
reports; and an array `__init__` stored in `self` (np.ones, np.asarray, even a NumPy scalar).
Near misses measured: a tensor's `.T.dtype`, an arm that may be None, a tuple element that
is no array, and attributes Dynamo answers (`.shape`, `.size`, `.ndim`, `.itemsize`, `.strides`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

_HEAD = "from typing import Optional\n\nimport numpy as np\nimport torch\nfrom torch import nn\n\n"
_HELPER = (
    "def helper(x: torch.Tensor, a: np.ndarray, b: Optional[np.ndarray] = None) -> torch.Tensor:\n"
    "    k = a.dtype  # the parameter's\n"
    "    return x + 1\n\n"
)

# the forward's body after `x = x * 2`; whether the line marked `# read` breaks (GB0157)
CASES = {
    "annotated_parameter": (["x = helper(x, np.ones(3))  # calls"], True),
    "transposed": (["t = np.ones(3)", "k = t.T.dtype  # read"], True),
    "real_part": (["t = np.ones(3)", "k = t.real.dtype  # read"], True),
    "unpacked": (["a, b = np.ones(3), np.zeros(3)", "k = b.dtype  # read"], True),
    "either_arm": (["c = np.ones(3) if x.shape[0] > 1 else np.zeros(2)", "k = c.flags  # read"], True),
    "augmented": (["d = np.ones(3)", "d += 1", "k = d.base  # read"], True),
    "annotated_local": (["e: np.ndarray = np.zeros(3)", "k = e.dtype  # read"], True),
    # near misses
    "tensor_transposed": (["k = x.T.dtype  # read"], False),
    "arm_may_be_none": (["f = np.ones(3) if x.shape[0] > 5 else None", "k = f is None  # read"], False),
    "unpacked_number": (["g, h = np.ones(3), 3", "k = h + 1  # read"], False),
    "answered_attributes": (["t = np.ones(3)", "k = (t.shape, t.size, t.ndim, t.itemsize, t.strides)  # read"], False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_arrays_bound_so_are_arrays(tmp_path: Path, case: str) -> None:
    body, breaks = CASES[case]
    lines = ["class Model(nn.Module):", "    def forward(self, x):", "        x = x * 2",
             *(f"        {line}" for line in body), "        return x + 1"]
    source = _HEAD + _HELPER + "\n".join(lines) + "\n"
    read = line_of(source, "# the parameter's" if case == "annotated_parameter" else "# read")
    expected = {read} if breaks else set()
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0157") for line in expected}
    assert graphmend_findings(source, tmp_path) == {(line, "GM632", "GB0157") for line in expected}


# `__init__`'s body; whether forward's `k = self.NAME.ATTR` breaks (GB0157)
HELD = {
    "ones_dtype": (["self.a = np.ones(3)"], "self.a.dtype", True),
    "asarray_flags": (["self.a = np.asarray([1.0, 2.0])"], "self.a.flags", True),
    "linspace_base": (["self.a = np.linspace(0, 1, 4)"], "self.a.base", True),
    "numpy_scalar": (["self.a = np.float32(2.0)"], "self.a.dtype", True),
    # near misses
    "parameter": (["self.a = nn.Parameter(torch.ones(3))"], "self.a.dtype", False),
    "tensor_from_numpy": (["self.a = torch.from_numpy(np.ones(3))"], "self.a.dtype", False),
    "none_on_a_path": (["self.a = None", "if False:", "    self.a = np.ones(3)"], "self.a is None", False),
}


@pytest.mark.parametrize("case", sorted(HELD))
def test_an_array_held_from_init_is_an_array(tmp_path: Path, case: str) -> None:
    init, read, breaks = HELD[case]
    lines = ["class Model(nn.Module):", "    def __init__(self):", "        super().__init__()",
             *(f"        {line}" for line in init),
             "    def forward(self, x):", "        x = x * 2", f"        k = {read}  # read", "        return x + 1"]
    source = _HEAD + "\n".join(lines) + "\n"
    expected = {line_of(source, "# read")} if breaks else set()
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0157") for line in expected}
    assert graphmend_findings(source, tmp_path) == {(line, "GM632", "GB0157") for line in expected}
