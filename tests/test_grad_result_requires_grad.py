"""`g.requires_grad_()` on a gradient `torch.autograd.grad(..., create_graph=True)` returned: it
requires grad already, so the call changes nothing and Dynamo traces it (GM701 stays silent);
without `create_graph=True` the gradient needs no grad and the call breaks. Each case's truth is
measured with `torch._dynamo.explain` on the sample (torch 2.13); the `autograd.grad` call itself
breaks (GB9186) in every case and is reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

CASES = {
    # forward's body after `u = (self.w * self.w).sum()`; the marked line is the requires_grad_ one
    "unpacked": (
        "g, = torch.autograd.grad(u, self.w, create_graph=True)\n        g.requires_grad_()  # mark\n"
        "        return g * x", False),
    "indexed_from_module_alias": (
        "g = autograd.grad(u, [self.w], create_graph=True, allow_unused=True)[0]\n"
        "        y = g.requires_grad_(True)  # mark\n        return y * x", False),
    "zipped_loop": (
        "out = []\n        for w, g in zip([self.w], torch.autograd.grad(u, [self.w], create_graph=True)):\n"
        "            out.append(g.requires_grad_(True))  # mark\n        return out[0] * x", False),
    "without_create_graph": (
        "g, = torch.autograd.grad(u, self.w)\n        g.requires_grad_()  # mark\n        return g * x", True),
}


def _source(body: str) -> str:
    return (
        "import torch\nimport torch.autograd as autograd\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.w = torch.nn.Parameter(torch.ones(3))\n\n"
        f"    def forward(self, x):\n        u = (self.w * self.w).sum()\n        {body}\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_requires_grad_on_a_created_graph_gradient_is_not_reported(tmp_path: Path, case: str) -> None:
    body, breaks = CASES[case]
    source = _source(body)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if line.endswith("# mark"))
    at_mark = {gb for line, gb in dynamo_breaks(source, tmp_path) if line == row}
    assert bool(at_mark) == breaks
    found = {gb for line, code, gb in graphmend_findings(source, tmp_path) if line == row and code == "GM701"}
    assert bool(found) == breaks
