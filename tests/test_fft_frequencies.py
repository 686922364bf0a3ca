"""`torch.fft.fftfreq(n, d)` / `rfftfreq(n, d)` take Python numbers: a tensor `n` or `d` is read
back (GM302, GB0033 "Data dependent operator" on torch 2.13). Each case's truth is measured with
`torch._dynamo.explain` on the sample; sizes from shapes and Python numbers are near misses."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

CASES = {
    # body of forward(self, x) after `x = x + 1`, ending in `y = ...`; whether Dynamo breaks there
    "fftfreq_of_a_count": ("n = (x > 0).sum()\n        y = torch.fft.fftfreq(n)", True),
    "rfftfreq_keyword_n": ("n = (x > 0).sum()\n        y = torch.fft.rfftfreq(n=n, dtype=x.dtype)", True),
    "fftfreq_tensor_spacing": ("y = torch.fft.fftfreq(8, d=x.abs().sum())", True),
    "imported_rfftfreq": ("n = (x > 0).sum()\n        y = rfftfreq(n)", True),
    "element_of_held_counts": ("y = torch.fft.fftfreq(self.ns[0])", True),
    "helper_with_annotated_counts": ("y = frequencies(self.ns)", True),
    "fftfreq_of_a_shape": ("y = torch.fft.fftfreq(x.shape[0], d=0.5)", False),
    "rfftfreq_of_a_length": ("y = torch.fft.rfftfreq(len(x) * 2)", False),
    "fft_of_a_python_size": ("y = torch.fft.rfft(x, n=8)", False),
}


def _source(body: str) -> str:
    return (
        "import torch\nfrom torch.fft import rfftfreq\n\n\n"
        "def frequencies(ns: torch.Tensor) -> torch.Tensor:\n"
        "    return torch.fft.fftfreq(ns[1])\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('ns', torch.tensor([4, 5, 6]))\n\n"
        f"    def forward(self, x):\n        x = x + 1\n        {body}\n        return y.sum() + x.sum()\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_tensor_arguments_of_fft_frequencies_are_reported(tmp_path: Path, case: str) -> None:
    body, breaks = CASES[case]
    source = _source(body)
    lines = source.splitlines()
    row = next(n for n, line in enumerate(lines, 1) if line.strip().startswith("y = "))
    if case == "helper_with_annotated_counts":  # the break is in the helper's `return`
        row = next(n for n, line in enumerate(lines, 1) if "fftfreq(ns[1])" in line)
    expected = {(row, "GB0033")} if breaks else set()
    assert dynamo_breaks(source, tmp_path) == expected
    found = {(line, gb) for line, code, gb in graphmend_findings(source, tmp_path) if code == "GM302"}
    assert found == expected
